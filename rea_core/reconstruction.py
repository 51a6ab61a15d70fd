"""Prompt assembly for every strategy (REA paper, section 3.5): build and render a ``PromptPlan``.

A plan is: system message, Instructional Memory prefix (verbatim), memory blocks (SeCom's units,
COMEDY's compressive memory), the stored exchanges at their resolution (in turn order, or REA's
kept older exchanges in the order ``prompt_layout`` gives them for prefix reuse), then the current
query. Every strategy builds its plan with ``assemble_plan`` from the segment builders
here, and ``render_messages`` is the one rendering to chat messages (the app's Table-13 view reads
the same segments). Omitted exchanges stay in the plan with zero tokens so views can show what was
left out. Pure functions: the tokenizer comes in as a ``count_tokens`` callable. Segment token
counts cover each block's own text; the generator's chat-template markup is counted only in the
real prompt length it reports.

Time: with ``show_time``, a kept exchange that has a time is read as ``[Monday 8 May 2023 13:56] <user
text>`` (``user_as_read``; the segment's token count includes the prefix), so the model can place
"last Saturday" or "two weeks ago"; the current query carries no time.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .memory.episodic import Exchange
from .prompt_layout import Placement, anchored_order, order_note
from .templates import fill, load_template
from .text import extract_relevant, text_compress
from .timestamps import prompt_time
from .types import Decision, PromptPlan, ReplyForm, Resolution, Segment, SegmentKind

CountTokens = Callable[[str], int]

# How a latent reply sits in a rendered prompt: the codec splices its vectors in at the slots.
LATENT_OPEN, LATENT_CLOSE = "<latent>", "</latent>"
# placeholder in templated text; a message that contains it fails the slot count check
SLOT = "\u241eREA_LATENT_SLOT\u241e"


def latent_message(n_blocks: int = 1) -> str:
    """The assistant content standing for a latent reply (one slot per compressed chunk block)."""
    return LATENT_OPEN + SLOT * n_blocks + LATENT_CLOSE


LATENT_REPLY = latent_message()


def instruction_prefix(instructions: Sequence[str], template: str = "instruction_prefix") -> str:
    """The IM block, instructions verbatim and numbered in arrival order (``instruction_reminder``:
    the same list restated next to the query)."""
    items = "\n".join(f"{i}. {text}" for i, text in enumerate(instructions, 1))
    return fill(load_template(template), instructions=items)


def user_as_read(user: str, time: str | None) -> str:
    """An exchange's user text as the model reads it: ``[Monday 8 May 2023 13:56] `` before it when it has
    a time. The one source of both the rendered message and its segment's token count."""
    return f"[{prompt_time(time)}] {user}" if time else user


def exchange_segment(
    ex: Exchange,
    decision: Decision,
    count_tokens: CountTokens,
    *,
    query: str = "",
    text_compress_words: int = 24,
    text_compression: str = "first_words",
    use_latents: bool = False,
    show_time: bool = False,
) -> Segment:
    """One stored exchange at its resolution: raw, compressed (latent or text stand-in) or omitted.

    With ``show_time`` the segment carries the exchange's time (read before the user text when kept)."""
    time = ex.time if show_time else None
    common = dict(
        kind=SegmentKind.EXCHANGE,
        turn=ex.turn,
        resolution=decision.resolution,
        source_reply=ex.reply,
        score=decision.score,
        reason=decision.reason,
        time=time,
    )
    if decision.resolution is Resolution.OMIT:
        return Segment(tokens=0, user=ex.user, **common)
    user_tokens = count_tokens(user_as_read(ex.user, time))
    if decision.resolution is Resolution.RAW:
        form, reply = ReplyForm.RAW, ex.reply
    elif use_latents and ex.latents is not None:  # user text + latent reply (section 3.5)
        n = len(ex.latents)
        tokens = user_tokens + count_tokens(LATENT_OPEN + LATENT_CLOSE) + n
        return Segment(tokens=tokens, user=ex.user, reply_form=ReplyForm.LATENT, latent_vectors=n, **common)
    else:  # no codec, or text chosen: an extractive text stand-in, never called latent
        if text_compression == "extractive":
            reply = extract_relevant(ex.reply, query, text_compress_words)
        else:
            reply = text_compress(ex.reply, text_compress_words)
        form = ReplyForm.TEXT_COMPRESSED
    return Segment(tokens=user_tokens + count_tokens(reply), user=ex.user, reply=reply, reply_form=form, **common)


