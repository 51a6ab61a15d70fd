"""Download files the app writes (saved conversations, exported marks), kept out of the way.

Why: ``tempfile`` files were never removed, so every Save or Export stayed on disk forever. Here
they live in one owner-only (0700) folder per process, each is removed once it is older than
``Limits.temp_file_ttl_s`` (checked whenever a new one is made), and the folder is removed when
the process exits. Gradio's own copies of served files are aged out by ``delete_cache`` in
``app.main``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path


class Downloads:
    """One owner-only folder of short-lived download files."""

    def __init__(self, ttl_s: float):
        self.ttl_s = ttl_s
        self._root: Path | None = None
        self._lock = threading.Lock()

    @property
    def root(self) -> Path:
        with self._lock:
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="rea-studio-downloads-"))  # mode 0700
                atexit.register(shutil.rmtree, self._root, ignore_errors=True)
            return self._root

    def sweep(self, now: float | None = None) -> int:
        """Remove entries older than the time limit; returns how many were removed."""
        now = time.time() if now is None else now
        removed = 0
        for entry in list(self.root.iterdir()):
            try:
                if now - entry.stat().st_mtime > self.ttl_s:
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
                    removed += 1
            except OSError:
                continue  # removed by a concurrent sweep
        return removed

    def new_dir(self, prefix: str) -> str:
        """A fresh folder for one download (old ones are swept first)."""
        self.sweep()
        return tempfile.mkdtemp(prefix=prefix, dir=self.root)

    def new_file(self, prefix: str, suffix: str):
        """An open text file for one download, owner-only like its folder (old ones are swept first)."""
        self.sweep()
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=self.root)
        return os.fdopen(fd, "w", encoding="utf-8"), path
