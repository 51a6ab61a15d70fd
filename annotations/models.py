"""SQLAlchemy models for human annotations of REA's Heuristic Context Retrieval.

A `RetrievalFailureMark` records that HCR omitted an exchange which a later
query actually needed, together with the score and thresholds (tau_low,
tau_high) in force, so misses can be collected and thresholds re-tuned.
Schema changes go through `annotations/migrations`, never `create_all`.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import DateTime, Float, Integer, MetaData, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Deterministic constraint names: Alembic batch mode on SQLite needs names to
# find constraints again, and migrations must spell the same names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utc_now() -> datetime:
    """Current time as a timezone-aware UTC datetime."""
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """DateTime that always stores UTC and always loads timezone-aware values.

    SQLite keeps no zone, so without this a value would come back naive.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("UTCDateTime needs a timezone-aware datetime")
        return value.astimezone(timezone.utc)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base for every annotation model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class RetrievalFailureMark(Base):
    """A human's mark that HCR omitted an exchange a query needed.

    The unique key (annotator, conversation_id, query_turn, exchange_turn)
    makes marking the same miss twice update one row instead of adding two.
    """

    __tablename__ = "retrieval_failure_marks"
    __table_args__ = (
        # Named explicitly: the conventional name would pass PostgreSQL's 63-character limit.
        UniqueConstraint(
            "annotator", "conversation_id", "query_turn", "exchange_turn", name="uq_retrieval_failure_marks_key"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utc_now)
    annotator: Mapped[str | None] = mapped_column(String(200))  # who marked; may be "anonymous"
    conversation_id: Mapped[str] = mapped_column(String(200), index=True)
    query_turn: Mapped[int] = mapped_column(Integer)  # turn whose query needed the exchange
    exchange_turn: Mapped[int] = mapped_column(Integer)  # omitted exchange that was needed
    query_text: Mapped[str] = mapped_column(Text)
    exchange_user: Mapped[str] = mapped_column(Text)
    exchange_reply: Mapped[str] = mapped_column(Text)
    score: Mapped[float | None] = mapped_column(Float)  # HCR score the exchange got
    tau_low: Mapped[float] = mapped_column(Float)
    tau_high: Mapped[float] = mapped_column(Float)
    note: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(500))  # file name or "bundled:examples"

    def __repr__(self) -> str:
        return (
            f"RetrievalFailureMark(id={self.id!r}, conversation_id={self.conversation_id!r}, "
            f"query_turn={self.query_turn!r}, exchange_turn={self.exchange_turn!r})"
        )
