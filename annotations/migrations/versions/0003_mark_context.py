"""Retrieval-failure marks keep the conversation up to the query (JSON turns), so marks export as
conversation JSONL with "needed" indices that ``rea eval retrieval`` reads.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("retrieval_failure_marks") as batch:
        batch.add_column(sa.Column("context", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("retrieval_failure_marks") as batch:
        batch.drop_column("context")
