"""Download files the app writes (saved conversations, exported marks), kept out of the way.

Why: ``tempfile`` files were never removed, so every Save or Export stayed on disk forever. Here
they live in one owner-only (0700) folder per process; each is removed once it is older than
``Limits.temp_file_ttl_s``, checked whenever a new one is made and by a sweeper thread on a timer
(so an app nobody saves in still clears them), and the folder is removed when the process exits,
SIGTERM included (``exit_on_sigterm``: Python runs ``atexit`` on a normal exit only). Gradio's own
cache (uploads, copies of served files) goes to a folder of the same kind (``gradio_cache_folder``),
aged out by ``delete_cache`` in ``app.main`` and removed at exit. A folder a killed process left
behind (SIGKILL runs nothing) is removed by the next process that starts.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

FOLDER_PREFIX = "rea-studio-"


def process_folder(kind: str) -> Path:
    """A fresh owner-only (0700) folder for this process's ``kind`` of files (``rea-studio-<kind>-<pid>-…``
    in the temp folder), removed at exit; the same kind's folders of processes that are gone go first."""
    base = Path(tempfile.gettempdir())
    for stale in base.glob(f"{FOLDER_PREFIX}{kind}-*"):
        pid = stale.name.removeprefix(f"{FOLDER_PREFIX}{kind}-").split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and stale.is_dir() and stale.stat().st_uid == os.getuid():
            shutil.rmtree(stale, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{kind}-{os.getpid()}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def gradio_cache_folder() -> Path:
    """Where Gradio keeps uploads and served copies: ``GRADIO_TEMP_DIR`` when it is set (the
    operator's folder, left as it is), else a ``process_folder`` set as ``GRADIO_TEMP_DIR`` for
    this process, so nothing a visitor uploaded outlives the server (Gradio's default,
    ``/tmp/gradio``, is shared by every run and never removed)."""
    given = os.environ.get("GRADIO_TEMP_DIR")
    if given:
        return Path(given)
    folder = process_folder("gradio")
    os.environ["GRADIO_TEMP_DIR"] = str(folder)
    return folder


def sweep_interval(ttl_s: float) -> float:
    """How often the sweeper looks: a quarter of the time limit, at least a minute (``delete_cache``'s rule)."""
    return max(60.0, ttl_s / 4)


class Downloads:
    """One owner-only folder of short-lived download files, swept on a timer while it exists."""

    def __init__(self, ttl_s: float, sweep_every_s: float | None = None):
        self.ttl_s = ttl_s
        self.sweep_every_s = sweep_interval(ttl_s) if sweep_every_s is None else sweep_every_s
        self._root: Path | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()

    @property
    def root(self) -> Path:
        with self._lock:
            if self._root is None:
                self._root = process_folder("downloads")
                atexit.register(self.close)
                # A daemon thread: it never holds the process open, and it dies with it.
                threading.Thread(target=self._sweep_on_timer, name="rea-downloads-sweeper", daemon=True).start()
            return self._root

    def _sweep_on_timer(self) -> None:
        while not self._closed.wait(self.sweep_every_s):
            self.sweep()

    def sweep(self, now: float | None = None) -> int:
        """Remove entries older than the time limit; returns how many were removed."""
        now = time.time() if now is None else now
        removed, root = 0, self._root
        for entry in list(root.iterdir()) if root is not None and root.is_dir() else ():
            try:
                if now - entry.stat().st_mtime > self.ttl_s:
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
                    removed += 1
            except OSError:
                continue  # removed by a concurrent sweep
        return removed

    def close(self) -> None:
        """Stop the sweeper and remove the folder with everything in it (at exit, or by the owner)."""
        self._closed.set()
        with self._lock:
            if self._root is not None:
                shutil.rmtree(self._root, ignore_errors=True)
                self._root = None

    def new_dir(self, prefix: str) -> str:
        """A fresh folder for one download (old ones are swept first)."""
        self.sweep()
        return tempfile.mkdtemp(prefix=prefix, dir=self.root)

    def new_file(self, prefix: str, suffix: str):
        """An open text file for one download, owner-only like its folder (old ones are swept first)."""
        self.sweep()
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=self.root)
        return os.fdopen(fd, "w", encoding="utf-8"), path


def exit_on_sigterm() -> bool:
    """Make SIGTERM (``docker stop``, systemd, ``kill``) end the process through ``SystemExit``, so
    ``atexit`` runs and the download folders go. A handler someone installed before is called first;
    one that ignores SIGTERM stays in charge. Only the main thread may install a handler: elsewhere
    this does nothing.

    Returns:
        Whether the handler was installed.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_IGN or getattr(previous, "rea_exits", False):
        return False

    def on_sigterm(signum, frame):
        if callable(previous):
            previous(signum, frame)
        raise SystemExit(128 + signum)

    on_sigterm.rea_exits = True  # installed once, however often the app is launched
    signal.signal(signal.SIGTERM, on_sigterm)
    return True
