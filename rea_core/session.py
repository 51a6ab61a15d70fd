"""``ChatSession``: one conversation's whole state (both memories and a per-turn log), as JSON.

A session belongs to one strategy and one person; the app keeps one per browser tab and column,
so nothing is shared between users.

Saved files have one format, written by ``save_sessions`` (``rea chat``'s ``/save`` and the app's
Save): ``{"format": "rea-studio-compare", "version": 1, "columns": [session, ...]}``, one
``ChatSession.to_dict()`` per strategy or column. ``load_sessions`` also reads what earlier releases
wrote: a single session object (``"format": "rea-session"``) and ``rea chat``'s ``/save DIR``
folders of ``<strategy>.json`` files.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .conversations import Conversation, parse_conversation, turn_record
from .errors import DataFormatError
from .memory.episodic import EpisodicMemory
from .memory.instructional import InstructionalMemory
from .timestamps import parse_time
from .validation import check_name, is_whole, parse_json, read_text

if TYPE_CHECKING:
    from .retrieval.rewrite import Rewrite

FORMAT_VERSION = 1
SESSION_FORMAT = "rea-session"  # one session object (also every entry of a saved file's "columns")
SAVE_FORMAT = "rea-studio-compare"  # a saved file: the name the app's first release gave it, so its files load
SAVE_VERSION = 1

log = logging.getLogger(__name__)


def new_session_id() -> str:
    """A server-made id (128 random bits). Session ids key the KV prefix cache (``Strategy.cache_key``),
    so they are never taken from user input: a loaded file's id would let two sessions loading it share
    one cache entry, and the reuse count shown would tell one how much of the other's message it guessed."""
    return secrets.token_hex(16)


