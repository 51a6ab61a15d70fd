"""What the app holds: one shared ``AppEngine`` (models, strategies, database) and, per browser
session and column, a ``ColumnState`` (that column's strategy name and its own ChatSession).

Nothing conversation-specific lives in the engine, so one user's chat never reaches another's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from rea_core import (
    REPLY_FORMS,
    ChatSession,
    Models,
    REAConfig,
    RuntimeConfig,
    Settings,
    Strategy,
    Thresholds,
    TurnResult,
    available_strategies,
)
from rea_core.limits import Limits, ModelGate
from rea_core.loading import build_from_settings

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ColumnState:
    """One Compare column in one browser session."""

    strategy: str
    session: ChatSession
    last: TurnResult | None = None  # the latest generated turn, for the prompt view and live thresholds
    last_thresholds: Thresholds | None = None  # what ``last`` was decided at
    error: str = ""
    reply_form: str = (
        "auto"  # REA's compressed replies: "auto" (measured best), "latent" or "text" (the app's form control)
    )
    # a conversation loaded from a file is counted under the session-state cap (app.session_state):
    # its handle there, touched by every event of the session
    lease: object | None = None


@dataclass
class AppEngine:
    """Models and settings shared by every session; builds strategies and the database on demand."""

    models: Models
    settings: Settings = field(default_factory=Settings)  # every setting, read once (rea_core.settings)
    database_url: str | None = None  # the annotation store; None: settings.store's
    examples_dir: Path = REPO_ROOT / "examples"
    _strategies: dict[str, Strategy] = field(default_factory=dict, init=False, repr=False)
    # The one path that swaps the shared recognizer (recognizer_version.apply_active) holds this lock.
    recognizer_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    recognizer_version: int | None = field(default=None, init=False)  # studio version in use; None: packaged
    # The stop flag of each browser session whose columns are answering now (Send, Re-answer, an example),
    # from the start of the event to its last view: the Stop button sets it, and Send refuses a new
    # message while it is here (Gradio drops a second run of the reply event while the first is
    # pending, so a message accepted then would vanish).
    _stops: dict[str, threading.Event] = field(default_factory=dict, init=False, repr=False)
    _stops_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    # Chats first: Compare's replies hold it as chats, an Inspect trace takes each turn as background work.
    gate: ModelGate = field(default_factory=ModelGate, init=False, repr=False)

    @contextmanager
    def replying(self, session_hash: str | None) -> Iterator[threading.Event]:
        """This browser session's columns answer while the block runs; yields the flag Stop sets."""
        stop = threading.Event()
        if session_hash:
            with self._stops_lock:
                self._stops[session_hash] = stop
        try:
            yield stop
        finally:
            if session_hash:
                with self._stops_lock:
                    if self._stops.get(session_hash) is stop:
                        del self._stops[session_hash]

    def is_replying(self, session_hash: str | None) -> bool:
        with self._stops_lock:
            return bool(session_hash) and session_hash in self._stops

    def request_stop(self, session_hash: str | None) -> bool:
        """The Stop button: end this browser session's streaming replies (nothing of the turn is stored).
        Returns whether its columns were answering."""
        event = None
        if session_hash:
            with self._stops_lock:
                event = self._stops.get(session_hash)
            if event is not None:
                event.set()
        return event is not None

    @property
    def config(self) -> REAConfig:
        """REA's method settings: the thresholds the sliders start from, IM's capacity."""
        return self.settings.rea

    @property
    def runtime(self) -> RuntimeConfig:
        """How the app serves: the settings' runtime under the limits' token cap and reply budget."""
        return self.limits.serve(self.settings.runtime)

    @property
    def limits(self) -> Limits:
        """Per-request bounds (REA_MAX_TURNS, REA_QUEUE_SIZE, ...)."""
        return self.settings.limits

    @property
    def concurrency(self) -> int:
        """Model calls at once; the rest wait in Gradio's queue."""
        return self.settings.app.concurrency

    @cached_property
    def downloads(self):
        """Saved conversations and marks exports: an owner-only folder, files aged out (app.tempfiles)."""
        from .tempfiles import Downloads

        return Downloads(self.limits.temp_file_ttl_s)

    @cached_property
    def session_marks(self):
        """Inspect marks each browser session has stored, held to ``Limits.marks_per_session``."""
        from .tabs.inspect.quota import SessionMarks

        return SessionMarks(self.limits.marks_per_session)

    @cached_property
    def session_state(self):
        """Every session's heavy values (loaded files, traces) under one memory cap and time limit
        (app.session_state); the KV prefix cache counts toward the cap."""
        from .session_state import SessionStore

        limits = self.limits
        return SessionStore(
            int(limits.session_state_mb * 2**20), limits.session_state_ttl_s, reserved=self.kv_cache_bytes
        )

    def kv_cache_bytes(self) -> int:
        """Bytes the generator's KV prefix cache holds now (0 for a backend without one)."""
        cache = getattr(self.models.generator, "prefix_cache", None)
        return 0 if cache is None else sum(cache.usage().values())

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs) -> "AppEngine":
        """Load the models ``settings`` name (the packaged offline models by default)."""
        from rea_core import load_models

        models = load_models(
            **settings.models.load_kwargs(), cache_limits=settings.limits.cache_limits(), openai=settings.openai
        )
        return cls(models=models, settings=settings, **kwargs)

    def strategy_names(self) -> list[str]:
        return available_strategies()

    def strategy(self, name: str, thresholds: Thresholds | None = None, *, form: str = "auto") -> Strategy:
        """The named strategy on the shared models, at ``thresholds`` (None: the configured ones) and reply
        form ("auto": the configured one; "latent" / "text": REA's compressed replies switched). Built once
        per name; other thresholds or forms are the same strategy deciding differently, nothing rebuilt."""
        if form not in REPLY_FORMS:
            raise ValueError(f"reply form must be one of {', '.join(REPLY_FORMS)}; got {form!r}")
        if name not in self._strategies:
            self._strategies[name] = build_from_settings(name, self.models, self.settings, served=True)
        strategy = self._strategies[name]
        if form != "auto":
            strategy = strategy.with_reply_form(form)
        return strategy if thresholds is None else strategy.with_thresholds(thresholds)

    def column_strategy(self, column: ColumnState, thresholds: Thresholds | None = None) -> Strategy:
        """A column's strategy under its reply-form control."""
        return self.strategy(column.strategy, thresholds, form=column.reply_form)

    def latent_shape(self) -> tuple[int, int, int] | None:
        """(n_latent, max_chunks, hidden_size) of the loaded codec, the only latents a loaded file may carry."""
        codec = self.models.codec
        return None if codec is None else (codec.spec.n_latent, codec.spec.max_chunks, codec.spec.hidden_size)

    def new_column(self, name: str) -> ColumnState:
        return ColumnState(strategy=name, session=self.strategy(name).new_session())

    @cached_property
    def recognizer_validation(self):
        """The validation set every recognizer version is compared on, with its measurements kept."""
        from annotations.training import Validation

        return Validation(self.models.embedder)

    @cached_property
    def db(self):
        """Session factory of the annotations database, migrated to the latest schema on first use."""
        from annotations import create_db_engine, session_factory, upgrade

        engine = create_db_engine(self.database_url or self.settings.store.database_url)
        upgrade(engine)
        return session_factory(engine)
