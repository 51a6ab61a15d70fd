"""Engine factory, session factory, transaction helpers and migrations for the annotation store.

Nothing here runs at import: callers build an engine with `create_db_engine`,
bring its schema to head with `upgrade`, and pass sessions from
`session_factory` to the functions in `annotations.marks`, `store_items` and
`store_review`, which run every query inside `reading` or `writing` (and
`retrying` for a write that may lose a unique-key race).

Example:
    >>> engine = create_db_engine("sqlite:////tmp/rea-studio.db")
    >>> upgrade(engine)
    >>> Session = session_factory(engine)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from rea_core.settings import StoreSettings

if TYPE_CHECKING:  # alembic loads only when migrating
    from alembic.config import Config

DEFAULT_DB_FILENAME = "rea-studio.db"
# How long a writer waits for another writer's lock before giving up; long
# enough to ride out a concurrent commit, short enough to report a stuck lock.
DEFAULT_BUSY_TIMEOUT_MS = 5000
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# Execution option a writer sets on its connection to take SQLite's write lock up front.
IMMEDIATE_OPTION = "rea_sqlite_immediate"


SUPPORTED_BACKENDS = ("sqlite", "postgresql")
URL_HINT = "sqlite:////path/to/file.db or postgresql+psycopg://user:password@host:5432/db"


class StoreError(RuntimeError):
    """The store could not reach or lock its database.

    ``str(exc)`` is for the operator (CLI, server log): it may name the host, never the password.
    ``visitor_message`` is what the app shows a visitor: no host, user or database name.
    """

    def __init__(self, message: str, *, visitor_message: str | None = None):
        super().__init__(message)
        self.visitor_message = (
            visitor_message
            or "The annotations database is locked or unreachable; nothing was saved. Try again in a moment."
        )


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
    store = StoreSettings.current()
    if store.database_url:
        return store.database_url
    data_dir = store.data_dir.resolve()
    if not data_dir.exists():
        data_dir.mkdir(parents=True, mode=0o700)  # owner-only: it holds everyone's labels
    return f"sqlite:///{data_dir / DEFAULT_DB_FILENAME}"


def parse_url(url: str | URL) -> URL:
    """A database URL checked before any connection: parseable, and a backend this store supports.

    Raises:
        StoreError: naming what is wrong, never repeating the value (it may hold a password).
    """
    from sqlalchemy.exc import ArgumentError

    try:
        resolved = make_url(url)
    except (ArgumentError, ValueError):
        raise StoreError(f"the database URL (--db / REA_DATABASE_URL) is not a URL; use {URL_HINT}") from None
    if resolved.get_backend_name() not in SUPPORTED_BACKENDS:
        raise StoreError(f"database backend {resolved.get_backend_name()!r} is not supported; use {URL_HINT}")
    return resolved


def _owner_only_file(url: URL) -> None:
    """Create a SQLite database file readable by its owner only (SQLite gives its -wal and -shm files
    the same mode); an existing file of ours is tightened to 0600."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if not path.parent.is_dir():
        return  # SQLite reports the missing folder on connect
    try:
        if not path.exists():
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        elif path.stat().st_uid == os.getuid():
            path.chmod(0o600)
    except OSError:
        pass  # read-only location: SQLite's own error on connect says so


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
    from sqlalchemy.exc import NoSuchModuleError

    resolved = parse_url(database_url(url))
    if resolved.get_backend_name() != "sqlite":
        try:
            return create_engine(resolved, pool_pre_ping=True)
        except (NoSuchModuleError, ImportError) as exc:
            raise StoreError(f"no driver for {resolved.drivername!r} is installed ({exc}); use {URL_HINT}") from None
    _owner_only_file(resolved)

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


T = TypeVar("T")


def store_error(db: Session, exc: OperationalError, outcome: str) -> StoreError:
    """A driver error as `StoreError`: the operator's message names the database (never its password),
    the visitor's only the outcome (e.g. "nothing was saved")."""
    return StoreError(
        f"The database at {safe_url(db.get_bind().url)} is locked or unreachable: {exc.orig}; {outcome}. Try again.",
        visitor_message=f"The annotations database is locked or unreachable; {outcome}. Try again.",
    )


@contextmanager
def writing(db: Session, outcome: str = "nothing was saved") -> Iterator[None]:
    """One write transaction: BEGIN IMMEDIATE on SQLite, commit at the end, roll back on any error.

    Raises:
        StoreError: The database is locked or unreachable; nothing of the block was saved (``outcome``).
    """
    try:
        if db.in_transaction():  # end an earlier read so this write can BEGIN IMMEDIATE
            db.commit()
        db.connection(execution_options={IMMEDIATE_OPTION: True})
        yield
        db.commit()
    except OperationalError as exc:
        db.rollback()
        raise store_error(db, exc, outcome) from exc
    except BaseException:
        db.rollback()
        raise


@contextmanager
def reading(db: Session, outcome: str = "nothing was loaded") -> Iterator[None]:
    """One read transaction, rolled back at the end so it holds no snapshot (nor, on SQLite, a read lock).

    Objects the block loaded are detached first, fully loaded, so they stay readable after the
    session closes (a rollback would otherwise expire them).

    Raises:
        StoreError: The database is locked or unreachable.
    """
    try:
        yield
    except OperationalError as exc:
        raise store_error(db, exc, outcome) from exc
    finally:
        db.expunge_all()
        db.rollback()


def retrying(write: Callable[[], T], attempts: int = 3) -> T:
    """Run ``write`` (itself one `writing` block) again when it loses a unique-key race.

    Two writers may both find no row for a key and both insert it; the loser's transaction was
    rolled back whole by `writing`, so running ``write`` again finds the winner's row.

    Raises:
        IntegrityError: Still violated after ``attempts`` tries (a real constraint error).
    """
    for attempt in range(attempts):
        try:
            return write()
        except IntegrityError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


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
        StoreError: The database is locked or unreachable, or not a database of this store.
    """
    from alembic import command
    from alembic.util import CommandError
    from sqlalchemy.exc import DatabaseError, OperationalError

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
            "its schema was not updated. Try again.",
            visitor_message="The annotations database is unreachable; "
            "nothing can be saved right now. Try again later.",
        ) from exc
    except (DatabaseError, CommandError) as exc:  # a file that is no SQLite database, or another app's schema
        raise StoreError(
            f"{safe_url(engine.url)} is not an annotations database ({str(getattr(exc, 'orig', exc))[:120]}); "
            "point --db / REA_DATABASE_URL at a new file or the studio's database",
            visitor_message="The annotations database cannot be used; nothing can be saved right now.",
        ) from exc
    finally:
        if owns_engine:
            engine.dispose()
