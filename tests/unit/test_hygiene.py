"""Files the server leaves behind: download files age out in an owner-only folder, the
SQLite database and its default folder are owner-only, and the Docker context skips local data."""

import os
import stat
import time
from pathlib import Path

from annotations import create_db_engine, upgrade
from annotations.db import database_url
from app.tempfiles import Downloads


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_downloads_are_owner_only_and_removed_after_their_time(tmp_path):
    downloads = Downloads(ttl_s=60)
    handle, old = downloads.new_file("rea-conversation-", ".json")
    with handle:
        handle.write("{}")
    folder = downloads.new_dir("rea-marks-")
    assert _mode(downloads.root) == 0o700 and _mode(old) == 0o600
    past = time.time() - 120
    os.utime(old, (past, past))
    _, fresh = downloads.new_file("rea-conversation-", ".json")  # making a new one sweeps the old
    assert not Path(old).exists() and Path(fresh).exists() and Path(folder).exists()
    assert downloads.sweep(now=time.time() + 120) == 2


def test_sqlite_database_and_default_folder_are_owner_only(tmp_path, monkeypatch):
    monkeypatch.delenv("REA_DATABASE_URL", raising=False)
    monkeypatch.setenv("REA_DATA_DIR", str(tmp_path / "data"))
    url = database_url()
    engine = create_db_engine(url)
    upgrade(engine)
    engine.dispose()
    assert _mode(tmp_path / "data") == 0o700
    assert _mode(tmp_path / "data" / "rea-studio.db") == 0o600
    existing = tmp_path / "old.db"
    existing.touch(mode=0o644)
    create_db_engine(f"sqlite:///{existing}").dispose()
    assert _mode(existing) == 0o600


def test_dockerignore_keeps_local_data_out_of_the_image():
    ignored = (Path(__file__).resolve().parents[2] / ".dockerignore").read_text().split()
    for pattern in ("runs", "build", ".cache", "*.db", ".env", ".venv"):
        assert pattern in ignored
