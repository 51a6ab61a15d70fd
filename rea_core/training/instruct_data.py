"""Training data for the instruction-following adapter: chat prompts in which standing instructions are in
force, each with a reply that a program has checked complies with them.

Why this data: the packaged 135M model reads a standing instruction and then ignores it, so neither REA nor
vanilla shows a difference. The replies are ordinary conversation replies (ShareGPT, Chit Chat) rewritten by
the adherence suite's own transforms (``evals.suites.comply``) and kept only if every checker in force
passes (``evals.checks.Check``): no bigger model writes them.

Where the instruction sits, in proportion, so that training favours neither arm:

* ``rea``: in the Instructional Memory block of the system message (``reconstruction.instruction_prefix``),
  with a few recent exchanges, some of their replies shortened as REA's compressed band shortens them;
* ``vanilla``: as a user turn ("From now on ...", "Understood.") 1-12 exchanges back in the history.

Some prompts carry no instruction in force (none given, or one lifted: "You can stop ..."), with the
original reply as the target, so that the model does not apply rules nobody asked for.

Held out: whole instruction families (``HELD_OUT_KINDS``) never appear, so the adherence suite restricted to
them (``rea data make-adherence --kinds``) measures what the adapter learned beyond its families. The
conversations come from parts of the packaged sets the adherence suites do not draw from (``CORPUS_OFFSET``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from ..corpora import chitchat_conversations, is_clean_turn, sharegpt_sessions
from ..evals.checks import Check
from ..evals.suites import CONFLICTS, KINDS, WORDING, InstructionKind, compatible_pair, comply
from ..reconstruction import instruction_prefix
from ..runtime import RuntimeConfig
from ..text import text_compress

HELD_OUT_KINDS = frozenset({"keyword", "postscript", "quotation"})
# The adherence suites draw their distractor turns from the first 400 sessions of each set.
CORPUS_OFFSET = 1000
LAYOUTS = ("rea", "vanilla")

# Wordings besides the suite's own, so the model reads what is asked rather than two fixed sentences.
EXTRA_PHRASINGS: dict[str, tuple[str, ...]] = {
    "lowercase": ("Please answer in lowercase from now on.", "Write all your replies in lowercase only."),
    "uppercase": ("Use only capital letters in every answer from now on.", "Always reply in uppercase, please."),
    "no_comma": ("No commas in any of your answers from now on, please.", "Always avoid commas when you reply."),
    "end_phrase": (
        "Always close your replies with 'Is there anything else I can help with?'",
        "End every answer with the sentence: Is there anything else I can help with?",
    ),
    "word_limit": ("Keep all your replies shorter than 60 words.", "Please always answer in under 60 words."),
    "forbidden_word": ("Never say 'very' in any reply.", "Stop using the word 'very' in your replies."),
    "first_letter": (
        "Always make the first letter of your reply an r.",
        "Every answer you give should begin with the letter R.",
    ),
    "title": (
        "Always put a title like <<title>> at the top of your answers.",
        "Give each of your replies a title in double angle brackets, such as <<Answer>>.",
    ),
    "json": ("Always answer as a JSON object from now on.", "Reply in valid JSON format every time."),
    "french": ("Please always reply in French.", "Answer me in French from now on."),
    "bullets": (
        "Answer in exactly three bullet points, each starting with '* '.",
        "From now on, always reply with three markdown bullets like '* this'.",
    ),
}
PLAIN_SHARE = 0.15  # prompts with no instruction in force
REVOKED_SHARE = 0.5  # of those, in vanilla's layout, an instruction given and then lifted
TARGET_WORDS = 60  # a target reply is cut to its sentences within this many words before it is rewritten
_BOUNDARY = re.compile(r"[.!?](?=\s|$)|\n")  # a sentence's or a line's end
HISTORY_CHARS = 400  # a history reply is cut to about this many characters, to keep prompts short on a CPU


@dataclass(frozen=True)
class InstructExample:
    """One training prompt and the reply to learn, with what is in force and where the instruction sits."""

    messages: tuple[dict, ...]
    target: str
    kinds: tuple[str, ...]  # instruction kinds in force at the reply (empty: none)
    layout: str  # "rea" or "vanilla"


def training_kinds(held_out: frozenset[str] = HELD_OUT_KINDS) -> list[InstructionKind]:
    return [k for k in KINDS if k.name not in held_out]


def phrasings(kind: InstructionKind) -> tuple[str, ...]:
    return kind.phrasings + EXTRA_PHRASINGS.get(kind.name, ())


def short_reply(reply: str, max_words: int = TARGET_WORDS) -> str:
    """``reply`` cut after its last sentence or line within ``max_words`` words, its lines kept (its first words
    when the first sentence is longer)."""
    reply = reply.strip()
    if len(reply.split()) <= max_words:
        return reply
    cut = 0
    for end in _BOUNDARY.finditer(reply):
        if len(reply[: end.end()].split()) > max_words:
            break
        cut = end.end()
    return reply[:cut].rstrip() if cut else " ".join(reply.split()[:max_words]) + "."


def turn_pool(offset: int = CORPUS_OFFSET, n_sessions: int = 2500) -> list[tuple[str, str]]:
    """Clean (user, reply) turns from the packaged sets, past the part the adherence suites use."""
    turns: list[tuple[str, str]] = []
    for k, pairs in enumerate(sharegpt_sessions(offset + n_sessions)):
        if k >= offset:
            turns += [(u, r) for u, r in pairs[:3] if is_clean_turn(u, r, max_chars=1500) and len(u) <= 600]
    for k, messages in enumerate(chitchat_conversations(offset + n_sessions)):
        if k >= offset:
            pairs = zip(messages[::2], messages[1::2])
            turns += [(u, r) for u, r in list(pairs)[:4] if is_clean_turn(u, r, min_words=2)]
    return turns


def _in_force(
    rng: random.Random, kinds: list[InstructionKind], focus: list[InstructionKind] = (), focus_share: float = 0.0
) -> list[InstructionKind]:
    """One kind, or a wording and a framing kind that a reply can satisfy together (as the suite pairs them).
    With ``focus``, a share of the draws has one of those kinds in force: alone, or paired as the suite pairs it."""
    if focus and rng.random() < focus_share:
        kind = rng.choice(focus)
        if rng.random() < 0.5:
            return [kind]
        other_role = [k for k in kinds if (k.name in WORDING) != (kind.name in WORDING)]
        partners = [k for k in other_role if frozenset((k.name, kind.name)) not in CONFLICTS]
        return [kind, rng.choice(partners)] if partners else [kind]
    return [rng.choice(kinds)] if rng.random() < 0.4 else compatible_pair(rng, tuple(kinds))


def complies(reply: str, kinds: list[InstructionKind]) -> bool:
    return all(Check(c["instruction_id"], dict(c["kwargs"])).passed(reply) for k in kinds for c in k.checks)


def _exchange(user: str, reply: str) -> list[dict]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]


def make_example(
    rng: random.Random,
    draw: Callable[[], tuple[str, str]],
    kinds: list[InstructionKind],
    *,
    system_prompt: str = RuntimeConfig.system_prompt,
    focus: list[InstructionKind] = (),
    focus_share: float = 0.0,
) -> InstructExample | None:
    """One example, or None when the rewritten reply fails a checker (it is then not learned)."""
    layout = rng.choice(LAYOUTS)
    plain = rng.random() < PLAIN_SHARE
    active = [] if plain else _in_force(rng, kinds, focus, focus_share)
    texts = [rng.choice(phrasings(k)) for k in active]
    query, reply = draw()
    reply = short_reply(reply)
    target = comply(reply, [k.name for k in active]) if active else reply
    if active and not complies(target, active):
        return None

    def history(n: int, compressed_share: float = 0.0) -> list[dict]:
        out = []
        for _ in range(n):
            user, old = draw()
            old = old[:HISTORY_CHARS]
            out += _exchange(user, text_compress(old, 24) if rng.random() < compressed_share else old)
        return out

    if layout == "rea":
        system = system_prompt + ("\n\n" + instruction_prefix(texts) if texts else "")
        middle = history(rng.randint(0, 3), compressed_share=0.4)
    else:
        system = system_prompt
        middle = history(rng.randint(0, 2))
        for text in texts:
            middle += _exchange(text, "Understood.") + history(rng.randint(1, 6))
        if plain and rng.random() < REVOKED_SHARE:
            lifted = rng.choice(kinds)
            middle += _exchange(rng.choice(phrasings(lifted)), "Understood.") + history(rng.randint(0, 3))
            middle += _exchange(lifted.revoke, "Okay.") + history(rng.randint(0, 2))
    messages = ({"role": "system", "content": system}, *middle, {"role": "user", "content": query})
    return InstructExample(messages, target, tuple(k.name for k in active), layout)


def make_examples(
    n: int,
    seed: int = 0,
    *,
    held_out: frozenset[str] = HELD_OUT_KINDS,
    pool: list[tuple[str, str]] | None = None,
    focus: tuple[str, ...] = (),
    focus_share: float = 0.5,
) -> Iterator[InstructExample]:
    """``n`` examples from ``seed`` (the same seed and pool give the same examples). ``focus``: kinds that a
    ``focus_share`` of the instructed examples carry (a later stage on the families an earlier one missed)."""
    rng = random.Random(seed)
    pool = pool if pool is not None else turn_pool()
    kinds = training_kinds(held_out)
    unknown = set(focus) - {k.name for k in kinds}
    if unknown:
        raise ValueError(f"focus kinds not trained on (unknown or held out): {', '.join(sorted(unknown))}")
    focused = [k for k in kinds if k.name in focus]
    made = 0
    while made < n:
        example = make_example(rng, lambda: rng.choice(pool), kinds, focus=focused, focus_share=focus_share)
        if example is not None:
            made += 1
            yield example
