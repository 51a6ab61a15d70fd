"""Inter-annotator agreement: Cohen's kappa for a pair, Fleiss' kappa for more (pure, no I/O).

Agreement tells whether the global / task / ordinary guideline is applied the same way by
different people; a low kappa means the labels the recognizer is trained on are noisy.

Cohen's kappa is scikit-learn's ``cohen_kappa_score``. Fleiss' kappa is written here because no
installed dependency has it (scikit-learn and SciPy do not; statsmodels, which does, is not a
dependency, and its ``fleiss_kappa`` assumes every item has the same number of raters, while items
here may have two or more). The tests check it against Fleiss' (1971) worked example.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa of two annotators' labels on the same items, in the same order.

    Returns:
        (p_o - p_e) / (1 - p_e) as scikit-learn computes it; None when there are no items or
        chance agreement is 1 (both gave one and the same label to everything: kappa is undefined).
    """
    if len(a) != len(b):
        raise ValueError("both annotators need a label for the same items")
    labels = sorted(set(a) | set(b))
    if len(labels) < 2:  # no items, or one label given to everything by both: p_e = 1
        return None
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(list(a), list(b), labels=labels))


def fleiss_kappa(items: Sequence[Mapping[str, int]]) -> float | None:
    """Fleiss' kappa over items rated by two or more annotators.

    Args:
        items: Per item, the count of annotators per label ({"global": 2, "task": 1}).
            Items with fewer than two ratings are ignored. Items may have different
            numbers of raters (the per-item agreement uses each item's own count).

    Returns:
        (P_bar - P_e) / (1 - P_e), or None when undefined (no items, or P_e = 1).
    """
    rated = [{k: v for k, v in counts.items() if v} for counts in items if sum(counts.values()) >= 2]
    if not rated:
        return None
    agreement = []
    totals: Counter[str] = Counter()
    for counts in rated:
        n = sum(counts.values())
        agreement.append((sum(v * v for v in counts.values()) - n) / (n * (n - 1)))
        totals.update(counts)
    p_bar = sum(agreement) / len(agreement)
    grand = sum(totals.values())
    p_e = sum((v / grand) ** 2 for v in totals.values())
    if p_e == 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


def majority(labels: Sequence[str]) -> str | None:
    """The most common label, or None on a tie (a tie needs adjudication)."""
    if not labels:
        return None
    ranked = Counter(labels).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]
