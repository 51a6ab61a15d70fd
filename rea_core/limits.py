"""Every per-request bound REA Studio enforces, in one place, each with its environment variable.

Why one module: a limit that is written twice drifts, and a reviewer must be able to read every
bound the server enforces (and how to raise it) without hunting through the app. The README's
settings table lists the same names. ``settings.Settings.from_env()`` reads them; a malformed value
is a ``REAError`` naming the variable, so ``rea app`` stops with one line instead of a traceback.

Example:
    >>> Settings.from_env({"REA_MAX_TURNS": "50"}).limits.max_turns
    50
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from threading import Lock
from typing import Any, Callable, Hashable, Iterator

from .errors import DataFormatError, SettingsError
from .runtime import RuntimeConfig


@dataclass(frozen=True)
class Limits:
    """Server-side bounds; the defaults keep one request at a few seconds and tens of MB on a CPU."""

    max_upload_mb: float = field(
        default=10.0,
        metadata={"env": "REA_MAX_UPLOAD_MB", "help": "largest uploaded file (Gradio refuses bigger ones)"},
    )
    # A trace keeps every turn's plan: about 24 MB of Python heap at 300 turns, growing with the
    # square of the turns (about 270 MB at 1,000), held in the tracing visitor's session state.
    max_turns: int = field(
        default=1000,
        metadata={"env": "REA_MAX_TURNS", "help": "turns per loaded conversation (Inspect, Compare load, rea replay)"},
    )
    max_catch_up: int = field(
        default=64,
        metadata={
            "env": "REA_MAX_CATCH_UP",
            "help": "embeddings or compressions a loaded Compare session "
            "may still need (a file saved by this app needs none)",
        },
    )
    queue_size: int = field(
        default=64,
        metadata={
            "env": "REA_QUEUE_SIZE",
            "help": "requests waiting in the app's queue; more are told the app is busy",
        },
    )
    trace_share: float = field(
        default=0.5,
        metadata={
            "env": "REA_TRACE_SHARE",
            "help": "most of the wall time an Inspect trace computes; it pauses the rest so chats keep the CPU",
        },
    )
    heatmap_rows: int = field(
        default=60,
        metadata={
            "env": "REA_HEATMAP_ROWS",
            "help": "query turns drawn in the Inspect heatmap at once (a window around the selected turn)",
        },
    )
    kv_cache_sessions: int = field(
        default=16,
        metadata={
            "env": "REA_KV_CACHE_SESSIONS",
            "help": "conversations whose KV prefix the in-process generator keeps (least recently used dropped)",
        },
    )
    kv_cache_mb: float = field(
        default=512.0,
        metadata={
            "env": "REA_KV_CACHE_MB",
            "help": "MB of KV the prefix cache holds over all conversations (least recently used dropped)",
        },
    )
    marks_per_user: int = field(
        default=500,
        metadata={
            "env": "REA_MARKS_PER_USER",
            "help": "Inspect marks one signed-in name may store (without sign-in, all visitors share one name)",
        },
    )
    marks_per_session: int = field(
        default=100,
        metadata={"env": "REA_MARKS_PER_SESSION", "help": "Inspect marks one browser session may store"},
    )
    # One mark keeps its conversation up to the query: a question after 1,000 long turns stored 4.8 MB,
    # so a count alone does not bound the database. Turns shared by one name's marks count once.
    marks_mb_per_user: float = field(
        default=100.0,
        metadata={
            "env": "REA_MARKS_MB_PER_USER",
            "help": "MB of Inspect marks one signed-in name may store: their texts and the distinct turns "
            "of their conversation contexts (without sign-in, all visitors share one name)",
        },
    )
    # Checked before any prefill. A CPU prefills this small model at roughly 100-200 tokens a second
    # (1,024 tokens took 9-16 s on the shared 2-core machine; the 8,064-token message of the security
    # review took 105 s), so 1,024 tokens keep one message's own prefill to seconds, and hold several
    # pages of text (about 4.6 characters a token in English).
    max_message_tokens: int = field(
        default=1024,
        metadata={
            "env": "REA_MAX_MESSAGE_TOKENS",
            "help": "tokens per typed message (`rea chat`, Compare), counted before any prefill; "
            "`REA_MAX_MESSAGE_CHARS` still applies",
        },
    )
    # A reply of 128 tokens takes a few seconds on a CPU; two minutes leaves room for both columns
    # sharing the model and a long history, and cuts only a reply that runs away.
    reply_budget_s: float = field(
        default=120.0,
        metadata={
            "env": "REA_REPLY_BUDGET_S",
            "help": "seconds a reply may take (`rea chat`, Compare): decoding stops there and the reply "
            "so far is kept, marked as cut (nothing is stored when the prefill alone used it up)",
        },
    )
    trace_budget_s: float = field(
        default=300.0,
        metadata={
            "env": "REA_TRACE_BUDGET_S",
            "help": "seconds of computing an Inspect trace may take (its pauses for chats not counted); "
            "it then ends, and the turns traced so far are shown",
        },
    )
    recheck_budget_s: float = field(
        default=300.0,
        metadata={
            "env": "REA_RECHECK_BUDGET_S",
            "help": "seconds of computing an Inspect marks re-check may take (its pauses for chats not "
            "counted); it then ends and says how many marks it covered",
        },
    )
    # "Answer with REA" on a 4 MB LoCoMo file took 72-79 s, most of it embedding the history; a minute
    # bounds a visitor's wait, and the exchanges embedded before it ran out are kept for the next ask.
    answer_budget_s: float = field(
        default=60.0,
        metadata={
            "env": "REA_ANSWER_BUDGET_S",
            "help": 'seconds of computing Inspect\'s "Answer with REA" may take: embedding the history '
            "stops there (what it embedded is kept, so asking again goes on), and the answer is cut",
        },
    )
    temp_file_ttl_s: int = field(
        default=3600,
        metadata={"env": "REA_TEMP_TTL_S", "help": "seconds a saved conversation or marks export stays downloadable"},
    )
    # 40 sessions each loading a 10 MB file, or a few 800-turn traces (~200 MB each), would otherwise
    # hold memory without bound; the KV prefix cache (REA_KV_CACHE_MB) counts toward this cap.
    session_state_mb: float = field(
        default=1024.0,
        metadata={
            "env": "REA_SESSION_STATE_MB",
            "help": "MB of per-session state kept over all sessions: loaded files, traces, "
            "answer caches and the KV prefix cache (least recently used dropped; its session is told)",
        },
    )
    session_state_ttl_s: int = field(
        default=900,
        metadata={
            "env": "REA_SESSION_TTL_S",
            "help": "seconds an unused loaded file, trace or answer cache stays in its session",
        },
    )

    def cache_limits(self):
        """The KV prefix cache's bounds (``backends.kv_cache.CacheLimits``)."""
        from .backends.kv_cache import CacheLimits

        return CacheLimits(max_sessions=self.kv_cache_sessions, max_bytes=int(self.kv_cache_mb * 2**20))

    def serve(self, runtime: RuntimeConfig) -> RuntimeConfig:
        """``runtime`` as a front end serves people under it: the per-message token cap and the reply budget on.

        Why not in ``RuntimeConfig`` itself: evaluations build strategies from the same runtime and
        must not see a reply cut by a clock; only ``rea chat``, ``rea replay`` and the app serve.
        """
        return replace(runtime, max_message_tokens=self.max_message_tokens, reply_budget_s=self.reply_budget_s)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def marks_bytes_per_user(self) -> int:
        return int(self.marks_mb_per_user * 1024 * 1024)

    def check_file_size(self, path) -> None:
        """Refuse a file over ``max_upload_mb`` before reading it (Gradio's own limit covers uploads;
        this covers every other path a file reaches the server by).

        Raises:
            DataFormatError: The file is too large, naming it and the variable that raises the limit.
        """
        try:
            size = Path(path).stat().st_size
        except OSError as exc:
            raise DataFormatError(f"Cannot read {Path(path).name}: {exc.strerror}") from exc
        if size > self.max_upload_bytes:
            raise DataFormatError(
                f"{Path(path).name} has {size / 2**20:.1f} MB, over the "
                f"limit of {self.max_upload_mb:g} MB (REA_MAX_UPLOAD_MB)"
            )

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not value > 0 or (f.name == "trace_share" and value > 1):
                bound = " and at most 1" if f.name == "trace_share" else ""
                raise SettingsError(f"{f.metadata['env']} must be positive{bound}; got {value}")
        if self.session_state_mb <= self.kv_cache_mb:
            raise SettingsError(
                f"REA_SESSION_STATE_MB ({self.session_state_mb:g}) must exceed REA_KV_CACHE_MB "
                f"({self.kv_cache_mb:g}): the KV prefix cache counts toward it"
            )

    @classmethod
    def table(cls) -> list[tuple[str, str, Any]]:
        """(env var, meaning, default) rows, the source of the README table."""
        return [(f.metadata["env"], f.metadata["help"], f.default) for f in fields(cls)]