@dataclass
class ChatSession:
    strategy: str
    instructions: InstructionalMemory = field(default_factory=InstructionalMemory)
    episodes: EpisodicMemory = field(default_factory=EpisodicMemory)
    log: list[dict] = field(default_factory=list)  # one summary per turn: tokens, decisions, latency
    memory: dict = field(default_factory=dict)  # strategy-owned JSON state (SeCom segments, COMEDY memories)
    # Made here, never passed in (init=False): a saved file keeps its id for reference, a load gets a fresh one.
    session_id: str = field(default_factory=new_session_id, init=False)
    # Derived, rebuildable data a strategy caches for this session only (SeCom's retrieval vectors):
    # never saved, and dropped with the session, so one user's cache neither grows another's nor outlives it.
    scratch: dict = field(default_factory=dict, repr=False, compare=False)
    # The latest query rewrite (REAConfig.query_rewrite), for a view or trace to show what HCR scored; not saved.
    last_rewrite: "Rewrite | None" = field(default=None, repr=False, compare=False)

    @property
    def n_turns(self) -> int:
        return len(self.episodes)

    def to_dict(self) -> dict:
        return {
            "format": SESSION_FORMAT,
            "version": FORMAT_VERSION,
            "session_id": self.session_id,
            "strategy": self.strategy,
            "instructions": self.instructions.to_dict(),
            "episodes": self.episodes.to_dict(),
            "log": self.log,
            "memory": self.memory,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "ChatSession":
        """A session from its ``to_dict``; exchange times come back in the stored form. The file's
        "session_id" is not used: the session gets a fresh one (``new_session_id``).

        Raises:
            DataFormatError: not a session, incomplete, or an exchange's "time" that is not ISO 8601.
        """
        if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
            raise DataFormatError('Not a REA session file (expected a JSON object with "format": "rea-session").')
        strategy = data.get("strategy")
        if not isinstance(strategy, str) or not strategy:
            raise DataFormatError('Session is incomplete or damaged: it needs a "strategy" name')
        check_name(strategy, '"strategy"')
        for key, kind in (("instructions", dict), ("episodes", dict), ("log", list), ("memory", dict)):
            if key in ("instructions", "episodes") and not isinstance(data.get(key), dict):
                raise DataFormatError(f'Session is incomplete or damaged: it needs "{key}", an object')
            if data.get(key) is not None and not isinstance(data[key], kind):
                raise DataFormatError(
                    f'Session is incomplete or damaged: "{key}" must be {"an object" if kind is dict else "a list"}'
                )
        if not isinstance(data.get("session_id") or "", str):
            raise DataFormatError('Session is incomplete or damaged: "session_id" must be text')
        session = cls(
            strategy=strategy,
            instructions=_part("instructions", InstructionalMemory.from_dict, data["instructions"]),
            episodes=_part("episodes", EpisodicMemory.from_dict, data["episodes"]),
            log=list(data.get("log") or []),
            memory=dict(data.get("memory") or {}),
        )
        for i, ex in enumerate(session.episodes.exchanges):  # the stored form, or one clear error naming the turn
            if ex.time is not None:
                ex.time = parse_time(ex.time, where=f"turn {i}")
        return session

    def check_loaded(
        self,
        *,
        max_turns: int,
        max_chars: int,
        max_instructions: int,
        embed_dim: int | None = None,
        latent_shape: tuple[int, int, int] | None = None,
    ) -> "ChatSession":
        """Hold a session read from a file to the limits a typed conversation meets; returns it.

        Why: a loaded session skips ``respond``, so without this a file could carry 200,000 turns,
        megabyte messages or latents of any shape, and the next Send would re-embed or splice them
        under the shared generator lock. ``latent_shape`` is (n_latent, max_chunks, hidden_size) of
        the loaded codec; without a codec, saved latents are refused too (they cannot be used).

        Raises:
            DataFormatError: The first problem, naming the turn.
        """
        exchanges = self.episodes.exchanges
        if len(exchanges) > max_turns:
            raise DataFormatError(f"the session has {len(exchanges):,} turns, over the limit of {max_turns:,}")
        for i, ex in enumerate(exchanges):
            if ex.turn != i:
                raise DataFormatError(
                    f'turn {i}: its "turn" field says {ex.turn!r}; exchanges must be numbered 0, 1, 2, ...'
                )
            if ex.time is not None:
                parse_time(ex.time, where=f"turn {i}")
            for role, text in (("user", ex.user), ("reply", ex.reply)):
                if not isinstance(text, str):
                    raise DataFormatError(f'turn {i}: "{role}" must be text')
                if len(text) > max_chars:
                    raise DataFormatError(
                        f'turn {i}: "{role}" has {len(text):,} characters, over the limit of {max_chars:,}'
                    )
            for name in ("latents", "user_latents"):
                value = getattr(ex, name)
                if value is None:
                    continue
                if latent_shape is None:
                    raise DataFormatError(f"turn {i}: the file holds {name} but no latent codec is loaded here")
                n_latent, max_chunks, hidden = latent_shape
                rows = value.shape[0] if value.ndim == 2 else -1
                if (
                    value.ndim != 2
                    or value.shape[1] != hidden
                    or rows % n_latent
                    or not 0 < rows <= n_latent * max_chunks
                ):
                    raise DataFormatError(
                        f"turn {i}: {name} have shape {tuple(value.shape)}; this codec makes "
                        f"(k x {n_latent}, {hidden}) with 1 <= k <= {max_chunks}"
                    )
        capacity = self.instructions.capacity
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise DataFormatError(f"Instructional Memory capacity must be a whole number over 0, not {capacity!r:.40}")
        if capacity > max_instructions:
            raise DataFormatError(
                f"Instructional Memory capacity {self.instructions.capacity} is over this app's {max_instructions}"
            )
        for entry in self.instructions.entries:
            if not isinstance(entry.text, str) or not entry.text.strip() or len(entry.text) > max_chars:
                raise DataFormatError(f"an instruction is empty, not text or over {max_chars:,} characters")
            if not (
                is_whole(entry.turn)
                and isinstance(entry.source, str)
                and isinstance(entry.stage, str)
                and isinstance(entry.score, (int, float))
                and not isinstance(entry.score, bool)
            ):
                raise DataFormatError("an instruction's turn, source, stage or score is of the wrong type")
        units, _ = self.episodes.unit_index()
        if embed_dim is not None and self.episodes.n_embedded and units.shape[1] != embed_dim:
            raise DataFormatError(
                f"the saved retrieval vectors have {units.shape[1]} dimensions; the embedder here makes {embed_dim}"
            )
        if not all(isinstance(entry, dict) for entry in self.log):
            raise DataFormatError('the per-turn "log" must be a list of objects')
        return self

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "ChatSession":
        return cls.from_dict(parse_json(text, where="Session file"))

    def save(self, path: str | Path) -> Path:
        """Write this session alone in the saved-file format. Nothing is flushed: a strategy with
        background work (REA's compression) should save through ``save_sessions``."""
        return _write_sessions(path, [self])

    @classmethod
    def load(cls, path: str | Path) -> "ChatSession":
        """The one session in a saved file (any format ``load_sessions`` reads)."""
        sessions = load_sessions(path)
        if len(sessions) != 1:
            raise DataFormatError(f"{path}: holds {len(sessions)} sessions; load it with load_sessions")
        return sessions[0]


def _part(name: str, build, data: dict):
    """``build(data)`` for one part of a saved session; a part of the wrong shape is one clear error
    naming the part, and the exception's own text (a Python detail) goes to the server log only."""
    try:
        return build(data)
    except DataFormatError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        log.info("saved session: %s unreadable: %r", name, exc)
        raise DataFormatError(
            f'Session is incomplete or damaged: a field of its "{name}" is missing or of a wrong type'
        ) from None


class SessionOwner(Protocol):
    """What saving needs of a strategy (``methods.base.Strategy``): its name, and ``flush`` to finish its
    background work."""

    name: str

    def flush(self, session: ChatSession) -> None: ...


def save_sessions(path: str | Path, sessions: Sequence[tuple[SessionOwner, ChatSession]]) -> Path:
    """Save sessions to one file, after each strategy finished its background work on its session.

    The one save path of ``rea chat``'s ``/save`` and the app's Save: ``Strategy.flush`` first (the
    strategy contract: REA's latents are then in the file, so a reload does not recompress), then
    an atomic write of the saved-file format.

    Args:
        path: The file to (over)write.
        sessions: (strategy, session) pairs, in order (the app's columns, the chat's strategies).

    Returns:
        The path written.

    Raises:
        ValueError: A session belongs to another strategy than the one given with it.
        OSError: The file cannot be written (nothing is left half-written).

    Example:
        >>> save_sessions("chat.json", [(rea, rea_session), (vanilla, vanilla_session)])
    """
    for strategy, session in sessions:
        if session.strategy != strategy.name:
            raise ValueError(f"a {session.strategy!r} session cannot be saved by the {strategy.name!r} strategy")
        strategy.flush(session)
    return _write_sessions(path, [session for _, session in sessions])


def _write_sessions(path: str | Path, sessions: Sequence[ChatSession]) -> Path:
    path = Path(path)
    payload = {"format": SAVE_FORMAT, "version": SAVE_VERSION, "columns": [s.to_dict() for s in sessions]}
    tmp = path.with_suffix(path.suffix + ".tmp")
    # Owner-only, like the app's download folder: a conversation is its author's.
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False)
    tmp.replace(path)  # never leave a half-written file behind
    return path


