"""Latent compression off the critical path (REA paper, section 3.2): after a reply is shown, not before.

A ``LatentWriter`` turns an exchange's reply into latent vectors: ``EncodeWriter`` runs the trained
compress adapter (about 0.2 s on CPU), ``OptimizeWriter`` (``optimize.py``) fits the vectors to the
reply directly (seconds). ``submit`` queues an exchange and its writer on the codec's one worker
thread; ``ensure`` is called when a turn needs the latents (the next query's plan, a save) and waits
for them. So that a slow writer never delays the next reply by more than one model step, ``ensure``
first asks a running or queued job to stop: an optimization then returns its best latents so far
and records that it was interrupted (``Exchange.meta["latents"]``). Model calls share the
generator's lock, so compression never switches adapters under a running generation.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Iterable, Protocol

import numpy as np

from ..memory.episodic import Exchange


class LatentCodec(Protocol):
    """What the background worker needs of a codec (``codec.DualLoRACodec``): its latents of a text."""

    def compress(self, text: str) -> np.ndarray: ...


log = logging.getLogger(__name__)
LATENT_META = "latents"  # Exchange.meta key: how the reply's latents were made (writer key, steps, ...)


class LatentWriter(Protocol):
    """Makes one exchange's reply latents; ``key`` names the method (saved with the latents)."""

    key: str

    def needs(self, exchange: Exchange) -> bool:
        """Whether ``exchange`` lacks latents from this writer (or holds unfinished ones)."""

    def write(self, exchange: Exchange, stop: threading.Event) -> tuple[np.ndarray, dict]:
        """(latents (rows, hidden) float32, a record of how they were made). Return early once ``stop`` is set."""


class EncodeWriter:
    """The amortized codec: one pass of the compress adapter over the reply."""

    key = "encode"

    def __init__(self, codec: LatentCodec):
        self.codec = codec

    def needs(self, exchange: Exchange) -> bool:
        return latents_by(exchange) != self.key

    def write(self, exchange: Exchange, stop: threading.Event) -> tuple[np.ndarray, dict]:
        return self.codec.compress(exchange.reply), {"by": self.key}


def latents_by(exchange: Exchange) -> str | None:
    """Which writer made ``exchange``'s latents ("encode" for files saved before this was recorded)."""
    if exchange.latents is None:
        return None
    return (exchange.meta.get(LATENT_META) or {}).get("by", "encode")


class BackgroundCompressor:
    """One worker thread writing latents for one codec (owned by it: ``DualLoRACodec.background``)."""

    def __init__(self, codec: LatentCodec):
        self.codec = codec
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rea-compress")
        self._pending: dict[int, tuple[Future, threading.Event]] = {}
        self._mu = threading.Lock()

    def _fill(self, exchange: Exchange, writer: LatentWriter, with_user: bool, stop: threading.Event) -> None:
        if writer.needs(exchange):  # none yet, made by another writer (a loaded file), or unfinished
            exchange.latents, record = writer.write(exchange, stop)
            exchange.meta[LATENT_META] = record
        if with_user and exchange.user_latents is None:  # the latent HCR scorer reads the encoder's user latents
            exchange.user_latents = self.codec.compress(exchange.user)

    def submit(self, exchange: Exchange, writer: LatentWriter, *, with_user: bool = False) -> Future:
        stop = threading.Event()
        future = self._pool.submit(self._fill, exchange, writer, with_user, stop)
        with self._mu:
            self._pending[id(exchange)] = (future, stop)
        future.add_done_callback(lambda _f, key=id(exchange): self._forget(key, _f))
        return future

    def _forget(self, key: int, future: Future) -> None:
        with self._mu:
            if key in self._pending and self._pending[key][0] is future:
                del self._pending[key]

    def ensure(
        self, exchanges: Iterable[Exchange], writer: LatentWriter, *, with_user: bool = False, finish: bool = False
    ) -> None:
        """Every exchange has latents from this writer (and user latents if asked) when this returns.

        Unless ``finish``, pending jobs are asked to stop and return their best latents so far, so
        the caller waits at most about one model step for a slow writer (``finish``: a save, which
        waits for the whole budget).
        """
        exchanges = list(exchanges)
        with self._mu:
            pending = [self._pending.get(id(ex)) for ex in exchanges]
        if not finish:
            for job in pending:
                if job is not None:
                    job[1].set()
        for exchange, job in zip(exchanges, pending):
            if job is not None:
                try:
                    job[0].result()
                except Exception as exc:  # retried below, in the caller's thread, so the error reaches the user
                    log.warning("Background compression of turn %d failed (%s); retrying", exchange.turn, exc)
            stop = threading.Event()
            if not finish:
                stop.set()  # never queued (a loaded session): the fast path of the writer only
            self._fill(exchange, writer, with_user, stop)
