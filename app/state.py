"""What the app holds: one shared ``AppEngine`` (models, strategies, database) and, per browser
session and column, a ``ColumnState`` (that column's strategy name and its own ChatSession).

Nothing conversation-specific lives in the engine, so one user's chat never reaches another's.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from rea_core import REAConfig, ChatSession, Models, Strategy, TurnResult, available_strategies, build_strategy
from rea_core.config import LATENT_CHOICE
from rea_core.limits import Limits

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ColumnState:
    """One Compare column in one browser session."""

    strategy: str
    session: ChatSession
    last: TurnResult | None = None  # the latest generated turn, for the prompt view and live thresholds
    last_thresholds: tuple[float, float] | None = None
    error: str = ""
    compressed_form: str = "auto"  # REA's compressed band: "auto" (measured best), "latent" or "text" (the app's form control)


@dataclass
class AppEngine:
    """Models and settings shared by every session; builds strategies and the database on demand."""

    models: Models
    config: REAConfig = field(default_factory=REAConfig)
    database_url: str | None = None
    concurrency: int = 1  # model calls at once; the rest wait in Gradio's queue
    examples_dir: Path = REPO_ROOT / "examples"
    limits: Limits = field(default_factory=Limits)  # per-request bounds (REA_MAX_TURNS, REA_QUEUE_SIZE, ...)
    _strategies: dict[str, Strategy] = field(default_factory=dict, init=False, repr=False)
    # The one path that swaps the shared recognizer (review_handlers.apply_active) holds this lock.
    recognizer_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    # Stop flags of the replies streaming now, one per browser session (the Stop button sets it); removed when the reply ends.
    _stops: dict[str, threading.Event] = field(default_factory=dict, init=False, repr=False)
    _stops_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def stop_event(self, session_hash: str | None) -> threading.Event:
        """A fresh stop flag for the reply this browser session is about to stream."""
        event = threading.Event()
        if session_hash:
            with self._stops_lock:
                self._stops[session_hash] = event
        return event

    def release_stop_event(self, session_hash: str | None, event: threading.Event) -> None:
        if session_hash:
            with self._stops_lock:
                if self._stops.get(session_hash) is event:
                    del self._stops[session_hash]

    def request_stop(self, session_hash: str | None) -> None:
        """The Stop button: end this browser session's streaming replies (nothing of the turn is stored)."""
        if session_hash:
            with self._stops_lock:
                event = self._stops.get(session_hash)
            if event is not None:
                event.set()

    @cached_property
    def downloads(self):
        """Saved conversations and marks exports: an owner-only folder, files aged out (app.tempfiles)."""
        from .tempfiles import Downloads

        return Downloads(self.limits.temp_file_ttl_s)

    @classmethod
    def from_env(cls, **overrides) -> "AppEngine":
        """Load the models named by flags or REA_* env vars (packaged offline models by default)."""
        from rea_core import load_models

        overrides.setdefault("limits", Limits.from_env())  # a bad REA_* limit stops here, before minutes of model loading
        models = load_models(
            overrides.pop("model", None) or os.environ.get("REA_MODEL", "packaged"),
            overrides.pop("embedder", None) or os.environ.get("REA_EMBEDDER", "packaged"),
            recognizer_model=overrides.pop("recognizer_model", None) or os.environ.get("REA_RECOGNIZER_MODEL"),
            codec=overrides.pop("codec", None) or os.environ.get("REA_CODEC", "auto"),
            tokenizer=overrides.pop("tokenizer", None) or os.environ.get("REA_TOKENIZER"),
            cache_limits=overrides["limits"].cache_limits(),
        )
        config = REAConfig.from_env(
            tau_low=overrides.pop("tau_low", None),
            tau_high=overrides.pop("tau_high", None),
            **{name: overrides.pop(name, None) for name in ("recent_raw", "recent_raw_tokens", "recent_compressed")},
            max_new_tokens=overrides.pop("max_new_tokens", None) or int(os.environ.get("REA_MAX_NEW_TOKENS", "128")),
            # Chat servers reuse the KV prefix; the app does too unless REA_KV_REUSE=0 (see BENCHMARKS, serving).
            kv_reuse=overrides.pop("kv_reuse", None) if "kv_reuse" in overrides else os.environ.get("REA_KV_REUSE", "1").strip().lower() not in ("0", "false", "no", "off"),
        )
        database_url = overrides.pop("database_url", None) or os.environ.get("REA_DATABASE_URL")
        concurrency = overrides.pop("concurrency", None) or int(os.environ.get("REA_APP_CONCURRENCY", "1"))
        return cls(models=models, config=config, database_url=database_url, concurrency=concurrency, **overrides)

    def strategy_names(self) -> list[str]:
        return available_strategies()

    def strategy(self, name: str, *, tau_low: float | None = None, tau_high: float | None = None, form: str = "auto") -> Strategy:
        """The named strategy on the shared models, at the given thresholds and compressed form
        ("auto": the config's; "latent" / "text": REA's compressed band switched), no model reloaded."""
        if form not in LATENT_CHOICE:
            raise ValueError(f"compressed form must be one of {', '.join(LATENT_CHOICE)}; got {form!r}")
        if name not in self._strategies:
            self._strategies[name] = build_strategy(name, self.models, self.config)
        base = self._strategies[name]
        config = base.config if form == "auto" else replace(base.config, latent_replies=LATENT_CHOICE[form])
        if tau_low is not None or tau_high is not None:
            config = config.with_thresholds(base.config.tau_low if tau_low is None else tau_low, base.config.tau_high if tau_high is None else tau_high)
        return base if config is base.config else base.with_config(config)

    def column_strategy(self, column: ColumnState, *, tau_low: float | None = None, tau_high: float | None = None) -> Strategy:
        """A column's strategy under its compressed-form control."""
        return self.strategy(column.strategy, tau_low=tau_low, tau_high=tau_high, form=column.compressed_form)

    def latent_shape(self) -> tuple[int, int, int] | None:
        """(n_latent, max_chunks, hidden_size) of the loaded codec, the only latents a loaded file may carry."""
        codec = self.models.codec
        return None if codec is None else (codec.spec.n_latent, codec.spec.max_chunks, codec.spec.hidden_size)

    def new_column(self, name: str) -> ColumnState:
        return ColumnState(strategy=name, session=self.strategy(name).new_session())

    @cached_property
    def db(self):
        """Session factory of the annotations database, migrated to the latest schema on first use."""
        from annotations import create_db_engine, session_factory, upgrade

        engine = create_db_engine(self.database_url)
        upgrade(engine)
        return session_factory(engine)
