"""REA Studio annotation store: human labels and marks for REA's recognizer and HCR.

A thin client of `rea_core` holding two kinds of human judgement:

* Retrieval-failure marks: which exchanges Heuristic Context Retrieval omitted although a
  later query needed them, so thresholds (tau_low, tau_high) can be re-tuned and marks
  become retrieval test cases (`store`, re-exported here).
* The annotation studio (REA paper, sections 3.3 and D.1-D.3): candidate inputs labeled
  global / task / ordinary with history and undo (`store_items`), agreement, adjudication
  and recognizer versions trained from the labels (`store_review`, `agreement`,
  `training`), queue modes that find recognizer errors (`triage`), imports and exports
  (`io`) and the packaged seed pool (`seed`).

`models` holds the SQLAlchemy models; `db` the engine factory, the transaction helpers every
store module uses (`reading`, `writing`, `retrying`) and the migrations.

Example:
    >>> from annotations import create_db_engine, session_factory, upgrade, list_failure_marks
    >>> engine = create_db_engine()          # REA_DATABASE_URL or ~/.local/share/rea-studio
    >>> upgrade(engine)
    >>> with session_factory(engine)() as db:
    ...     marks = list_failure_marks(db)
"""

from .db import StoreError, create_db_engine, database_url, session_factory, upgrade
from .marks import (
    add_failure_mark,
    delete_failure_mark,
    export_failure_marks_jsonl,
    list_failure_marks,
    mark_to_dict,
)
from .models import Base, RetrievalFailureMark

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
