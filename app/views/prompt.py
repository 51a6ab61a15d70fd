"""Table-13-style prompt view: the exact input the generator received, as colored blocks in order.

Every piece of user or model text is HTML-escaped here; nothing from a conversation reaches the
page as markup.
"""

from __future__ import annotations

from html import escape

from rea_core import PromptPlan, Reason, Resolution, prompt_time
from rea_core.types import ReplyForm, Segment, SegmentKind

from .reasons import RULE_TEXT, reason_label, reason_text

_CHIP = {ReplyForm.TEXT_COMPRESSED: "text-compressed"}  # a latent reply's chip says how many vectors


def _score(seg: Segment) -> str:
    return "" if seg.score is None else f" · score {seg.score:.2f}"


def _head(label: str, tokens: int, extra_html: str = "") -> str:
    """A block's header: its label, ``extra_html`` (already escaped), its token count."""
    return (
        f'<div class="rea-head"><span class="rea-tag">{escape(label)}{extra_html}</span><span '
        f'class="rea-tok">{tokens} tok</span></div>'
    )


def _text_block(seg: Segment, css: str, label: str) -> str:
    return f'<div class="rea-seg {css}">{_head(label, seg.tokens)}<div class="rea-text">{escape(seg.text)}</div></div>'


QUOTE_CHARS = 300  # a long query Instructional Memory already holds is shown this far, not printed twice


def _query_block(seg: Segment, instructions: str) -> str:
    """The current query; a long one that Instructional Memory holds word for word (a long message
    recognized as an instruction) is printed once, in the IM block above, and only begun here."""
    if len(seg.text) <= 2 * QUOTE_CHARS or seg.text.strip() not in instructions:
        return _text_block(seg, "rea-query", "current query")
    rest = (
        f'<span class="rea-empty">… the whole {len(seg.text):,}-character message is in the '
        "instructional memory block above</span>"
    )
    return (
        f'<div class="rea-seg rea-query">{_head("current query", seg.tokens)}'
        f'<div class="rea-text">{escape(seg.text[:QUOTE_CHARS])}{rest}</div></div>'
    )


def _time(seg: Segment) -> str:
    """``[Monday 8 May 2023 13:56] `` as the model reads it before the user text, escaped; "" without a time."""
    return f'<span class="rea-time">[{escape(prompt_time(seg.time))}]</span> ' if seg.time else ""


def _why(seg: Segment) -> str:
    """' · kept by rule: ...' or ' · kept by score: ...': why the exchange is in the prompt, in full on hover."""
    if seg.reason is None or seg.resolution is None:
        return ""
    css = "rea-rule" if seg.reason.is_rule else "rea-why"
    return (
        f' · <span class="{css}" title="{escape(reason_text(seg.resolution, seg.reason), quote=True)}">'
        f"{escape(reason_label(seg.resolution, seg.reason))}</span>"
    )


def _exchange_block(seg: Segment) -> str:
    label = f"turn {seg.turn} · {seg.resolution.value}{_score(seg)}"
    user = f'<div class="rea-user"><b>User:</b> {_time(seg)}{escape(seg.user)}</div>'
    if seg.reply_form is ReplyForm.RAW:
        reply = f'<div class="rea-reply"><b>Assistant:</b> {escape(seg.reply)}</div>'
        css = "rea-raw"
    else:
        chip = (
            f"{seg.latent_vectors} latent vectors"
            if seg.reply_form is ReplyForm.LATENT
            else _CHIP.get(seg.reply_form, "compressed")
        )
        shown = "" if seg.reply_form is ReplyForm.LATENT else f" {escape(seg.reply)}"
        reply = (
            '<div class="rea-reply"><b>Assistant:</b> <span '
            f'class="rea-chip" title="{escape(seg.source_reply, quote=True)}">'
            f"{escape(chip)}</span>{shown}</div>"
        )
        css = "rea-compressed"
    return f'<div class="rea-seg {css}">{_head(label, seg.tokens, _why(seg))}{user}{reply}</div>'


def _recent_block(run: list[Segment]) -> str:
    """The working-memory window: the latest exchanges, raw whatever their score, as one block."""
    turns = f"turn {run[0].turn}" if len(run) == 1 else f"turns {run[0].turn}-{run[-1].turn}"
    inner = "".join(_exchange_block(s) for s in run)
    return (
        f'<div class="rea-seg rea-recent" title="{escape(RULE_TEXT[Reason.RECENT], quote=True)}">'
        f"{_head(f'recent · working memory · {turns}', sum(s.tokens for s in run))}{inner}</div>"
    )


def _memory_block(seg: Segment) -> str:
    """A SeCom segment or COMEDY's compressive memory: its label, the text sent, the original on hover."""
    title = f' title="{escape(seg.source_reply, quote=True)}"' if seg.source_reply else ""
    return (
        f'<div class="rea-seg rea-memory">{_head(seg.label or "memory", seg.tokens)}'
        f'<div class="rea-text"{title}>{escape(seg.text)}</div></div>'
    )