def exchange_segments(
    exchanges: Sequence[Exchange], decisions: Sequence[Decision], count_tokens: CountTokens, **forms
) -> list[Segment]:
    """``exchange_segment`` for each exchange; ``decisions`` pairs one-to-one with ``exchanges``."""
    if len(decisions) != len(exchanges):
        raise ValueError(f"{len(exchanges)} exchanges but {len(decisions)} decisions")
    return [exchange_segment(ex, d, count_tokens, **forms) for ex, d in zip(exchanges, decisions)]


def memory_segment(
    text: str,
    count_tokens: CountTokens,
    *,
    resolution: Resolution = Resolution.COMPRESSED,
    label: str = "",
    turns: Sequence[int] = (),
    source_reply: str = "",
    score: float | None = None,
) -> Segment:
    """A memory block standing for several turns (a SeCom unit, COMEDY's compressive memory); 0 tokens when omitted."""
    tokens = 0 if resolution is Resolution.OMIT else count_tokens(text)
    return Segment(
        kind=SegmentKind.MEMORY,
        tokens=tokens,
        text=text,
        resolution=resolution,
        label=label,
        turns=tuple(turns),
        source_reply=source_reply,
        score=score,
    )


def assemble_plan(
    *,
    query: str,
    count_tokens: CountTokens,
    system_prompt: str = "",
    instructions: Sequence[str] = (),
    memory: Sequence[Segment] = (),
    exchanges: Sequence[Segment] = (),
    im_placement: str = "system",
    notes: Sequence[str] = (),
) -> PromptPlan:
    """The one plan layout: system, IM prefix, memory blocks, exchanges, (IM restated,) query.

    With ``im_placement="query"`` the IM block is also restated just before the query.
    """
    segments: list[Segment] = []
    if system_prompt:
        segments.append(Segment(kind=SegmentKind.SYSTEM, tokens=count_tokens(system_prompt), text=system_prompt))
    if instructions:
        prefix = instruction_prefix(instructions)
        segments.append(Segment(kind=SegmentKind.INSTRUCTIONS, tokens=count_tokens(prefix), text=prefix))
    segments += [*memory, *exchanges]
    if instructions and im_placement == "query":
        restated = instruction_prefix(instructions, "instruction_reminder")
        segments.append(Segment(kind=SegmentKind.INSTRUCTIONS, tokens=count_tokens(restated), text=restated))
    segments.append(Segment(kind=SegmentKind.QUERY, tokens=count_tokens(query), text=query))
    return PromptPlan(segments=tuple(segments), notes=tuple(notes))


