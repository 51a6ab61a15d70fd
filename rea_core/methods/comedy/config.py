"""COMEDY's method settings: session length and the memory calls' budget."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class COMEDYConfig:
    """COMEDY's settings (COMEDY paper): session length and the memory calls' budget."""

    sitting_turns: int = field(
        default=8, metadata={"help": "turns per session before memory extraction and compression run"}
    )
    memory_tokens: int = field(default=160, metadata={"help": "new-token cap of the Task 1 and Task 2 model calls"})

    def __post_init__(self) -> None:
        if self.sitting_turns < 1 or self.memory_tokens < 8:
            raise ValueError("comedy.sitting_turns >= 1 and comedy.memory_tokens >= 8 are required")
