"""Alembic environment for the annotation store, configured in code.

`annotations.db.upgrade` builds the `Config` and passes an open connection in
`config.attributes["connection"]`; without one, the URL comes from the
`sqlalchemy.url` option or `annotations.db.database_url()`.
"""

from __future__ import annotations

from alembic import context

from annotations.db import create_db_engine, database_url
from annotations.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return database_url(config.get_main_option("sqlalchemy.url"))


def _configure(**kwargs) -> None:
    # Batch mode lets ALTER-style migrations run on SQLite by copying the table.
    context.configure(target_metadata=target_metadata, render_as_batch=True, compare_type=True, **kwargs)


def run_migrations_offline() -> None:
    """Emit SQL for the URL's dialect without connecting."""
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run migrations on the caller's connection, or on a fresh engine."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
        return

    engine = create_db_engine(_url())
    try:
        with engine.connect() as connection:
            _configure(connection=connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
