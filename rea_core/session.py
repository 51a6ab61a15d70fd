"""``ChatSession``: one conversation's whole state (both memories and a per-turn log), as JSON.

A session belongs to one strategy and one person; the app keeps one per browser tab and column,
so nothing is shared between users.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DataFormatError
from .memory.episodic import EpisodicMemory
from .memory.instructional import InstructionalMemory

FORMAT_VERSION = 1


@dataclass
class ChatSession:
    strategy: str
    instructions: InstructionalMemory = field(default_factory=InstructionalMemory)
    episodes: EpisodicMemory = field(default_factory=EpisodicMemory)
    log: list[dict] = field(default_factory=list)  # one summary per turn: tokens, decisions, latency
    memory: dict = field(default_factory=dict)  # strategy-owned JSON state (SeCom segments, COMEDY memories)
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # Derived, rebuildable data a strategy caches for this session only (SeCom's retrieval vectors):
    # never saved, and dropped with the session, so one user's cache neither grows another's nor outlives it.
    scratch: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_turns(self) -> int:
        return len(self.episodes)

    def to_dict(self) -> dict:
        return {
            "format": "rea-session",
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
        if not isinstance(data, dict) or data.get("format") != "rea-session":
            raise DataFormatError("Not a REA session file (expected a JSON object with \"format\": \"rea-session\").")
        try:
            return cls(
                strategy=data["strategy"],
                instructions=InstructionalMemory.from_dict(data["instructions"]),
                episodes=EpisodicMemory.from_dict(data["episodes"]),
                log=list(data.get("log", [])),
                memory=dict(data.get("memory") or {}),
                session_id=data.get("session_id") or uuid.uuid4().hex,
            )
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
            raise DataFormatError(f"Session file is incomplete or damaged: {type(exc).__name__}: {str(exc)[:200]}") from exc

    def check_loaded(self, *, max_turns: int, max_chars: int, max_instructions: int, embed_dim: int | None = None,
                     latent_shape: tuple[int, int, int] | None = None) -> "ChatSession":
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
                raise DataFormatError(f"turn {i}: its \"turn\" field says {ex.turn!r}; exchanges must be numbered 0, 1, 2, ...")
            for role, text in (("user", ex.user), ("reply", ex.reply)):
                if not isinstance(text, str):
                    raise DataFormatError(f"turn {i}: \"{role}\" must be text")
                if len(text) > max_chars:
                    raise DataFormatError(f"turn {i}: \"{role}\" has {len(text):,} characters, over the limit of {max_chars:,}")
            for name in ("latents", "user_latents"):
                value = getattr(ex, name)
                if value is None:
                    continue
                if latent_shape is None:
                    raise DataFormatError(f"turn {i}: the file holds {name} but no latent codec is loaded here")
                n_latent, max_chunks, hidden = latent_shape
                rows = value.shape[0] if value.ndim == 2 else -1
                if value.ndim != 2 or value.shape[1] != hidden or rows % n_latent or not 0 < rows <= n_latent * max_chunks:
                    raise DataFormatError(f"turn {i}: {name} have shape {tuple(value.shape)}; this codec makes "
                                          f"(k x {n_latent}, {hidden}) with 1 <= k <= {max_chunks}")
        if self.instructions.capacity > max_instructions:
            raise DataFormatError(f"Instructional Memory capacity {self.instructions.capacity} is over this app's {max_instructions}")
        for entry in self.instructions.entries:
            if not isinstance(entry.text, str) or not entry.text.strip() or len(entry.text) > max_chars:
                raise DataFormatError(f"an instruction is empty, not text or over {max_chars:,} characters")
        units, _ = self.episodes.unit_index()
        if embed_dim is not None and self.episodes.n_embedded and units.shape[1] != embed_dim:
            raise DataFormatError(f"the saved retrieval vectors have {units.shape[1]} dimensions; the embedder here makes {embed_dim}")
        if not all(isinstance(entry, dict) for entry in self.log):
            raise DataFormatError("the per-turn \"log\" must be a list of objects")
        return self

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "ChatSession":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"Session file is not valid JSON: {exc}") from exc
        return cls.from_dict(data)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(path)  # never leave a half-written session behind
        return path

    @classmethod
    def load(cls, path: str | Path) -> "ChatSession":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataFormatError(f"Cannot read session file {path}: {exc}") from exc
        try:
            return cls.from_json(text)
        except DataFormatError as exc:
            raise DataFormatError(f"{path}: {exc}") from exc
