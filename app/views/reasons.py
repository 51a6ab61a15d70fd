"""Why an exchange has its resolution, in words: the prompt view, the retrieval chart and Inspect's
decision table all say it the same way, from the decision's ``Reason`` (nothing is recomputed here).
"""

from __future__ import annotations

from rea_core import Reason, Resolution

# Why an exchange kept by a rule is in the prompt, whatever its score.
RULE_TEXT = {
    Reason.RECENT: "working memory: one of the latest exchanges, kept raw within the window's token budget",
    Reason.RECENT_BAND: "working memory: just before the raw window, kept at least compressed",
    Reason.REFERENT: "likely referent: among the best-scored exchanges below tau_low outside "
    "the window, kept compressed in case the message points back to it",
}
BUDGET_TEXT = (
    "prompt budget: the kept exchanges would not fit the model's window, so the lowest-scored were "
    "demoted (raw to compressed first, then compressed to omitted) rather than cut the system prompt "
    "and Instructional Memory"
)
IN_IM_TEXT = (
    "held in Instructional Memory: the message was a global instruction and nothing else, so the "
    "IM prefix reads it verbatim and the exchange is not repeated among the turns"
)
# Where a score decided: the band the thresholds put it in.
BAND = {
    Resolution.RAW: "at or above tau_high",
    Resolution.COMPRESSED: "between tau_low and tau_high",
    Resolution.OMIT: "below tau_low",
}


def reason_label(resolution: Resolution, reason: Reason, *, thresholded: bool = True) -> str:
    """A short reason: "kept by score: at or above tau_high", "kept by rule: likely referent".

    ``thresholded``: the score is compared with tau_low / tau_high (REA's HCR); otherwise it is a
    strategy's own ranking (SeCom's retriever) and no band applies.
    """
    if reason.is_rule:
        return reason.label
    verb = "omitted" if resolution is Resolution.OMIT else "kept"
    if reason is Reason.IN_IM:
        return "not repeated: held in Instructional Memory"
    if reason is Reason.BUDGET:
        return f"{'omitted' if resolution is Resolution.OMIT else 'compressed'} to fit the model's window"
    if reason is Reason.SCORE:
        return f"{verb} by score: {BAND[resolution]}" if thresholded else f"{verb} by retrieval rank"
    return f"{verb} by the strategy's fixed policy"


def reason_text(resolution: Resolution, reason: Reason, *, thresholded: bool = True) -> str:
    """The reason in full: the rule's explanation for an exchange a rule keeps, else the short one."""
    if reason is Reason.BUDGET:
        return f"{reason_label(resolution, reason)}: {BUDGET_TEXT}"
    if reason is Reason.IN_IM:
        return IN_IM_TEXT
    return RULE_TEXT.get(reason) or reason_label(resolution, reason, thresholded=thresholded)