class BudgetSpent(Exception):
    """Raised at a step's entry (``WorkBudget.step``) to end the work there: budget spent or Stop pressed."""

    def __init__(self, note: str):
        super().__init__(note)
        self.note = note


class WorkBudget:
    """The seconds a piece of server work may compute, counted over its steps.

    Why steps: a model call cannot be cut in the middle of a forward pass, but long work (embedding a
    1,000-turn upload, re-checking 500 marks) is many short steps, and checking between them bounds it
    to the budget plus one step. The first step always runs, so work always makes progress. A step
    may pass a gate first (the chats-first ``ModelGate.background``); its wait there is not counted.

    Example:
        >>> budget = WorkBudget(60.0, what="the answer", variable="REA_ANSWER_BUDGET_S")
        >>> with budget.step():
        ...     pass  # one batch of work
        >>> budget.left() > 59
        True
    """

    def __init__(
        self,
        budget_s: float | None,
        *,
        what: str,
        variable: str,
        gate: Callable[[], Any] | None = None,
        stop: threading.Event | None = None,
        on_step: Callable[[int], None] | None = None,
    ):
        self.budget_s, self.what, self.variable = budget_s, what, variable
        self._gate, self._stop, self._on_step = gate, stop, on_step
        self.busy = 0.0  # seconds computed inside steps
        self.steps = 0

    def spent_note(self) -> str:
        return f"{self.what}'s time budget of {self.budget_s:g} s ({self.variable}) ran out"

    def left(self) -> float | None:
        """Seconds still to spend (None: unbounded); at least a millisecond, so a call given it ends at once."""
        return None if self.budget_s is None else max(1e-3, self.budget_s - self.busy)

    @contextmanager
    def step(self) -> Iterator[None]:
        """One unit of work. Raises ``BudgetSpent`` instead of starting it once Stop is set, or once the
        budget is spent (after the first step)."""
        if self._stop is not None and self._stop.is_set():
            raise BudgetSpent("you pressed Stop")
        if self.budget_s is not None and self.steps and self.busy >= self.budget_s:
            raise BudgetSpent(self.spent_note())
        with self._gate() if self._gate is not None else nullcontext():
            start = time.perf_counter()
            try:
                yield
            finally:
                self.busy += time.perf_counter() - start
        self.steps += 1
        if self._on_step is not None:
            self._on_step(self.steps)


