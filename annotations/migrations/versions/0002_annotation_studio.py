"""Annotation studio: annotators, items, label history and current labels, adjudications,
import batches and trained recognizer versions.

Revision ID: 0002
Revises: 0001
Create Date: 2025-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the studio's tables with the names the models' naming convention gives."""
    op.create_table(
        "annotators",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_annotators"),
        sa.UniqueConstraint("name", name="uq_annotators_name"),
    )
    op.create_table(
        "import_batches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("annotator", sa.String(length=200), nullable=True),
        sa.Column("n_rows", sa.Integer(), nullable=False),
        sa.Column("n_new_items", sa.Integer(), nullable=False),
        sa.Column("n_labels", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_import_batches"),
    )
    op.create_table(
        "items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_hash", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=200), nullable=False),
        sa.Column("context", sa.Text(), nullable=True),
        sa.Column("batch_id", sa.Integer(), nullable=True),
        sa.Column("double", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("score_version", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["batch_id"], ["import_batches.id"], name="fk_items_batch_id_import_batches"),
        sa.PrimaryKeyConstraint("id", name="pk_items"),
        sa.UniqueConstraint("text_hash", name="uq_items_text_hash"),
    )
    op.create_table(
        "label_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=10), nullable=False),
        sa.Column("label", sa.String(length=20), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("shown_score", sa.Float(), nullable=True),
        sa.Column("undone", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name="fk_label_events_item_id_items"),
        sa.ForeignKeyConstraint(["annotator_id"], ["annotators.id"], name="fk_label_events_annotator_id_annotators"),
        sa.PrimaryKeyConstraint("id", name="pk_label_events"),
    )
    op.create_index("ix_label_events_item_id", "label_events", ["item_id"])
    op.create_index("ix_label_events_annotator_id", "label_events", ["annotator_id"])
    op.create_table(
        "current_labels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=20), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name="fk_current_labels_item_id_items"),
        sa.ForeignKeyConstraint(["annotator_id"], ["annotators.id"], name="fk_current_labels_annotator_id_annotators"),
        sa.ForeignKeyConstraint(["event_id"], ["label_events.id"], name="fk_current_labels_event_id_label_events"),
        sa.PrimaryKeyConstraint("id", name="pk_current_labels"),
        sa.UniqueConstraint("item_id", "annotator_id", name="uq_current_labels_item_annotator"),
    )
    op.create_index("ix_current_labels_item_id", "current_labels", ["item_id"])
    op.create_table(
        "adjudications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=20), nullable=False),
        sa.Column("adjudicator", sa.String(length=200), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name="fk_adjudications_item_id_items"),
        sa.PrimaryKeyConstraint("id", name="pk_adjudications"),
        sa.UniqueConstraint("item_id", name="uq_adjudications_item_id"),
    )
    op.create_table(
        "recognizer_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("n_labels", sa.Integer(), nullable=False),
        sa.Column("model_json", sa.Text(), nullable=False),
        sa.Column("metrics_json", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_recognizer_versions"),
    )


def downgrade() -> None:
    """Drop the studio's tables, dependents first."""
    op.drop_table("recognizer_versions")
    op.drop_table("adjudications")
    op.drop_index("ix_current_labels_item_id", table_name="current_labels")
    op.drop_table("current_labels")
    op.drop_index("ix_label_events_annotator_id", table_name="label_events")
    op.drop_index("ix_label_events_item_id", table_name="label_events")
    op.drop_table("label_events")
    op.drop_table("items")
    op.drop_table("import_batches")
    op.drop_table("annotators")