def sessions_from_data(data) -> list[ChatSession]:
    """Sessions from parsed JSON: a saved file (``SAVE_FORMAT``) or a single session object.

    Raises:
        DataFormatError: Neither, or a session in it is incomplete or damaged.
    """
    if isinstance(data, dict) and data.get("format") == SAVE_FORMAT:
        columns = data.get("columns")
        if not isinstance(columns, list) or not columns:
            raise DataFormatError('"columns" must be a non-empty list of saved sessions')
        return [ChatSession.from_dict(d) for d in columns]
    if isinstance(data, dict) and data.get("format") == SESSION_FORMAT:
        return [ChatSession.from_dict(data)]
    raise DataFormatError(
        f'Not a REA session file (expected a JSON object with "format": "{SAVE_FORMAT}" or "{SESSION_FORMAT}").'
    )


def load_sessions(path: str | Path) -> list[ChatSession]:
    """Sessions from a saved file, a single-session file, or a folder written by ``rea chat``'s
    ``/save DIR`` before it wrote one file (its ``*.json``, in name order).

    Raises:
        DataFormatError: Unreadable, not JSON, not a session file; the message names the path.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise DataFormatError(f"{path}: a folder without saved sessions (*.json)")
        return [session for file in files for session in load_sessions(file)]
    # A file that is not usable JSON is named alone: nothing says yet which format it was meant as
    # (the Inspect tab reads LoCoMo from .json files too).
    data = parse_json(read_text(path), where=str(path))
    try:
        return sessions_from_data(data)
    except DataFormatError as exc:
        raise DataFormatError(f"{path}: {exc}") from exc


def saved_conversations(
    path: str | Path, *, max_chars: int | None = None, max_turns: int | None = None
) -> list[Conversation]:
    """A saved file's sessions as conversations (each exchange's user text, reply and time, in order), so a
    chat saved by the app or ``rea chat`` can be traced or replayed like a conversation JSONL file.

    Held to the limits ``load_conversations`` applies (``max_chars``, ``max_turns``); sessions
    without turns are skipped. Conversation ids are "column N: <strategy>".

    Raises:
        DataFormatError: Not a saved file, damaged, over a limit, or without any turn; the message
            names the file (by name, not its folder) and the column.
    """
    name = Path(path).name
    try:
        sessions = load_sessions(path)
    except DataFormatError as exc:
        raise DataFormatError(str(exc).replace(str(path), name)) from exc
    conversations = []
    for number, session in enumerate(sessions, 1):
        if not session.n_turns:
            continue
        turns = [turn_record(ex.user, ex.reply, ex.time) for ex in session.episodes.exchanges]
        conversations.append(
            parse_conversation(
                {"id": f"column {number}: {session.strategy}", "turns": turns},
                where=f"{name}, column {number}",
                max_chars=max_chars,
                max_turns=max_turns,
            )
        )
    if not conversations:
        raise DataFormatError(f"{name}: the saved conversation has no turns to trace yet")
    return conversations
