"""The order of a prompt's kept exchanges, for KV prefix reuse. Pure functions of plans.

A server (or the in-process prefix cache) reuses the longest common prefix of two consecutive
prompts, so what survives from one turn to the next should come first and in the same order. REA's
prompt is: system, Instructional Memory, the kept exchanges (the working-memory window,
``Reason.RECENT``, among them), the query. In turn order (the paper's), an older exchange that a new query
brings back lands before the ones kept all along and cuts the shared prefix there.

The ``anchored`` layout orders the kept exchanges by how long they have been in the prompt: those
placed exactly as in the previous turn's prompt (same turn, resolution and reply form) keep that
prompt's order, first. The rest are read anew anyway, so their order costs no reuse: they follow by
HCR score, the best last, nearest the query -- a small model reads evidence next to the question far
better than evidence far from it (BENCHMARKS, "Answers"). The working-memory window moves among them
as one block in turn order, ranked by its best-scored exchange: last for a follow-up (whose
referent prior lifts the latest exchanges), before the retrieved evidence for a question about the
distant past. Only the order changes; what is kept, and in which form, is HCR's decision alone.

The window slides by one exchange per turn: its oldest exchange turns compressed (or leaves) in
place, so everything after it is read again whatever the order. ``first_change`` names where two
consecutive prompts part, which is what the stats line says about reuse.

The ``window-first`` layout (the default) puts the window right after the Instructional Memory, then its band
(the compressed exchanges before it), then the rest by score, the best nearest the query. What then
opens the next prompt (system, IM, the raw window, the band) is known as soon as a reply ends,
before the next message is typed, so it can be read while the user reads and types
(``Strategy.warm``): the next message's prefill is only the exchanges retrieved for it and the
message itself. The band comes after the window, not before it in turn order: when HCR keeps the
band's exchange by its score instead, it moves among the rest and the window stays shared. (No
anchoring after the opening: a compressed reply's text may depend on the query.) It answers LoCoMo
questions and keeps instructions as ``anchored`` does, within noise, and halves REA's first token
with a KV cache (BENCHMARKS, "Window-first becomes the default").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .types import PromptPlan, Reason, ReplyForm, Resolution, Segment, SegmentKind

LAYOUTS = ("anchored", "window-first", "chronological")


@dataclass(frozen=True)
class Placement:
    """How one exchange sits in a prompt: which turn, at which resolution, in which reply form."""

    turn: int
    resolution: Resolution
    reply_form: ReplyForm | None

    @classmethod
    def of(cls, segment: Segment) -> "Placement":
        return cls(segment.turn, segment.resolution, segment.reply_form)

    def to_list(self) -> list:
        return [self.turn, self.resolution.value, self.reply_form.value if self.reply_form else None]

    @classmethod
    def from_list(cls, item) -> "Placement":
        """From ``to_list``. Raises ValueError (or TypeError) when ``item`` is not one."""
        turn, resolution, form = item
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
            raise ValueError(f"a turn must be a whole number >= 0, got {turn!r}")
        return cls(turn, Resolution(resolution), None if form is None else ReplyForm(form))


def is_kept_exchange(segment: Segment) -> bool:
    return segment.kind is SegmentKind.EXCHANGE and segment.resolution is not Resolution.OMIT


def in_window(segment: Segment) -> bool:
    """One of the working-memory window's latest exchanges: laid out as one block, in turn order."""
    return segment.reason is Reason.RECENT


def in_band(segment: Segment) -> bool:
    """The band before the window, kept compressed because it is there (``Reason.RECENT_BAND``)."""
    return segment.reason is Reason.RECENT_BAND


def stable_placements(plan: PromptPlan) -> tuple[Placement, ...]:
    """The kept exchanges outside the window, in the order ``plan`` renders them: the next turn's anchor."""
    return tuple(Placement.of(s) for s in plan.segments if is_kept_exchange(s) and not in_window(s))


def anchored_order(
    segments: Sequence[Segment], anchor: Sequence[Placement], *, window_first: bool = False
) -> list[Segment]:
    """``segments`` (one per exchange, in turn order) reordered: each kept exchange takes the place of
    one, those placed as in ``anchor`` first and in its order, then the rest by HCR score, the best
    last, nearest the query (turn order on ties). The window moves as one block, in turn order, ranked
    by its best-scored exchange: last for a follow-up, before the retrieved evidence for a question
    about the distant past. With ``window_first`` the window comes first, then its band, and the rest
    follow by score alone (``anchor`` unused). Omitted exchanges keep their positions."""
    kept = [i for i, s in enumerate(segments) if is_kept_exchange(s)]
    if window_first:  # the window, then its band: both known before the message (``REAStrategy.next_opening``)
        opening = [i for i in kept if in_window(segments[i])] + [i for i in kept if in_band(segments[i])]
        rest = sorted((i for i in kept if i not in opening), key=lambda i: (_score(segments[i]), i))
        return _placed(segments, kept, opening + rest)
    rank = {p: r for r, p in enumerate(anchor)}
    anchored = sorted(
        (i for i in kept if not in_window(segments[i]) and Placement.of(segments[i]) in rank),
        key=lambda i: rank[Placement.of(segments[i])],
    )
    window = [i for i in kept if in_window(segments[i])]
    blocks = [[i] for i in kept if i not in anchored and i not in window]
    if window:
        blocks.append(window)
    blocks.sort(key=lambda block: (max(_score(segments[i]) for i in block), block[0]))
    return _placed(segments, kept, anchored + [i for block in blocks for i in block])


def _placed(segments: Sequence[Segment], kept: list[int], order: list[int]) -> list[Segment]:
    """``segments`` with the kept ones in the slots of ``kept`` taken in ``order``; the rest in place."""
    out = list(segments)
    for slot, source in zip(kept, order):
        out[slot] = segments[source]
    return out


