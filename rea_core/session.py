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
        except (KeyError, TypeError, ValueError) as exc:
            raise DataFormatError(f"Session file is incomplete or damaged: {type(exc).__name__}: {exc}") from exc

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
