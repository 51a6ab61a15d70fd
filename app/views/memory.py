"""Instructional Memory panel and per-turn stats, as escaped HTML."""

from __future__ import annotations

import re
from html import escape

from rea_core.memory import InstructionalMemory


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


def short_stats(entry: dict) -> str:
    """One turn's stats in a short plain line for under a reply: a cut reply first, then what the model
    read and how fast it answered, then what became of the past turns (plain text; the caller escapes it)."""
    d = entry.get("decisions") or {}
    parts = [f"cut at {entry['cut_at_tokens']} tokens"] if entry.get("cut_at_tokens") else []
    if entry.get("out_of_time"):
        parts.append("cut at its time limit")
    tokens = entry.get("prompt_tokens", 0)
    parts.append(f"read {tokens:,} tokens" if isinstance(tokens, int) else f"read {tokens} tokens")
    ttft = entry.get("ttft_s")
    if isinstance(ttft, (int, float)):
        parts.append(f"first word {ttft:.1f} s")
    whole, short, left = d.get("raw", 0), d.get("compressed", 0), d.get("omit", 0)
    if whole or short or left:
        kept = [f"{whole} whole"] + ([f"{short} shortened"] if short else []) + ([f"{left} left out"] if left else [])
        parts.append("past turns: " + ", ".join(kept))
    if not entry.get("generated", True):
        parts.append("reply as given")
    return " · ".join(parts)


def stats_line(entry: dict) -> str:
    """One turn's cost and decisions in full, from a session log entry: the hover of ``short_stats``
    (plain text, no user text; the caller escapes it)."""
    from rea_core.methods import stats_text

    return stats_text(entry)


_SETTING_NAME = re.compile(r"\s*\(REA_[A-Z0-9_]+\)")  # "(REA_REPLY_BUDGET_S)": for whoever runs the server


def stats_html(entry: dict) -> str:
    """A reply's stats as it is shown under it: the short line, the full one on hover without the names of
    the server's settings (escaped: a loaded file's log is visitor input)."""
    full = _SETTING_NAME.sub("", stats_line(entry))
    return f'<span class="rea-stats" title="{escape(full)}">{escape(short_stats(entry), quote=False)}</span>'