class DutyCycle:
    """Pace a long background job so it computes at most ``share`` of the wall time.

    Why: on a CPU-only machine a trace of a long upload competes with every chat for the same
    cores; sleeping ``busy * (1 - share) / share`` after each step leaves the rest to them.
    Call it after every step (it fits ``trace_conversation``'s ``on_turn``).
    """

    def __init__(self, share: float, sleep: Callable[[float], None] = time.sleep):
        self.share = share
        self._sleep = sleep
        self._mark = time.perf_counter()

    def __call__(self, *_progress) -> None:
        busy = time.perf_counter() - self._mark
        if self.share < 1:
            self._sleep(busy * (1 - self.share) / self.share)
        self._mark = time.perf_counter()


class ModelGate:
    """Chats first: any number of chats compute at once, and background work (an Inspect trace)
    takes one step at a time, only while no chat has run for ``grace_s``.

    Why not one lock: a chat must never wait behind a trace. A chat never waits here at all; a trace
    waits before each turn, so the most a chat shares the CPU with is the one trace turn already
    started when it arrived. ``grace_s`` keeps the gate closed for the moment between one chat
    and the next queued one (or a client's next message), so a turn does not slip in between.

    Example:
        >>> gate = ModelGate()
        >>> with gate.chat():
        ...     pass  # a reply streams; trace turns wait
        >>> with gate.background():
        ...     pass  # one trace turn
    """

    def __init__(self, grace_s: float = 1.0) -> None:
        self.grace_s = grace_s
        self._changed = threading.Condition()
        self._chats = 0
        self._last_end = float("-inf")  # perf_counter() when the latest chat ended

    @property
    def chats(self) -> int:
        """Chats running now."""
        return self._chats

    @contextmanager
    def chat(self) -> Iterator[None]:
        with self._changed:
            self._chats += 1
        try:
            yield
        finally:
            with self._changed:
                self._chats -= 1
                self._last_end = time.perf_counter()
                self._changed.notify_all()

    @contextmanager
    def background(self) -> Iterator[float]:
        """One step of background work, entered once no chat has run for ``grace_s``; yields the seconds it
        waited."""
        start = time.perf_counter()
        with self._changed:
            while True:
                if self._chats:
                    self._changed.wait()
                    continue
                quiet = time.perf_counter() - self._last_end
                if quiet >= self.grace_s:
                    break
                self._changed.wait(self.grace_s - quiet)
        yield time.perf_counter() - start


class LRUCache:
    """A small thread-safe least-recently-used map, so a cache keyed by user text stays bounded."""

    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Hashable) -> Any:
        with self._lock:
            if key not in self._data:
                return None
            self._data.move_to_end(key)
            return self._data[key]

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