def build_prompt_plan(
    *,
    query: str,
    exchanges: Sequence[Exchange],
    decisions: Sequence[Decision],
    instructions: Sequence[str],
    count_tokens: CountTokens,
    system_prompt: str = "",
    text_compress_words: int = 24,
    text_compression: str = "first_words",
    im_placement: str = "system",
    use_latents: bool = False,
    show_time: bool = False,
    anchor: Sequence[Placement] | None = None,
    window_first: bool = False,
) -> PromptPlan:
    """REA's hybrid plan (vanilla's with every exchange raw and no IM). ``decisions`` pairs one-to-one
    with ``exchanges``.

    With ``use_latents``, a compressed exchange whose reply has latents takes them (ReplyForm.LATENT);
    otherwise, and for exchanges not compressed yet, the reply is text-compressed: its sentences
    nearest the query (``extractive``) or its first words, within ``text_compress_words``.
    With ``show_time`` each kept exchange that has a time is read with it (``user_as_read``).
    With an ``anchor`` (the previous prompt's ``prompt_layout.stable_placements``) the kept exchanges
    before the window are laid out for prefix reuse (``prompt_layout.anchored_order``, the window
    first with ``window_first``); None: turn order.
    """
    segments = exchange_segments(
        exchanges,
        decisions,
        count_tokens,
        query=query,
        text_compress_words=text_compress_words,
        text_compression=text_compression,
        use_latents=use_latents,
        show_time=show_time,
    )
    notes = ()
    if anchor is not None:
        segments = anchored_order(segments, anchor, window_first=window_first)
        notes = tuple(n for n in (order_note(segments, anchor, window_first=window_first),) if n)
    return assemble_plan(
        query=query,
        count_tokens=count_tokens,
        system_prompt=system_prompt,
        instructions=instructions,
        exchanges=segments,
        im_placement=im_placement,
        notes=notes,
    )


# Tokens a chat template adds around each message (ChatML: "<|im_start|>role\n" ... "<|im_end|>\n",
# 5 on SmolLM2, measured) and once per prompt (a generation prompt, a template's date line): an upper
# bound for the common templates, so a plan's estimated length does not fall short of the real one.
TEMPLATE_TOKENS_PER_MESSAGE = 6
TEMPLATE_TOKENS_PER_PROMPT = 32


def plan_length(plan: PromptPlan) -> int:
    """The prompt tokens ``plan`` takes once rendered, estimated from its segments without a
    tokenizer call: what a prompt budget is checked against."""
    return plan.total_tokens + TEMPLATE_TOKENS_PER_MESSAGE * len(render_messages(plan)) + TEMPLATE_TOKENS_PER_PROMPT


def render_messages(plan: PromptPlan) -> list[dict]:
    """Chat messages for text generation: the leading system, IM and memory blocks as the system
    message, then the turns; an IM block placed after the exchanges is restated in the query's message."""
    return [message for message, _ in rendered_sources(plan)]


def rendered_sources(plan: PromptPlan) -> list[tuple[dict, tuple[Segment, ...]]]:
    """``render_messages(plan)``, each message with the plan segments it was made of (what a view or
    the prefix-reuse note names when two prompts part at that message)."""
    lead = 0
    while lead < len(plan.segments) and plan.segments[lead].kind in (
        SegmentKind.SYSTEM,
        SegmentKind.INSTRUCTIONS,
        SegmentKind.MEMORY,
    ):
        lead += 1
    shown = tuple(
        s for s in plan.segments[:lead] if s.kind is not SegmentKind.MEMORY or s.resolution is not Resolution.OMIT
    )
    system = "\n\n".join(s.text for s in shown)
    out = [({"role": "system", "content": system}, shown)] if system else []
    reminder: tuple[str, tuple[Segment, ...]] = ("", ())
    for seg in plan.segments[lead:]:
        if seg.kind is SegmentKind.EXCHANGE and seg.resolution is not Resolution.OMIT:
            reply = LATENT_REPLY if seg.reply_form is ReplyForm.LATENT else seg.reply
            out += [
                ({"role": "user", "content": user_as_read(seg.user, seg.time)}, (seg,)),
                ({"role": "assistant", "content": reply}, (seg,)),
            ]
        elif seg.kind is SegmentKind.INSTRUCTIONS:
            reminder = (seg.text + "\n\n", (seg,))
        elif seg.kind is SegmentKind.QUERY:
            out.append(({"role": "user", "content": reminder[0] + seg.text}, (*reminder[1], seg)))
    return out


def latent_turns(plan: PromptPlan) -> list[int]:
    """Turns whose latent vectors fill the slots of ``render_messages(plan)``, in order."""
    return [
        s.turn
        for s in plan.segments
        if s.kind is SegmentKind.EXCHANGE and s.reply_form is ReplyForm.LATENT and s.resolution is not Resolution.OMIT
    ]
