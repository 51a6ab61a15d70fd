"""Latent compression off the critical path (seed 000, section 3.2): after a reply is shown, not before.

``submit`` queues an exchange on one worker thread per codec; ``ensure`` is called when a turn needs
the latents (the next query's plan, a save) and waits for them, compressing in place anything never
queued (a reloaded session made without a codec). Model calls share the generator's lock, so
compression never switches adapters under a running generation.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Iterable

from ..memory.episodic import Exchange
from .codec import DualLoRACodec

log = logging.getLogger(__name__)


class BackgroundCompressor:
    def __init__(self, codec: DualLoRACodec):
        self.codec = codec
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rea-compress")
        self._pending: dict[int, Future] = {}
        self._mu = threading.Lock()

    def _fill(self, exchange: Exchange, with_user: bool) -> None:
        if exchange.latents is None:
            exchange.latents = self.codec.compress(exchange.reply)
        if with_user and exchange.user_latents is None:
            exchange.user_latents = self.codec.compress(exchange.user)

    def submit(self, exchange: Exchange, *, with_user: bool = False) -> Future:
        future = self._pool.submit(self._fill, exchange, with_user)
        with self._mu:
            self._pending[id(exchange)] = future
        future.add_done_callback(lambda _f, key=id(exchange): self._forget(key, _f))
        return future

    def _forget(self, key: int, future: Future) -> None:
        with self._mu:
            if self._pending.get(key) is future:
                del self._pending[key]

    def ensure(self, exchanges: Iterable[Exchange], *, with_user: bool = False) -> None:
        """Every exchange has its latents (and user latents if asked) when this returns."""
        for exchange in exchanges:
            with self._mu:
                future = self._pending.get(id(exchange))
            if future is not None:
                try:
                    future.result()
                except Exception as exc:  # retried below, in the caller's thread, so the error reaches the user
                    log.warning("Background compression of turn %d failed (%s); retrying", exchange.turn, exc)
            self._fill(exchange, with_user)


def background_for(codec: DualLoRACodec) -> BackgroundCompressor:
    """The one background compressor of ``codec`` (strategies sharing a codec share its queue)."""
    worker = getattr(codec, "_background", None)
    if worker is None:
        worker = codec._background = BackgroundCompressor(codec)
    return worker
