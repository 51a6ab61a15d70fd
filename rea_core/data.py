"""The conversation file format (JSONL) used by ``rea replay`` and the evaluations.

Each line: ``{"id": str, "turns": [{"user": str, "assistant": str (optional)}, ...]}``. Extra keys
are kept in ``Conversation.extra`` for the evaluations that define them. The whole file is
validated before anything runs; an error names the file and line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DataFormatError


@dataclass(frozen=True)
class Turn:
    user: str
    assistant: str | None = None


@dataclass(frozen=True)
class Conversation:
    id: str
    turns: tuple[Turn, ...]
    extra: dict = field(default_factory=dict)


def parse_conversation(obj: object, *, where: str, max_chars: int | None = None) -> Conversation:
    """Validate one decoded JSON line; ``where`` ("file:line") prefixes every error."""
    if not isinstance(obj, dict):
        raise DataFormatError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    cid = obj.get("id")
    if not isinstance(cid, str) or not cid:
        raise DataFormatError(f"{where}: missing or empty string field \"id\"")
    turns = obj.get("turns")
    if not isinstance(turns, list) or not turns:
        raise DataFormatError(f"{where}: \"turns\" must be a non-empty list")
    parsed = []
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            raise DataFormatError(f"{where}: turn {i} must be an object with \"user\"")
        user, assistant = t.get("user"), t.get("assistant")
        if not isinstance(user, str) or not user.strip():
            raise DataFormatError(f"{where}: turn {i} needs a non-empty string \"user\"")
        if assistant is not None and not isinstance(assistant, str):
            raise DataFormatError(f"{where}: turn {i} \"assistant\" must be a string when given")
        if max_chars is not None and len(user) > max_chars:
            raise DataFormatError(f"{where}: turn {i} \"user\" has {len(user):,} characters, over the limit of {max_chars:,}")
        parsed.append(Turn(user=user, assistant=assistant))
    extra = {k: v for k, v in obj.items() if k not in ("id", "turns")}
    return Conversation(id=cid, turns=tuple(parsed), extra=extra)


def read_jsonl(path: str | Path, *, what: str = "conversations") -> list[tuple[str, object]]:
    """Every non-blank line of a JSONL file decoded, as ("file:line", object) pairs.

    Raises DataFormatError naming the file (unreadable, empty) or the line (invalid JSON).
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"Cannot read {path}: {exc}") from exc
    rows = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            rows.append((where, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not rows:
        raise DataFormatError(f"{path}: no {what} found")
    return rows


def load_conversations(path: str | Path, *, max_chars: int | None = None) -> list[Conversation]:
    """Read and validate a whole conversation JSONL file (blank lines are skipped)."""
    conversations, seen = [], set()
    for where, obj in read_jsonl(path):
        conv = parse_conversation(obj, where=where, max_chars=max_chars)
        if conv.id in seen:
            raise DataFormatError(f"{where}: duplicate conversation id {conv.id!r}")
        seen.add(conv.id)
        conversations.append(conv)
    return conversations
