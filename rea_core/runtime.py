"""How a strategy is served, whatever its method: reply length, message size, KV reuse, system prompt.

Kept apart from the methods' own settings (``methods/<method>/config.py``), as peft keeps
``LoraRuntimeConfig`` apart from ``LoraConfig``: two strategies compared side by side share one
``RuntimeConfig``, so they differ only in their context policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_MAX_MESSAGE_CHARS = 32_000


@dataclass(frozen=True)
class RuntimeConfig:
    """Serving settings every strategy reads."""

    max_new_tokens: int = field(
        default=128,
        metadata={
            "env": "REA_MAX_NEW_TOKENS",
            "help": "longest reply, in tokens (the evaluations set their own budgets)",
        },
    )
    max_message_chars: int = field(
        default=DEFAULT_MAX_MESSAGE_CHARS,
        metadata={
            "env": "REA_MAX_MESSAGE_CHARS",
            "help": "characters per message and per given reply, typed or loaded; also per turn, question and "
            "answer of every conversation file `rea replay`, `rea eval` and `rea train compressor` read, checked "
            "before any model loads",
        },
    )
    kv_reuse: bool = field(
        default=True,
        metadata={
            "env": "REA_KV_REUSE",
            "help": "reuse each conversation's KV prefix between turns, as chat servers do (evaluations turn it off "
            "unless an arm says `-cached`: the paper prefills every turn in full)",
        },
    )
    show_time: bool = field(
        default=True,
        metadata={
            "env": "REA_SHOW_TIME",
            "help": "show when each kept exchange happened, before its user text (`[Monday 8 May 2023 13:56]`), "
            "where the exchange has a time",
        },
    )
    # Bounds a front end serves under (``Limits.serve`` sets them from REA_MAX_MESSAGE_TOKENS and
    # REA_REPLY_BUDGET_S); None here, so evaluations and library callers are never cut by a clock.
    max_message_tokens: int | None = field(
        default=None,
        metadata={"help": "tokens per message when generating, counted before any prefill (None: no cap)"},
    )
    reply_budget_s: float | None = field(
        default=None,
        metadata={"help": "seconds a reply may take; decoding stops there, the reply so far kept (None: no budget)"},
    )
    system_prompt: str = field(
        default="You are a helpful assistant.",
        metadata={"help": "system message shared by every strategy, so they differ only in context policy"},
    )

    def __post_init__(self) -> None:
        if self.max_message_chars < 1 or self.max_new_tokens < 1:
            raise ValueError("max_message_chars and max_new_tokens must be positive")
        for name in ("max_message_tokens", "reply_budget_s"):
            if getattr(self, name) is not None and not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive or None; got {getattr(self, name)!r}")
        for name in ("kv_reuse", "show_time"):
            if getattr(self, name) not in (True, False):
                raise ValueError(f"{name} must be True or False; got {getattr(self, name)!r}")
