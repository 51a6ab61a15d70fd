"""Engine factory, session factory and migrations for the annotation store.

Nothing here runs at import: callers build an engine with `create_db_engine`,
bring its schema to head with `upgrade`, and pass sessions from
`session_factory` to the functions in `annotations.store`.

Example:
    >>> engine = create_db_engine("sqlite:////tmp/rea-studio.db")
    >>> upgrade(engine)
    >>> Session = session_factory(engine)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import sessionmaker

if TYPE_CHECKING:  # alembic loads only when migrating
    from alembic.config import Config

ENV_DATABASE_URL = "REA_DATABASE_URL"
ENV_DATA_DIR = "REA_DATA_DIR"
DEFAULT_DATA_DIR = Path("~/.local/share/rea-studio")
DEFAULT_DB_FILENAME = "rea-studio.db"
# How long a writer waits for another writer's lock before giving up; long
# enough to ride out a concurrent commit, short enough to report a stuck lock.
DEFAULT_BUSY_TIMEOUT_MS = 5000
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# Execution option a writer sets on its connection to take SQLite's write lock up front.
IMMEDIATE_OPTION = "rea_sqlite_immediate"


class StoreError(RuntimeError):
    """The store could not reach or lock its database; the message is for the user."""


def database_url(explicit: str | None = None) -> str:
    """Pick the database URL so the app, CLI and tests agree on one rule.

    Args:
        explicit: A URL given by the caller (e.g. a command-line option).

    Returns:
        `explicit` if given, else env `REA_DATABASE_URL`, else a SQLite file
        `rea-studio.db` in env `REA_DATA_DIR` or `~/.local/share/rea-studio`
        (the directory is created so SQLite can create the file).
    """
    if explicit:
        return explicit
    from_env = os.environ.get(ENV_DATABASE_URL)
    if from_env:
        return from_env
    data_dir = Path(os.environ.get(ENV_DATA_DIR) or DEFAULT_DATA_DIR).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{data_dir / DEFAULT_DB_FILENAME}"


def safe_url(url: str | URL) -> str:
    """Render a URL with its password hidden, for messages shown to users."""
    return make_url(url).render_as_string(hide_password=True)


def create_db_engine(url: str | None = None, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS) -> Engine:
    """Create an engine tuned for several writers (app threads, CLI) on one file.

    SQLite connections get WAL journaling (readers never block the writer),
    a busy timeout (writers queue instead of failing at once) and enforced
    foreign keys. Server databases get `pool_pre_ping` so a dropped
    connection is replaced rather than surfacing as an error.

    Args:
        url: Database URL; resolved through `database_url` when None.
        busy_timeout_ms: How long a SQLite writer waits for a lock.

    Returns:
        A new engine; the caller owns it and should `dispose()` it.
    """
    resolved = make_url(database_url(url))
    if resolved.get_backend_name() != "sqlite":
        return create_engine(resolved, pool_pre_ping=True)

    engine = create_engine(
        resolved,
        # Sessions may be used from Gradio worker threads other than the creator.
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
    )

    @event.listens_for(engine, "connect")
    def _configure_sqlite(dbapi_connection, _connection_record) -> None:
        # SQLAlchemy, not the driver, opens transactions (see _begin), so writers can
        # ask for BEGIN IMMEDIATE and queue on the busy timeout instead of failing when
        # a read snapshot cannot be upgraded to a write.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            # busy_timeout first, so switching to WAL also waits for a lock.
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")  # in-memory databases answer "memory"
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        immediate = connection.get_execution_options().get(IMMEDIATE_OPTION)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def session_factory(engine: Engine) -> sessionmaker:
    """Return a sessionmaker whose objects stay readable after commit.

    `expire_on_commit=False` lets the UI show a mark returned by a store
    function after its session has committed and closed.
    """
    return sessionmaker(bind=engine, expire_on_commit=False)


def alembic_config() -> Config:
    """Build the Alembic `Config` in code, so no alembic.ini or cwd is needed."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")
    return config


def upgrade(engine_or_url: Engine | str | None = None, revision: str = "head") -> None:
    """Migrate the database schema to `revision` (a no-op when already there).

    Args:
        engine_or_url: An engine, a URL, or None for `database_url()`.
        revision: Alembic target revision.

    Raises:
        StoreError: The database is locked or unreachable.
    """
    from alembic import command
    from sqlalchemy.exc import OperationalError

    owns_engine = not isinstance(engine_or_url, Engine)
    engine = create_db_engine(engine_or_url) if owns_engine else engine_or_url
    config = alembic_config()
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    except OperationalError as exc:
        raise StoreError(
            f"The database at {safe_url(engine.url)} is locked or unreachable: {exc.orig}; "
            "its schema was not updated. Try again."
        ) from exc
    finally:
        if owns_engine:
            engine.dispose()
