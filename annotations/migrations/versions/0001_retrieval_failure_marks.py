"""Create retrieval_failure_marks: human marks of exchanges HCR wrongly omitted.

Revision ID: 0001
Revises:
Create Date: 2025-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table, its conversation index and its unique mark key."""
    op.create_table(
        "retrieval_failure_marks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("annotator", sa.String(length=200), nullable=True),
        sa.Column("conversation_id", sa.String(length=200), nullable=False),
        sa.Column("query_turn", sa.Integer(), nullable=False),
        sa.Column("exchange_turn", sa.Integer(), nullable=False),
        sa.Column("query_text", sa.Text(), nullable=False),
        sa.Column("exchange_user", sa.Text(), nullable=False),
        sa.Column("exchange_reply", sa.Text(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("tau_low", sa.Float(), nullable=False),
        sa.Column("tau_high", sa.Float(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_retrieval_failure_marks"),
        sa.UniqueConstraint(
            "annotator",
            "conversation_id",
            "query_turn",
            "exchange_turn",
            name="uq_retrieval_failure_marks_key",
        ),
    )
    op.create_index(
        "ix_retrieval_failure_marks_conversation_id",
        "retrieval_failure_marks",
        ["conversation_id"],
        unique=False,
    )


def downgrade() -> None:
    """Drop the table and its index."""
    op.drop_index("ix_retrieval_failure_marks_conversation_id", table_name="retrieval_failure_marks")
    op.drop_table("retrieval_failure_marks")
