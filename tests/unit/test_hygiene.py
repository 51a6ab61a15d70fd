"""Files the server leaves behind and where it listens: download files age out in an owner-only
folder (on a timer, and all of them at exit, SIGTERM included), every export is owner-only, the
SQLite database and its default folder are owner-only, the Docker context skips local data, and
the app listens on loopback unless sign-in is configured or a host is given."""

import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from test_authorization import _trace

from annotations import create_db_engine, export_failure_marks_jsonl, upgrade
from annotations.db import database_url
from app.tempfiles import Downloads
from rea_core import Thresholds


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


def test_downloads_are_swept_on_a_timer_without_a_new_save():
    downloads = Downloads(ttl_s=0.2, sweep_every_s=0.05)
    handle, path = downloads.new_file("rea-conversation-", ".json")
    handle.close()
    deadline = time.monotonic() + 5
    while Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(path).exists() and downloads.root.is_dir()  # swept by the timer; the folder stays
    root = downloads.root
    downloads.close()
    assert not root.exists()


SIGTERM_CHILD = """
import signal, sys, time
from pathlib import Path
from app.tempfiles import Downloads, exit_on_sigterm

signal.signal(signal.SIGTERM, lambda *_: Path(sys.argv[1]).write_text("earlier handler ran"))
assert exit_on_sigterm() and not exit_on_sigterm()  # installed once
downloads = Downloads(ttl_s=3600)
handle, path = downloads.new_file("rea-conversation-", ".json")
handle.write("{}")
handle.close()
print(downloads.root, flush=True)
time.sleep(60)
"""


def test_sigterm_removes_the_download_folder_and_runs_the_earlier_handler(tmp_path):
    marker = tmp_path / "marker"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-c", SIGTERM_CHILD, str(marker)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        root = Path(child.stdout.readline().strip())
        assert root.is_dir() and any(root.iterdir())
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=20) == 128 + signal.SIGTERM
    finally:
        child.kill()
    assert not root.exists()
    assert marker.read_text() == "earlier handler ran"


def test_every_export_is_owner_only_whatever_the_umask(tmp_path, monkeypatch):
    from gradio.processing_utils import save_file_to_cache

    from annotations.io import write_export
    from app.state import AppEngine
    from app.tabs.inspect import handlers as ih

    old = os.umask(0o022)
    try:
        engine = AppEngine(models=None, database_url=f"sqlite:///{tmp_path / 'app.db'}")
        ih.mark_needed(engine, _trace(), 1, 0, "", Thresholds(0.5, 0.7), annotator="anonymous")
        exported = ih.export_marks(engine, engine.downloads.new_dir("rea-marks-"))
        assert _mode(exported) == 0o600 and Path(exported).read_text(encoding="utf-8").count("\n") == 1
        # Gradio serves a copy from its cache; the copy keeps the mode (the 0644 copy of the review).
        assert _mode(save_file_to_cache(exported, str(tmp_path / "gradio-cache"))) == 0o600
        stale = tmp_path / "marks.jsonl"
        stale.write_text("")
        stale.chmod(0o644)
        with engine.db() as db:
            export_failure_marks_jsonl(db, stale)  # an existing file is tightened too
        assert _mode(stale) == 0o600
        for fmt in ("jsonl", "csv", "parquet"):  # the annotations' exports
            write_export([], tmp_path / f"labels.{fmt}", fmt)
            assert _mode(tmp_path / f"labels.{fmt}") == 0o600, fmt
        engine.downloads.close()
    finally:
        os.umask(old)


def test_app_listens_on_loopback_unless_sign_in_is_configured_or_a_host_is_given(monkeypatch):
    from app import annotate_auth as auth
    from app.main import listen_host
    from rea_core import Settings

    for name in ("REA_AUTH", "REA_AUTH_FILE", "SPACE_ID", "OAUTH_CLIENT_ID"):
        monkeypatch.delenv(name, raising=False)
    assert Settings.from_env({}).app.host is None  # no default interface: listen_host decides
    assert listen_host(None, sign_in=auth.sign_in_configured())[0] == "127.0.0.1"
    monkeypatch.setenv("REA_AUTH", "alice:pw")
    assert listen_host(None, sign_in=auth.sign_in_configured()) == (
        "0.0.0.0",
        "sign-in is configured (REA_AUTH, REA_AUTH_FILE or Hugging Face OAuth)",
    )
    explicit = Settings.from_env({"GRADIO_SERVER_NAME": "0.0.0.0"}).app.host
    assert listen_host(explicit, sign_in=False) == ("0.0.0.0", "set by --host or GRADIO_SERVER_NAME")
    assert listen_host("::1", sign_in=True)[0] == "::1"


GRADIO_CHILD = """
import sys, time
import gradio as gr
from app.tempfiles import exit_on_sigterm, gradio_cache_folder

exit_on_sigterm()
folder = gradio_cache_folder()
with gr.Blocks() as demo:
    gr.File()
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), prevent_thread_lock=True, quiet=True)
print(folder, flush=True)
time.sleep(60)
"""


def test_gradios_upload_cache_is_this_processes_and_goes_at_exit(tmp_path):
    """An upload lands in a folder of this process's own (not the shared ``/tmp/gradio``); SIGTERM removes
    it, and a folder a killed process left behind is removed by the next one."""
    import httpx

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from app.tempfiles import process_folder
    from tests.conftest import _free_port

    left = Path(tempfile.gettempdir()) / "rea-studio-gradio-999999999-left"  # no such pid: a killed run's
    left.mkdir(exist_ok=True)
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "GRADIO_ANALYTICS_ENABLED": "False"}
    env.pop("GRADIO_TEMP_DIR", None)
    child = subprocess.Popen(
        [sys.executable, "-c", GRADIO_CHILD, str(port)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        folder = Path(child.stdout.readline().strip())
        assert folder.name.startswith(f"rea-studio-gradio-{child.pid}-") and not left.exists()
        sent = httpx.post(f"http://127.0.0.1:{port}/gradio_api/upload", files={"files": ("notes.txt", b"private")})
        (stored,) = sent.json()
        assert Path(stored).resolve().is_relative_to(folder.resolve()) and Path(stored).read_bytes() == b"private"
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
    finally:
        child.kill()
    assert not folder.exists()
    mine = process_folder("gradio")  # this process's: alive, so a later start leaves it alone
    process_folder("gradio")
    assert mine.is_dir()
