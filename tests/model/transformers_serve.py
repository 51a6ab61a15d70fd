"""A real ``transformers serve`` (the ``transformers[serving]`` extra) serving the converted packaged
SmolLM2-135M on a free loopback port, for the tests that talk to a model server. Each test module
starts its own (a module-scoped fixture) and may kill it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from rea_core.backends.openai_compat import OpenAIGenerator
from rea_core.backends.packaged import packaged_generator_dir

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``transformers serve FOLDER`` on 127.0.0.1:port, started and stopped by the test."""

    def __init__(self, tmp: Path):
        self.folder = str(packaged_generator_dir())
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = open(tmp / f"serve-{self.port}.log", "w")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
        self.proc = subprocess.Popen(
            [
                str(BIN / "transformers"),
                "serve",
                self.folder,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--device",
                "cpu",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited with {self.proc.returncode}; see {self.log.name}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError("transformers serve did not become healthy within 180 s")

    def generator(self, **kwargs) -> OpenAIGenerator:
        return OpenAIGenerator(
            self.folder, base_url=self.url, **{"timeout_s": 60, "max_retries": 1, "backoff_s": 0.2, **kwargs}
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        if not self.log.closed:
            self.log.close()
