"""Instructional Memory panel and per-turn stats, as escaped HTML."""

from __future__ import annotations

from html import escape

from rea_core.memory.instructional import InstructionalMemory


def im_table(memory: InstructionalMemory | None, *, enabled: bool) -> str:
    """What IM holds and why: position, text, who added it, recognizer stage and score."""
    if not enabled:
        return '<div class="rea-im rea-empty">This strategy keeps no Instructional Memory.</div>'
    if memory is None or not len(memory):
        return '<div class="rea-im rea-empty">Instructional Memory is empty.</div>'
    rows = "".join(
        f"<tr><td>{i}</td><td>{escape(e.text)}</td><td>{escape(e.source)}</td>"
        f"<td>{escape(e.stage or '-')}</td><td>{e.score:.2f}</td><td>{e.turn if e.turn >= 0 else '-'}</td></tr>"
        for i, e in enumerate(memory)
    )
    return (
        '<table class="rea-im"><thead><tr><th>#</th><th>instruction (verbatim)</th><th>added by</th>'
        f"<th>stage</th><th>score</th><th>turn</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def stats_line(entry: dict) -> str:
    """One turn's cost and decisions, from a session log entry (plain text, no user text; the caller escapes it)."""
    from rea_core.methods.base import stats_text

    return stats_text(entry)
