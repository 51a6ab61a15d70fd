"""One intra-op thread for tiny CPU inputs (the recognizer's per-input time).

Embedding one short sentence with MiniLM is too small a job to split: on the 2-core dev machine
under load, 2 torch threads took a median 82 ms per sentence and 1 thread 17 ms (the threads
wait for each other). The recognizer embeds one input per turn, so it runs that call on one
thread. ``torch.set_num_threads`` is process-wide: the previous value is restored on exit, and
model calls are serialized by the app's queue (``--concurrency 1`` by default).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` torch intra-op threads (a no-op without torch or when already ``n``)."""
    try:
        import torch
    except ImportError:  # the recognizer works on any Embedder, not only torch ones
        yield
        return
    old = torch.get_num_threads()
    if old == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)
