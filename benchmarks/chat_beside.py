"""What the benchmarks of chats beside background work share (``bounded_trace.py``,
``marks_recheck.py``): the messages a chatter sends, the gate that counts background steps, and
the latency summary.

A script that imports it is run as ``.venv/bin/python benchmarks/<name>.py``, so this folder is on
its path.
"""

from __future__ import annotations

import socket
import statistics
import time
from contextlib import contextmanager

import numpy as np

from rea_core.limits import ModelGate

WORDS = (
    "garden river mountain bread coffee piano volcano marathon chess tax knitting sailing migration roman "
    "orbit harvest lantern copper meadow harbor violin glacier pepper saddle thunder canyon willow ember"
).split()
QUESTIONS = [
    "Name a color of the sea.",
    "What is two plus two?",
    "Give me a word for happy.",
    "Which animal says moo?",
]


class CountingGate(ModelGate):
    """The app's gate, counting the background steps (trace turns, re-check steps) it lets through;
    ``wait=False`` lets every step through at once (paced by ``REA_TRACE_SHARE`` alone, as before the
    gate), for comparison."""

    def __init__(self, wait: bool = True):
        super().__init__()
        self.wait, self.steps = wait, 0

    @contextmanager
    def background(self):
        if not self.wait:
            self.steps += 1
            yield 0.0
            return
        with super().background() as waited:
            self.steps += 1
            yield waited


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def replies(client, n: int) -> list[float]:
    """``n`` short messages in ``client``'s session (a gradio_client ``Client``), one after another, both
    Compare columns answering each; each one's seconds, send to both replies back."""
    latencies = []
    for i in range(n):
        start = time.perf_counter()
        client.predict(QUESTIONS[i % len(QUESTIONS)], api_name="/accept_message")
        client.predict(0.2, 0.36, api_name="/generate_replies")
        latencies.append(time.perf_counter() - start)
    return latencies


def summary(name: str, latencies: list[float]) -> str:
    return (
        f"{name}: {len(latencies)} replies, p50 {statistics.median(latencies):.2f} s, "
        f"p95 {np.percentile(latencies, 95):.2f} s, max {max(latencies):.2f} s"
    )