def order_note(segments: Sequence[Segment], anchor: Sequence[Placement], *, window_first: bool = False) -> str:
    """Why the kept exchanges of an ``anchored_order`` stand where they do, in words, for the views
    ("" with fewer than two kept exchanges: there is no order to explain)."""
    kept = [s for s in segments if is_kept_exchange(s)]
    if len(kept) < 2:
        return ""
    if window_first:
        window = sum(in_window(s) or in_band(s) for s in kept)
        plural = "s" if window != 1 else ""
        what = "the window and its band" if any(in_band(s) for s in kept) else "the window"
        lead = f"{what} first ({window} exchange{plural}: read before the message came), then " if window else ""
        return f"order: {lead}{len(kept) - window} by score, the best nearest the query"
    held = set(anchor)
    first = sum(not in_window(s) and Placement.of(s) in held for s in kept)
    rest = len(kept) - first
    lead = (
        f"{first} exchange{'s' if first != 1 else ''} as in the previous prompt first (a cache reuses them), then "
        if first
        else ""
    )
    window = " (the window as one block, by its best score)" if any(in_window(s) for s in kept) else ""
    return f"order: {lead}{rest} by score{window}, the best nearest the query"


def _score(segment: Segment) -> float:
    return -np.inf if segment.score is None else segment.score


def message_label(segments: Sequence[Segment]) -> str:
    """What one rendered message stands for, in words, from the plan segments it was made of
    (``reconstruction.rendered_sources``): "the system prompt and Instructional Memory", "exchange 7
    (raw)", "the query"."""
    kinds = [s.kind for s in segments]
    if SegmentKind.QUERY in kinds:
        return "the query"
    if SegmentKind.EXCHANGE in kinds:
        seg = segments[0]
        form = "latent" if seg.reply_form is ReplyForm.LATENT else seg.resolution.value
        return f"exchange {seg.turn} ({form})"
    names = {SegmentKind.SYSTEM: "system prompt", SegmentKind.INSTRUCTIONS: "Instructional Memory"}
    return "the " + " and ".join(dict.fromkeys(names.get(k, "memory") for k in kinds))


@dataclass(frozen=True)
class PromptPrint:
    """The prompt a model last read and its reply, as one (hash, label) per message: enough to say
    where the next prompt parts from it, without keeping any text."""

    messages: tuple[tuple[int, str], ...]
    read_ahead: bool = False  # the next prompt's opening, read before its message came (``Strategy.warm``)

    @classmethod
    def of(cls, sources: Sequence[tuple[dict, Sequence[Segment]]], *, read_ahead: bool = False) -> "PromptPrint":
        """From the prompt's messages with their blocks (``reconstruction.rendered_sources``)."""
        return cls(tuple((_digest(m), message_label(blocks)) for m, blocks in sources), read_ahead)

    def followed_by(self, reply: str) -> "PromptPrint":
        """This prompt and the reply the model gave to it: what its KV cache then holds."""
        return PromptPrint((*self.messages, (_digest({"role": "assistant", "content": reply}), "the reply")))


def _digest(message: dict) -> int:
    return hash((message["role"], message["content"]))


def reuse_note(previous: PromptPrint | None, prompt: PromptPrint) -> str:
    """Where ``prompt`` parts from the previous prompt and reply (``previous``), in words: what a KV
    prefix cache can reuse is what comes before; everything after is read anew. "" before a first
    generated turn."""
    if previous is None:
        return ""
    current, old = prompt.messages, previous.messages
    i = 0
    while i < min(len(old), len(current)) and old[i][0] == current[i][0]:
        i += 1
    anew = _summarize(label for _, label in current[i:])
    if i == len(old):
        if previous.read_ahead:
            return f"the opening read ahead after the last reply is shared whole; read anew: {anew}"
        return f"the previous prompt and reply are shared whole; read anew: {anew}"
    why = _why(old[i][1], current[i][1] if i < len(current) else "", old, current)
    return f"first change: {why}; read anew: {anew}"


def _turn(label: str) -> int | None:
    return int(label.split()[1]) if label.startswith("exchange ") else None


def _why(old: str, new: str, previous: Sequence[tuple[int, str]], current: Sequence[tuple[int, str]]) -> str:
    if _turn(old) is None and old not in ("the query", "the reply"):  # the system message's blocks
        return f"{old[4:]} changed"
    now = {label for _, label in current}
    if _turn(old) is not None:
        turn = _turn(old)
        same_turn = [label for label in now if _turn(label) == turn]
        if not same_turn:
            return f"{old} left the prompt"
        if old not in same_turn:
            return f"{old} is now {same_turn[0].split('(')[1].rstrip(')')}"
    latest = max((t for t in map(_turn, now) if t is not None), default=None)
    if old == "the query" and _turn(new) is not None and _turn(new) == latest:
        # the message just answered, now history: read again when history writes it otherwise (its time)
        return f"the last message is read again as {new} (history writes it otherwise, e.g. with its time)"
    if _turn(new) is not None and new not in {label for _, label in previous}:
        return f"{new} came in (retrieved for this message)"
    if old in ("the query", "the reply"):
        return f"{new or 'nothing'} stands where the last message was (the window moved)"
    return f"{new or 'the prompt'} is in another place"


def _summarize(labels) -> str:
    """'3 exchanges and the query' from message labels (two per exchange)."""
    labels = list(dict.fromkeys(labels))
    exchanges = sum(_turn(label) is not None for label in labels)
    parts = [label for label in labels if _turn(label) is None]
    if exchanges:
        parts.insert(0, f"{exchanges} exchange{'s' if exchanges != 1 else ''}")
    return " and ".join(parts) if parts else "nothing"
