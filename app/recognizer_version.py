"""Which recognizer version every chat runs: the one the annotations database marks active, else the
packaged one (REA paper, D.3). ``app.main`` applies it at startup and the Review tab after "use"; both
call ``apply_active`` here, so the startup path does not reach into a tab.
"""

from __future__ import annotations

from .state import AppEngine
from .store_guard import guard


def apply_active(engine: AppEngine) -> str:
    """Point the app's REA recognizer at the version the database marks active (or the packaged one).

    The only place the shared recognizer changes: at startup and after "use", each under
    ``engine.recognizer_lock``, so two switches never interleave.

    Returns:
        What is in use now, in words: ``"version 3"`` or ``"packaged (trained stage 2)"``.

    Raises:
        StoreUnavailable: The database could not be read (a ``REAError``); nothing changed.
    """
    from annotations import store_review
    from annotations.training import load_version

    def active():
        with engine.db() as db:
            return store_review.active_version(db)

    with engine.recognizer_lock:
        found = guard(active, "active recognizer version not loaded")
        recognizer = engine.strategy("rea").recognizer
        if found is None:
            recognizer.use_trained(None)  # back to the packaged stage 2 (the shipped trained classifier by default)
            engine.recognizer_version = None
            return f"packaged ({recognizer.stage2} stage 2)"
        recognizer.use_trained(load_version(engine.db, found.id), engine.models.embedder)
        engine.recognizer_version = found.id
        return f"version {found.id}"
