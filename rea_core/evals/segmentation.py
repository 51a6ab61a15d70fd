"""Topic segmentation quality of SeCom's segmenters (SeCom paper, Table 4: Pk and WindowDiff).

Data: ``rea_core/data/segmentation_gold.jsonl``, ten hand-labeled conversations (77 turns, 16 gold
boundaries; ``docs/segmentation_labeling.md``): the conversation JSONL plus ``"boundaries"``, the
indices of the turns that open a new topic. Each conversation is segmented whole, as SeCom
segments a session, by the zero-shot LLM segmenter (with its embedding fallback, counted) and by
the embedding segmenter alone; two trivial baselines (no boundary, a boundary at every turn) give
the scale. Lower Pk and WindowDiff are better.

Pk (Beeferman et al., 1999) and WindowDiff (Pevzner & Hearst, 2002) are NLTK's
(``nltk.metrics.segmentation``), on a per-turn sequence with 1 where a turn opens a segment. ``k``
is always passed: half the mean gold segment length (segments = boundaries + 1), where NLTK's own
default for Pk divides by the boundary count instead.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Sequence

from ..conversations import parse_conversation, read_jsonl
from ..errors import DataFormatError


def boundary_sequence(boundaries: Sequence[int], n: int) -> list[int]:
    """Per-turn 0/1 sequence of length ``n``: 1 where a turn opens a new segment (never turn 0)."""
    marks = [0] * n
    for b in boundaries:
        if not 0 < b < n:
            raise ValueError(f"boundary {b} outside 1..{n - 1}")
        marks[b] = 1
    return marks


def default_k(reference: Sequence[int]) -> int:
    """Half the mean reference segment length, at least 1."""
    segments = sum(reference) + 1
    return max(1, round(len(reference) / (2 * segments)))


def _checked(reference: Sequence[int], hypothesis: Sequence[int], k: int | None) -> tuple[str, str, int]:
    """Both sequences as NLTK's boundary strings ("0010..."), and ``k``; checks lengths and ``k``
    (NLTK's Pk accepts a window wider than the sequence and divides by zero or less there)."""
    if len(reference) != len(hypothesis):
        raise ValueError("reference and hypothesis differ in length")
    k = default_k(reference) if k is None else k
    if not 0 < k <= len(reference):
        raise ValueError(f"window {k} does not fit {len(reference)} positions")
    return "".join("1" if x else "0" for x in reference), "".join("1" if x else "0" for x in hypothesis), k


def window_diff(reference: Sequence[int], hypothesis: Sequence[int], k: int | None = None) -> float:
    """WindowDiff: share of length-``k`` windows whose boundary counts differ."""
    from nltk.metrics.segmentation import windowdiff

    ref, hyp, k = _checked(reference, hypothesis, k)
    return windowdiff(ref, hyp, k)


def pk(reference: Sequence[int], hypothesis: Sequence[int], k: int | None = None) -> float:
    """Pk: share of length-``k`` windows where reference and hypothesis disagree on whether any boundary
    falls inside."""
    from nltk.metrics.segmentation import pk as nltk_pk

    ref, hyp, k = _checked(reference, hypothesis, k)
    return nltk_pk(ref, hyp, k)


def default_gold_path() -> Path:
    return Path(str(resources.files("rea_core").joinpath("data", "segmentation_gold.jsonl")))


def load_gold(path, *, max_chars: int | None = None) -> list[tuple[str, list[tuple[str, str]], list[int]]]:
    """(id, turns, gold boundaries) per conversation; every turn needs an assistant reply, each turn
    at most ``max_chars`` characters (``conversations.check_turn_chars``)."""
    cases = []
    for where, obj in read_jsonl(path):
        conv = parse_conversation(obj, where=where, max_chars=max_chars)
        turns = [(t.user, t.assistant) for t in conv.turns]
        if any(a is None for _, a in turns):
            raise DataFormatError(f"{where}: every turn needs an assistant reply")
        bounds = obj.get("boundaries")
        if (
            not isinstance(bounds, list)
            or sorted(set(bounds)) != bounds
            or any(not isinstance(b, int) or not 0 < b < len(turns) for b in bounds)
        ):
            raise DataFormatError(f'{where}: "boundaries" must be increasing turn indices in 1..{len(turns) - 1}')
        cases.append((conv.id, turns, bounds))
    return cases


def evaluate(models, settings, out_dir: str | Path, data=None) -> dict:
    """Pk and WindowDiff of the LLM and embedding segmenters (and baselines) on the gold set."""
    import json
    import time

    from ..methods.secom.segmenter import TopicSegmenter, boundaries

    cases = load_gold(data or default_gold_path())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows, per_case = {}, []
    segmenters = {
        "llm (embedding fallback)": TopicSegmenter(
            models.generator, models.embedder, mode="llm", threshold=settings.secom.boundary_threshold
        ),
        "embedding": TopicSegmenter(
            models.generator, models.embedder, mode="embedding", threshold=settings.secom.boundary_threshold
        ),
    }
    for name, segmenter in segmenters.items():
        pks, wds, fallbacks, t0 = [], [], 0, time.perf_counter()
        for cid, turns, gold in cases:
            result = segmenter.segment(turns)
            fallbacks += bool(result.note)
            ref, hyp = boundary_sequence(gold, len(turns)), boundary_sequence(boundaries(result.spans), len(turns))
            pks.append(pk(ref, hyp))
            wds.append(window_diff(ref, hyp))
            per_case.append(
                {
                    "segmenter": name,
                    "id": cid,
                    "gold": gold,
                    "predicted": boundaries(result.spans),
                    "method": result.method,
                    "note": result.note,
                }
            )
        rows[name] = {
            "pk": sum(pks) / len(pks),
            "windowdiff": sum(wds) / len(wds),
            "llm_fallbacks": fallbacks,
            "seconds": time.perf_counter() - t0,
        }
    for name, make in (("baseline: no boundary", lambda n: []), ("baseline: every turn", lambda n: list(range(1, n)))):
        ref_hyp = [(boundary_sequence(g, len(t)), boundary_sequence(make(len(t)), len(t))) for _, t, g in cases]
        rows[name] = {
            "pk": sum(pk(r, h) for r, h in ref_hyp) / len(cases),
            "windowdiff": sum(window_diff(r, h) for r, h in ref_hyp) / len(cases),
        }
    results = {
        "task": "segmentation",
        "conversations": len(cases),
        "turns": sum(len(t) for _, t, _ in cases),
        "gold_boundaries": sum(len(g) for _, _, g in cases),
        "threshold": settings.secom.boundary_threshold,
        "model": models.generator.name,
        "segmenters": rows,
    }
    (out / "results.json").write_text(
        json.dumps({**results, "per_conversation": per_case}, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    return results
