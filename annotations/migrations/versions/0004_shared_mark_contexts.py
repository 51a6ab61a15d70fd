"""Marks' conversation contexts stored once: a `mark_contexts` table (a sha256 hash chain of turns,
annotations.contexts) that marks reference by key, instead of a copy of the whole conversation in
every mark. Existing contexts move into it, and back on downgrade, with the same JSON text.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-10
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from annotations.contexts import load_contexts, parse_turns, store_context

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MARKS = "retrieval_failure_marks"
FK_MARK = "fk_retrieval_failure_marks_context_sha256_mark_contexts"
# The tables as this revision knows them (never the current models, which may move on).
contexts = sa.table(
    "mark_contexts", sa.column("sha256", sa.String), sa.column("parent", sa.String), sa.column("turn", sa.Text)
)


def marks(*names: str) -> sa.TableClause:
    return sa.table(MARKS, sa.column("id", sa.Integer), *(sa.column(n) for n in names))


def upgrade() -> None:
    op.create_table(
        "mark_contexts",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("parent", sa.String(length=64), nullable=True),
        sa.Column("turn", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["parent"], ["mark_contexts.sha256"], name="fk_mark_contexts_parent_mark_contexts"),
        sa.PrimaryKeyConstraint("sha256", name="pk_mark_contexts"),
    )
    with op.batch_alter_table(MARKS) as batch:
        batch.add_column(sa.Column("context_sha256", sa.String(length=64), nullable=True))
        batch.create_foreign_key(FK_MARK, "mark_contexts", ["context_sha256"], ["sha256"])
    bind = op.get_bind()
    table = marks("context", "context_sha256")
    ids = bind.execute(sa.select(table.c.id).where(table.c.context.is_not(None)).order_by(table.c.id)).scalars().all()
    for mark_id in ids:  # one mark at a time: a context may be hundreds of KB
        text = bind.execute(sa.select(table.c.context).where(table.c.id == mark_id)).scalar_one()
        try:
            turns = parse_turns(text)
        except TypeError as exc:
            raise RuntimeError(f"retrieval-failure mark {mark_id}: {exc}; fix or clear its context, then upgrade") from None
        key = None if turns is None else store_context(bind, turns, contexts)
        bind.execute(sa.update(table).where(table.c.id == mark_id).values(context_sha256=key))
    with op.batch_alter_table(MARKS) as batch:
        batch.drop_column("context")


def downgrade() -> None:
    with op.batch_alter_table(MARKS) as batch:
        batch.add_column(sa.Column("context", sa.Text(), nullable=True))
    bind = op.get_bind()
    table = marks("context", "context_sha256")
    rows = bind.execute(sa.select(table.c.id, table.c.context_sha256).where(table.c.context_sha256.is_not(None)))
    for mark_id, key in rows.all():
        text = load_contexts(bind, {key}, contexts)[key]
        bind.execute(sa.update(table).where(table.c.id == mark_id).values(context=text))
    with op.batch_alter_table(MARKS) as batch:
        batch.drop_constraint(FK_MARK, type_="foreignkey")
        batch.drop_column("context_sha256")
    op.drop_table("mark_contexts")
