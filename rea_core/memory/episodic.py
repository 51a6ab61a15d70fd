"""Episodic Memory (REA paper, section 3.2): every finished exchange, with retrieval embeddings.

Each exchange keeps the user text raw and the reply raw, plus a slot for the reply's latent
vectors (filled by the codec's compression adapter). For HCR, an exchange is
embedded once, when stored, as a few *units*, by ``unit_mode``:

    * ``exchange``: the whole exchange, user text and reply together (one unit; hybrid scorer);
    * ``units``: the user text whole, then the reply's sentences grouped into at most
      ``max_reply_units`` consecutive chunks (the first release's scorer);
    * ``sentence``: every sentence of the user text and of the reply (the paper's unit).

Beside the vectors, a BM25 index over each exchange's text grows with the memory (lexical half of
the hybrid scorer); it is rebuilt from the texts when a session is loaded.

All unit embeddings live in one contiguous, growing (N_units, dim) float32 matrix with the start
row of each exchange, so scoring every exchange against a query is one matrix-vector product
and a segmented max (see ``retrieval.scoring``). Embeddings are never recomputed per query.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends.base import Embedder
from ..lexical import BM25Index
from ..text import chunk_sentences, split_sentences

UNIT_MODES = ("exchange", "units", "sentence")


def _checked_mode(mode: str) -> str:
    if mode not in UNIT_MODES:
        raise ValueError(f"unit_mode must be one of {', '.join(UNIT_MODES)}; got {mode!r}")
    return mode


def exchange_text(user: str, reply: str) -> str:
    """An exchange as one text (user then reply), as embedded and indexed whole."""
    return f"{user}\n{reply}" if reply else user


@dataclass
class Exchange:
    """One finished user/model exchange."""

    turn: int
    user: str
    reply: str
    latents: Any = None  # (n_latent * windows, hidden) reply latents, set by the codec after the reply
    user_latents: Any = None  # latents of the user text, only for the latent HCR scorer
    meta: dict = field(default_factory=dict)
    time: str | None = None  # when the user sent it, in the stored form of ``rea_core.timestamps``

    @property
    def text(self) -> str:
        """The exchange as one text (``exchange_text``)."""
        return exchange_text(self.user, self.reply)

    def units(self, max_reply_units: int, mode: str = "units") -> list[str]:
        """The texts embedded for retrieval under ``mode`` (see the module docstring); never empty."""
        if mode == "exchange":
            return [self.text]
        if mode == "sentence":
            return split_sentences(self.user) + split_sentences(self.reply) or [self.user]
        return [self.user] + chunk_sentences(self.reply, max_reply_units)

    def to_dict(self) -> dict:
        d = {"turn": self.turn, "user": self.user, "reply": self.reply, "meta": self.meta}
        if self.time is not None:
            d["time"] = self.time
        for name in ("latents", "user_latents"):
            if getattr(self, name) is not None:
                d[name] = _encode_array(np.asarray(getattr(self, name), dtype=np.float32))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Exchange":
        arrays = {name: _decode_array(d[name]) if d.get(name) else None for name in ("latents", "user_latents")}
        return cls(
            turn=d["turn"], user=d["user"], reply=d["reply"], meta=d.get("meta", {}), time=d.get("time"), **arrays
        )


def _encode_array(a: np.ndarray) -> dict:
    return {
        "shape": list(a.shape),
        "dtype": "float32",
        "b64": base64.b64encode(a.astype(np.float32).tobytes()).decode(),
    }


def _decode_array(d: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(d["b64"]), dtype=np.float32).reshape(d["shape"]).copy()


class EpisodicMemory:
    """Exchanges in turn order plus their unit embeddings, embedded once on arrival."""

    def __init__(self, max_reply_units: int = 3, unit_mode: str = "units"):
        self.max_reply_units = max_reply_units
        self.unit_mode = _checked_mode(unit_mode)
        self._lexical: BM25Index | None = None  # built on first use, then appended to
        self.exchanges: list[Exchange] = []
        self.embedder_name: str | None = None
        self._units = np.zeros((0, 0), dtype=np.float32)  # (capacity, dim) buffer; rows [: _n_units] used
        self._n_units = 0
        self._starts: list[int] = []  # first unit row of each embedded exchange
        self._starts_array: np.ndarray | None = None  # cached int64 view of _starts, rebuilt after a change

    def __len__(self) -> int:
        return len(self.exchanges)

    @property
    def n_embedded(self) -> int:
        return len(self._starts)

    def append(
        self,
        user: str,
        reply: str,
        *,
        embedder: Embedder | None = None,
        meta: dict | None = None,
        time: str | None = None,
    ) -> Exchange:
        """Store a finished exchange; embed it now when an embedder is given (REA), else later on demand.

        ``time``: when the user sent it (stored form of ``rea_core.timestamps``), None when unknown."""
        exchange = Exchange(turn=len(self.exchanges), user=user, reply=reply, meta=dict(meta or {}), time=time)
        self.exchanges.append(exchange)
        if embedder is not None:
            self.ensure_embedded(embedder)
        return exchange

    def use_unit_mode(self, mode: str) -> None:
        """Switch how exchanges are cut into units; the vectors are re-embedded on the next ``ensure_embedded``."""
        if _checked_mode(mode) != self.unit_mode:
            self.unit_mode = mode
            self._reset_index()

    def ensure_embedded(self, embedder: Embedder) -> None:
        """Embed the exchanges not embedded yet (all of them if the embedder changed)."""
        if self.embedder_name not in (None, embedder.name):
            self._reset_index()
        self.embedder_name = embedder.name
        pending = self.exchanges[self.n_embedded :]
        if not pending:
            return
        unit_lists = [ex.units(self.max_reply_units, self.unit_mode) for ex in pending]
        vectors = embedder.encode([u for units in unit_lists for u in units])  # (sum units, dim)
        counts = [len(units) for units in unit_lists]
        self._add_vectors(vectors, counts)

    def add_embeddings(self, vectors: np.ndarray, counts: list[int]) -> None:
        """Append precomputed unit embeddings for the next ``len(counts)`` exchanges (benchmarks, reloads)."""
        self._add_vectors(np.ascontiguousarray(vectors, dtype=np.float32), counts)

    def _add_vectors(self, vectors: np.ndarray, counts: list[int]) -> None:
        if sum(counts) != len(vectors) or any(c < 1 for c in counts):
            raise ValueError("each exchange needs at least one unit vector, and counts must sum to the rows given")
        if self.n_embedded + len(counts) > len(self.exchanges):
            raise ValueError("more embedded exchanges than stored exchanges")
        needed = self._n_units + len(vectors)
        if self._units.shape[1] != vectors.shape[1] or needed > len(self._units):
            grown = np.zeros((max(needed, 2 * len(self._units), 64), vectors.shape[1]), dtype=np.float32)
            if self._units.shape[1] == vectors.shape[1]:
                grown[: self._n_units] = self._units[: self._n_units]
            self._units = grown
        for count in counts:
            self._starts.append(self._n_units)
            self._starts_array = None
            self._n_units += count
        self._units[needed - len(vectors) : needed] = vectors

    def truncate(self, n_exchanges: int) -> None:
        """Keep only the first ``n_exchanges`` exchanges and their embeddings (undo a failed turn)."""
        del self.exchanges[n_exchanges:]
        if self._lexical is not None:
            self._lexical.truncate(n_exchanges)
        if self.n_embedded > n_exchanges:
            self._n_units = self._starts[n_exchanges]
            del self._starts[n_exchanges:]
            self._starts_array = None

    def _reset_index(self) -> None:
        self._units = np.zeros((0, 0), dtype=np.float32)
        self._n_units = 0
        self._starts = []
        self._starts_array = None

    def lexical_index(self) -> BM25Index:
        """BM25 over every stored exchange's text, brought up to date with the memory."""
        if self._lexical is None:
            self._lexical = BM25Index()
        if len(self._lexical) < len(self.exchanges):
            self._lexical.add(ex.text for ex in self.exchanges[len(self._lexical) :])
        return self._lexical

    def unit_index(self) -> tuple[np.ndarray, np.ndarray]:
        """(unit matrix (N_units, dim), start row of each exchange (N_exchanges,)) over embedded exchanges."""
        if self._starts_array is None:  # not per query: a 100k-entry list costs milliseconds to convert
            self._starts_array = np.asarray(self._starts, dtype=np.int64)
        return self._units[: self._n_units], self._starts_array

    def to_dict(self) -> dict:
        units, starts = self.unit_index()
        index = None
        if self.n_embedded:
            index = {
                "embedder": self.embedder_name,
                "unit_mode": self.unit_mode,
                "units": _encode_array(units),
                "starts": starts.tolist(),
            }
        return {
            "max_reply_units": self.max_reply_units,
            "unit_mode": self.unit_mode,
            "exchanges": [e.to_dict() for e in self.exchanges],
            "index": index,
        }

    @classmethod
    def from_dict(cls, data: dict, unit_mode: str | None = None) -> "EpisodicMemory":
        """Rebuild a memory; with another ``unit_mode`` than the file's, its vectors are dropped and
        re-embedded on use."""
        saved_mode = data.get("unit_mode", "units")  # files written before unit modes used "units"
        memory = cls(max_reply_units=data.get("max_reply_units", 3), unit_mode=unit_mode or saved_mode)
        memory.exchanges = [Exchange.from_dict(e) for e in data.get("exchanges", [])]
        index = data.get("index")
        if index and index.get("unit_mode", "units") == memory.unit_mode:
            units, starts = _decode_array(index["units"]), list(index["starts"])
            counts = np.diff(starts + [len(units)]).tolist()
            memory.embedder_name = index["embedder"]
            memory.add_embeddings(units, counts)
        return memory
