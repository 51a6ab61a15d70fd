"""The conversation file format (JSONL) used by ``rea replay`` and the evaluations.

Each line: ``{"id": str, "turns": [{"user": str, "assistant": str (optional), "time": str (optional)}, ...]}``;
``time`` is when the user sent the turn, ISO 8601 (``rea_core.timestamps``). Extra keys
are kept in ``Conversation.extra`` for the evaluations that define them. The whole file is
validated before anything runs; an error names the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import DataFormatError
from .timestamps import parse_time
from .validation import json_type, parse_json, read_text


@dataclass(frozen=True)
class Turn:
    user: str
    assistant: str | None = None
    time: str | None = None  # stored form of rea_core.timestamps


def turn_record(user: str, assistant: str | None = None, time: str | None = None) -> dict:
    """One turn of the JSONL format, as ``parse_conversation`` reads it back: ``assistant`` and ``time``
    only where known, so a file written from memory round-trips unchanged."""
    record = {"user": user}
    if assistant is not None:
        record["assistant"] = assistant
    if time:
        record["time"] = time
    return record


def check_turn_chars(text: str, max_chars: int | None, what: str) -> None:
    """Refuse one turn's text over ``max_chars``, before any work on it.

    ``max_chars`` is ``RuntimeConfig.max_message_chars`` wherever a file is loaded (the app, ``rea
    replay``, every ``rea eval`` data file), so the message names the setting that raises it: a file
    is refused with the limit it broke, never left to embed a 120-million-character turn for minutes.
    """
    if max_chars is not None and len(text) > max_chars:
        raise DataFormatError(
            f"{what} has {len(text):,} characters, over the limit of {max_chars:,} (REA_MAX_MESSAGE_CHARS)"
        )


@dataclass(frozen=True)
class Conversation:
    id: str
    turns: tuple[Turn, ...]
    extra: dict = field(default_factory=dict)


def parse_conversation(
    obj: object, *, where: str, max_chars: int | None = None, max_turns: int | None = None
) -> Conversation:
    """Validate one decoded JSON line; ``where`` ("file:line") prefixes every error.

    User turns get the checks a typed message gets (non-empty text, ``max_chars``), so an upload
    cannot carry what the chat box refuses; given replies are held to the same character limit, and
    ``max_turns`` bounds the work one loaded conversation can cause.
    """
    if not isinstance(obj, dict):
        raise DataFormatError(f"{where}: expected a JSON object, got {json_type(obj)}")
    cid = obj.get("id")
    if not isinstance(cid, str) or not cid:
        raise DataFormatError(f'{where}: missing or empty string field "id"')
    turns = obj.get("turns")
    if not isinstance(turns, list) or not turns:
        raise DataFormatError(f'{where}: "turns" must be a non-empty list')
    if max_turns is not None and len(turns) > max_turns:
        raise DataFormatError(f"{where}: {len(turns):,} turns, over the limit of {max_turns:,} per conversation")
    parsed = []
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            raise DataFormatError(f'{where}: turn {i} must be an object with "user"')
        user, assistant = t.get("user"), t.get("assistant")
        if not isinstance(user, str) or not user.strip():
            raise DataFormatError(f'{where}: turn {i} needs a non-empty string "user"')
        if assistant is not None and not isinstance(assistant, str):
            raise DataFormatError(f'{where}: turn {i} "assistant" must be a string when given')
        for role, text in (("user", user), ("assistant", assistant or "")):
            check_turn_chars(text, max_chars, f'{where}: turn {i} "{role}"')
        time = parse_time(t["time"], where=f"{where}: turn {i}") if t.get("time") is not None else None
        parsed.append(Turn(user=user, assistant=assistant, time=time))
    extra = {k: v for k, v in obj.items() if k not in ("id", "turns")}
    return Conversation(id=cid, turns=tuple(parsed), extra=extra)


def jsonl_lines(text: str) -> list[str]:
    """The lines of JSONL ``text``: split on "\\n" alone, a trailing "\\r" dropped (CRLF files).

    Not ``str.splitlines``: it also splits at U+2028, U+2029, U+0085 and other separators, which
    are legal raw inside a JSON string, so a line a writer with ``ensure_ascii=False`` (every export
    here) produced would be cut in two and refused as invalid JSON.
    """
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def read_jsonl(path: str | Path, *, what: str = "conversations") -> list[tuple[str, object]]:
    """Every non-blank line of a JSONL file decoded, as ("file:line", object) pairs (``jsonl_lines``).

    Raises DataFormatError naming the file (unreadable, empty) or the line (invalid JSON).
    """
    path = Path(path)
    lines = jsonl_lines(read_text(path))
    rows = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        rows.append((where, parse_json(line, where=where)))  # depth, numbers and text checked there
    if not rows:
        raise DataFormatError(f"{path}: no {what} found")
    return rows


def load_conversations(
    path: str | Path, *, max_chars: int | None = None, max_turns: int | None = None
) -> list[Conversation]:
    """Read and validate a whole conversation JSONL file (blank lines are skipped).

    The app and ``rea replay`` pass the same ``max_chars`` (REAConfig.max_message_chars) and
    ``max_turns`` (``Limits.max_turns``), so a file is accepted or refused the same way in both.
    """
    conversations, seen = [], set()
    for where, obj in read_jsonl(path):
        conv = parse_conversation(obj, where=where, max_chars=max_chars, max_turns=max_turns)
        if conv.id in seen:
            raise DataFormatError(f"{where}: duplicate conversation id {conv.id!r}")
        seen.add(conv.id)
        conversations.append(conv)
    return conversations
