"""Hybrid context reconstruction (seed 000, section 3.5): build and render a ``PromptPlan``.

A plan is: system message, Instructional Memory prefix (verbatim), the stored exchanges in turn
order at their HCR resolution, then the current query. Omitted exchanges stay in the plan with
zero tokens so views can show what was left out. Pure functions: the tokenizer comes in as a
``count_tokens`` callable. Segment token counts cover each block's own text; the generator's
chat-template markup is counted only in the real prompt length it reports.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Callable, Sequence

from ..memory.episodic import Exchange
from ..text import text_compress
from ..types import Decision, PromptPlan, ReplyForm, Resolution, Segment, SegmentKind

CountTokens = Callable[[str], int]


@lru_cache(maxsize=1)
def _prefix_template() -> str:
    return resources.files("rea_core.prompts").joinpath("instruction_prefix.md").read_text(encoding="utf-8").strip()


def instruction_prefix(instructions: Sequence[str]) -> str:
    """The IM block, instructions verbatim and numbered in arrival order."""
    items = "\n".join(f"{i}. {text}" for i, text in enumerate(instructions, 1))
    return _prefix_template().replace("{instructions}", items)


def _exchange_segment(ex: Exchange, decision: Decision, count_tokens: CountTokens, text_compress_words: int) -> Segment:
    common = dict(kind=SegmentKind.EXCHANGE, turn=ex.turn, resolution=decision.resolution, source_reply=ex.reply, score=decision.score)
    if decision.resolution is Resolution.OMIT:
        return Segment(tokens=0, user=ex.user, **common)
    if decision.resolution is Resolution.RAW:
        form, reply = ReplyForm.RAW, ex.reply
    else:  # compressed: latent vectors are rendered by the latent issue; text stand-in until then
        form, reply = ReplyForm.TEXT_COMPRESSED, text_compress(ex.reply, text_compress_words)
    return Segment(tokens=count_tokens(ex.user) + count_tokens(reply), user=ex.user, reply=reply, reply_form=form, **common)


def build_prompt_plan(
    *,
    query: str,
    exchanges: Sequence[Exchange],
    decisions: Sequence[Decision],
    instructions: Sequence[str],
    count_tokens: CountTokens,
    system_prompt: str = "",
    text_compress_words: int = 24,
) -> PromptPlan:
    """Assemble the hybrid prompt plan. ``decisions`` pairs one-to-one with ``exchanges``."""
    if len(decisions) != len(exchanges):
        raise ValueError(f"{len(exchanges)} exchanges but {len(decisions)} decisions")
    segments: list[Segment] = []
    if system_prompt:
        segments.append(Segment(kind=SegmentKind.SYSTEM, tokens=count_tokens(system_prompt), text=system_prompt))
    if instructions:
        prefix = instruction_prefix(instructions)
        segments.append(Segment(kind=SegmentKind.INSTRUCTIONS, tokens=count_tokens(prefix), text=prefix))
    segments += [_exchange_segment(ex, d, count_tokens, text_compress_words) for ex, d in zip(exchanges, decisions)]
    segments.append(Segment(kind=SegmentKind.QUERY, tokens=count_tokens(query), text=query))
    return PromptPlan(segments=tuple(segments))


def render_messages(plan: PromptPlan) -> list[dict]:
    """Chat messages for text generation: system + IM prefix (+ memory units) as the system message, then turns."""
    system = "\n\n".join(
        s.text
        for s in plan.segments
        if s.kind in (SegmentKind.SYSTEM, SegmentKind.INSTRUCTIONS)
        or (s.kind is SegmentKind.MEMORY and s.resolution is not Resolution.OMIT)  # SeCom / COMEDY memory
    )
    messages = [{"role": "system", "content": system}] if system else []
    for seg in plan.segments:
        if seg.kind is SegmentKind.EXCHANGE and seg.resolution is not Resolution.OMIT:
            messages += [{"role": "user", "content": seg.user}, {"role": "assistant", "content": seg.reply}]
        elif seg.kind is SegmentKind.QUERY:
            messages.append({"role": "user", "content": seg.text})
    return messages
