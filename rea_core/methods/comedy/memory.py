"""COMEDY's compressive memory (COMEDY paper, sections 2-3, Appendix E): Task 1 and Task 2.

* **Task 1, session-level memory extraction**: after each session the model writes objective
  memories of it, ``[xxx|xxx|xxx]`` (``templates/comedy_task1.md``, the instruction-tuning prompt).
* **Task 2, memory compression**: all session memories so far are condensed into one compressive
  memory in three parts, separated by ``###``: the user description, the user-bot relationship
  and the past events (``templates/comedy_task2.md``, after the annotation prompt).
* Task 3 (the memory-grounded reply) is in ``strategy.py``.

Fallback rules, used when the model's answer does not parse (a small backbone often echoes the
prompt or never writes the ``###`` parts); the memory then records ``method: "rule"`` and a note,
which the prompt view shows:

* Task 1: one memory per turn, ``User said: <first sentence of the user message>``, plus
  ``Assistant said: <first sentence of the reply>``, each clipped to 25 words.
* Task 2: *user description* = the session memories whose subject is the user (they start with
  "User" or "The user", or speak in the first person); *relationship* = how many sittings and
  turns the two have shared; *events* = every session's memories in order, newest last, clipped to
  the last 150 words. Each part is non-empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ...errors import REAError
from ...templates import fill, load_template
from ...text import split_sentences

USER_NAME, BOT_NAME = "User", "Assistant"
PARTS = ("user", "relationship", "events")
_LABELS = {"user": "User Description", "relationship": "Relationship Description", "events": "Event Description"}
_NO_INFO = re.compile(r"no valid information|sorry, the content", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i am|my|me|mine)\b", re.IGNORECASE)


class MemoryParseError(REAError):
    """A Task 1 or Task 2 answer that does not parse; the message says why."""


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" ..." if len(parts) > words else "")


def format_dialogue(turns: Sequence[tuple[str, str]], max_words: int = 80) -> str:
    return "\n".join(f"{USER_NAME}: {_clip(u, max_words)}\n{BOT_NAME}: {_clip(r, max_words)}" for u, r in turns)


# -- Task 1 ------------------------------------------------------------------------------------------


def _echoes(item: str, prompt: str) -> bool:
    """True when most of the item's longer words come from the prompt's instructions (an echo)."""
    words = {w for w in re.findall(r"[a-z']+", item.lower()) if len(w) > 3}
    source = set(re.findall(r"[a-z']+", prompt.lower()))
    return bool(words) and len(words & source) / len(words) > 0.6


def parse_sitting_memory(answer: str, prompt: str = "") -> list[str]:
    """Memories from a Task 1 answer (``[a|b|c]``, ``Memory: a|b``, or one per line). Items that
    end in a colon or mostly repeat the instructions of ``prompt`` (an echo) are dropped.

    Raises:
        MemoryParseError: no memory of at least three words, or "No valid information".
    """
    text = answer.strip()
    if _NO_INFO.search(text):
        raise MemoryParseError("the model found no valid information")
    text = text.split("###")[0]
    text = re.sub(r"^\s*(memory|memories|output)\s*:\s*", "", text, flags=re.IGNORECASE).strip().strip("[]")
    pieces = re.split(r"\||\n", text)
    items, seen = [], set()
    for piece in pieces:
        item = piece.strip().strip("[]-•* ").strip()
        if (
            len(item.split()) >= 3
            and item.casefold() not in seen
            and not item.endswith(":")
            and not (prompt and _echoes(item, prompt))
        ):
            seen.add(item.casefold())
            items.append(item)
    if not items:
        raise MemoryParseError(f"no memory of three words or more in {answer[:80]!r}")
    return items


def rule_sitting_memory(turns: Sequence[tuple[str, str]]) -> list[str]:
    """The Task 1 fallback rule: the first sentence of each message, attributed."""
    items = []
    for user, reply in turns:
        for who, text in ((USER_NAME, user), (BOT_NAME, reply)):
            sentences = split_sentences(text)
            if sentences:
                items.append(f"{who} said: {_clip(sentences[0], 25)}")
    return items


# -- Task 2 ------------------------------------------------------------------------------------------


def parse_compressive(answer: str) -> dict[str, str]:
    """The three parts of a Task 2 answer (``User Description: ...###Relationship ...###Event ...``).

    Raises:
        MemoryParseError: not three non-empty parts.
    """
    text = answer.strip().strip("{}").strip()
    parts = [p.strip() for p in text.split("###") if p.strip()]
    if len(parts) != 3:
        raise MemoryParseError(f"expected three parts separated by '###', found {len(parts)}")
    out = {}
    for key, part in zip(PARTS, parts):
        value = re.sub(
            r"^\s*(?:the\s+)?(?:first|second|third)?\s*(?:part)?\s*[:\-]?\s*", "", part, flags=re.IGNORECASE
        )
        value = re.sub(rf"^{_LABELS[key]}\s*:?\s*", "", value, flags=re.IGNORECASE).strip()
        if len(value.split()) < 2:
            raise MemoryParseError(f"the {_LABELS[key].lower()} is empty")
        out[key] = value
    return out


def rule_compressive(sittings: Sequence[Sequence[str]], n_turns: int) -> dict[str, str]:
    """The Task 2 fallback rule: three non-empty parts built from the session memories."""
    about_user = [
        m
        for s in sittings
        for m in s
        if re.match(rf"^(the\s+)?{USER_NAME}\b", m, re.IGNORECASE) and _FIRST_PERSON.search(m)
    ]
    user = " ".join(about_user[-8:]) if about_user else "Nothing the user said about themselves yet."
    n = len(sittings)
    relationship = (
        f"{USER_NAME} and {BOT_NAME} have talked in {n} session{'s' if n != 1 else ''} ({n_turns} turns) so far."
    )
    events = " ".join(f"Session {i}: {'; '.join(m.rstrip('.') for m in s)}." for i, s in enumerate(sittings, 1) if s)
    words = events.split()
    events = ("... " + " ".join(words[-150:])) if len(words) > 150 else events
    return {"user": user, "relationship": relationship, "events": events or "No events yet."}


def render_compressive(memory: dict) -> str:
    """The compressive memory as the text Task 3 reads, one labeled part per line."""
    return "\n".join(f"{_LABELS[k]}: {memory[k]}" for k in PARTS)


# -- the model calls -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryResult:
    value: object  # list[str] (Task 1) or dict[str, str] (Task 2)
    method: str  # "llm" or "rule"
    note: str = ""


class MemoryExtractor:
    """Runs Task 1 and Task 2 on the backbone, with the fallback rules above.

    Args:
        generator: the backbone (``Generator``).
        max_new_tokens: cap of each memory call.
    """

    def __init__(self, generator, max_new_tokens: int = 160):
        self.generator, self.max_new_tokens = generator, max_new_tokens

    def _ask(self, prompt: str) -> str:
        return self.generator.generate([{"role": "user", "content": prompt}], max_new_tokens=self.max_new_tokens).text

    def sitting_memory(self, turns: Sequence[tuple[str, str]], label: str) -> MemoryResult:
        answer = self._ask(fill(load_template("comedy_task1"), dialogue=format_dialogue(turns)))
        try:
            return MemoryResult(parse_sitting_memory(answer, load_template("comedy_task1")), "llm")
        except MemoryParseError as exc:
            return MemoryResult(
                rule_sitting_memory(turns),
                "rule",
                f"Task 1 output for {label} did not parse ({exc}); the first-sentence rule wrote its memory.",
            )

    def compress(self, sittings: Sequence[Sequence[str]], n_turns: int) -> MemoryResult:
        memories = "\n".join(f"Session {i}: {' | '.join(s)}" for i, s in enumerate(sittings, 1))
        answer = self._ask(
            fill(load_template("comedy_task2"), user_name=USER_NAME, bot_name=BOT_NAME, memories=memories)
        )
        try:
            return MemoryResult(parse_compressive(answer), "llm")
        except MemoryParseError as exc:
            return MemoryResult(
                rule_compressive(sittings, n_turns),
                "rule",
                f"Task 2 output did not parse ({exc}); the three parts were built by rule from the session memories.",
            )