def _omitted_memory_block(run: list[Segment]) -> str:
    items = "".join(f"<li>{escape(s.label)}: {escape(s.text)}</li>" for s in run)
    noun = "memory unit" if len(run) == 1 else "memory units"
    return (
        f'<details class="rea-seg rea-omitted"><summary>{len(run)} '
        f"{noun} not retrieved · 0 tok</summary><ul>{items}</ul></details>"
    )


def _notes_block(notes) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{escape(n)}</li>" for n in notes)
    return f'<div class="rea-notes"><ul>{items}</ul></div>'


def _omitted_block(run: list[Segment]) -> str:
    turns = ", ".join(str(s.turn) for s in run)
    items = "".join(
        f"<li>turn {s.turn}{escape(_score(s))} · {escape(reason_label(s.resolution, s.reason))}: "
        f"{_time(s)}{escape(s.user)}</li>"
        for s in run
    )
    noun = "exchange" if len(run) == 1 else "exchanges"
    return (
        f'<details class="rea-seg rea-omitted"><summary>{len(run)} omitted {noun} · turns {turns} · 0 tok</summary>'
        f"<ul>{items}</ul></details>"
    )


TOKEN_SOURCES = {
    "tokenizer": "",
    "estimate": "block counts estimated (about 4 characters a token: no local tokenizer); the prompt total likewise",
    "server usage": "block counts estimated (about 4 characters a token: "
    "no local tokenizer); the prompt total is the server's usage figure",
}


def render_prompt_view(
    plan: PromptPlan | None,
    *,
    prompt_tokens: int | None = None,
    truncated_tokens: int = 0,
    title: str = "",
    token_source: str = "tokenizer",
) -> str:
    """HTML for ``plan``: system, instruction prefix, exchanges (omitted runs collapsed), query."""
    if plan is None:
        return (
            '<div class="rea-plan rea-empty">No turn yet: '
            "send a message to see the prompt the generator receives.</div>"
        )
    blocks: list[str] = []
    omitted: list[Segment] = []
    recent = [s for s in plan.segments if s.kind is SegmentKind.EXCHANGE and s.reason is Reason.RECENT]
    unused = [s for s in plan.segments if s.kind is SegmentKind.MEMORY and s.resolution is Resolution.OMIT]
    instructions = "".join(s.text for s in plan.segments if s.kind is SegmentKind.INSTRUCTIONS)
    for seg in plan.segments:
        if seg.kind is SegmentKind.MEMORY:  # units not retrieved: one collapsed list where the first was
            if seg.resolution is not Resolution.OMIT:
                blocks.append(_memory_block(seg))
            elif seg is unused[0]:
                blocks.append(_omitted_memory_block(unused))
            continue
        if seg.kind is SegmentKind.EXCHANGE and seg.resolution is Resolution.OMIT:
            omitted.append(seg)
            continue
        if omitted:
            blocks.append(_omitted_block(omitted))
            omitted = []
        if seg.kind is SegmentKind.SYSTEM:
            blocks.append(_text_block(seg, "rea-system", "system"))
        elif seg.kind is SegmentKind.INSTRUCTIONS:
            blocks.append(_text_block(seg, "rea-instructions", "instructional memory"))
        elif seg.kind is SegmentKind.EXCHANGE and seg.reason is Reason.RECENT:
            if seg is recent[0]:  # the window's exchanges are the latest ones, contiguous
                blocks.append(_recent_block(recent))
        elif seg.kind is SegmentKind.EXCHANGE:
            blocks.append(_exchange_block(seg))
        else:
            blocks.append(_query_block(seg, instructions))
    if omitted:
        blocks.append(_omitted_block(omitted))
    total = (
        f"{prompt_tokens} prompt tokens with chat markup"
        if prompt_tokens is not None
        else f"{plan.total_tokens} tokens"
    )
    if plan.budget is not None:
        why = (
            "the model's window less the reply's tokens: past it, HCR demotes the lowest-scored "
            "exchanges (raw to compressed, then omitted) rather than cut the system prompt and IM"
        )
        budget = f"· budget {plan.budget:,}"
        total += f' <span class="rea-budget" title="{escape(why, quote=True)}">{budget}</span>'
    trunc = (
        f' · <span class="rea-trunc">{truncated_tokens} oldest tokens cut to fit the context window</span>'
        if truncated_tokens
        else ""
    )
    head = (
        f'<div class="rea-plan-title">{escape(title)} · {total}{trunc}</div>'
        if title
        else f'<div class="rea-plan-title">{total}{trunc}</div>'
    )
    source = TOKEN_SOURCES.get(token_source, f"token counts: {token_source}")
    source_note = f'<div class="rea-notes rea-token-source">Token counts: {escape(source)}</div>' if source else ""
    return f'<div class="rea-plan">{head}{source_note}{_notes_block(plan.notes)}{"".join(blocks)}</div>'
