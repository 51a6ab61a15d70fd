"""REA Studio annotation store: human marks of Heuristic Context Retrieval misses.

A thin client of `rea_core`: it records which exchanges HCR omitted although
a later query needed them, so thresholds (tau_low, tau_high) can be re-tuned.
`models` holds the SQLAlchemy models, `store` every query, `db` the engine
factory and migrations.

Example:
    >>> from annotations import create_db_engine, session_factory, upgrade, list_failure_marks
    >>> engine = create_db_engine()          # REA_DATABASE_URL or ~/.local/share/rea-studio
    >>> upgrade(engine)
    >>> with session_factory(engine)() as session:
    ...     marks = list_failure_marks(session)
"""

from .db import StoreError, create_db_engine, database_url, session_factory, upgrade
from .models import Base, RetrievalFailureMark
from .store import (
    add_failure_mark,
    delete_failure_mark,
    export_failure_marks_jsonl,
    list_failure_marks,
    mark_to_dict,
)

__all__ = [
    "Base",
    "RetrievalFailureMark",
    "StoreError",
    "add_failure_mark",
    "create_db_engine",
    "database_url",
    "delete_failure_mark",
    "export_failure_marks_jsonl",
    "list_failure_marks",
    "mark_to_dict",
    "session_factory",
    "upgrade",
]
