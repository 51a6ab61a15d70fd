"""SeCom (SeCom paper, ICLR 2025): segment-level memory, compression-based denoising, top-N retrieval.

Memory construction: finished turns wait in an *open tail*; once ``SeComConfig.segment_window`` turns
wait (or at an explicit session boundary), the topic segmenter splits them into segments
(``segmenter.py``: zero-shot LLM with turn indices and role tags, embedding fallback).
Every segment but the last is closed: its memory unit (``[user]: ... [agent]: ...`` per turn) is
compressed once with LLMLingua at ``compress_rate`` (``compressor.py``) and kept; the last
segment stays open and is re-segmented with the turns that follow. At a session boundary all are
closed, as SeCom segments each session.

Response: the query retrieves the top ``top_k`` units, closed segments and the (compressed)
open tail alike, with BM25 or the dense retriever (``retriever.py``) over the compressed
units, ``{m_n} <- f_R(u*, f_Comp(M), N)``; the reply is generated from those units and the query
alone, ``r* = f_LLM(u*, {m_n})``, with the units in turn order in the system message.

State (``session.memory``, saved with the session): ``segments`` (closed spans with their
compressed unit), ``open_from`` (first turn of the open tail) and ``notes`` (segmenter fallbacks).
"""

from __future__ import annotations

from functools import cached_property

from ...backends.base import TOKEN_LOGPROBS, TOKENIZER
from ...limits import LRUCache
from ...reconstruction import assemble_plan, memory_segment
from ...session import ChatSession
from ...templates import load_template
from ...types import Decision, PromptPlan, Resolution, Segment
from ...validation import is_text_list, is_whole, spans_problem
from ..base import Strategy
from ..registry import register_strategy
from . import SPEC
from .compressor import build_compressor
from .config import SeComConfig
from .retriever import bm25_scores, dense_scores, select_top_k
from .segmenter import TopicSegmenter

MAX_NOTES = 5  # segmenter fallback notes kept in the state (newest last)


def unit_text(exchanges, start: int, end: int) -> str:
    """The memory unit of turns ``start..end``: role-tagged, one line per message."""
    return "\n".join(f"[user]: {ex.user}\n[agent]: {ex.reply}" for ex in exchanges[start : end + 1])


@register_strategy(SPEC.name)
class SeComStrategy(Strategy):
    """SeCom on the shared backbone and embedder. See the module docstring for the algorithm.

    Example:
        >>> secom = build_strategy("secom", models, SeComConfig(retriever="dense"))
        >>> session = secom.new_session()
        >>> secom.respond(session, "I adopted a cat named Miso.").plan.notes
    """

    uses_sittings = True

    def __init__(self, generator, embedder=None, config: SeComConfig | None = None, *, runtime=None, compressor=None):
        if embedder is None:
            raise ValueError("SeCom needs an Embedder (embedding segmenter and dense retriever)")
        super().__init__(generator, embedder, config, runtime=runtime)
        if compressor is not None:
            self.__dict__["_compressor"] = compressor  # shared with the strategy it was rebuilt from

    def requirements(self) -> frozenset[str]:
        """Perplexity LLMLingua scores tokens on the backbone: asked for by name it needs token log-probabilities
        (``auto`` on a backend without them leaves units uncompressed and says so in the plan notes)."""
        return self.requires | ({TOKEN_LOGPROBS, TOKENIZER} if self.config.compressor == "ppl" else set())

    @cached_property
    def _compressor(self):
        return build_compressor(self.config.compressor, self.generator, self.config.compress_rate)

    def with_config(self, config: SeComConfig | None = None, *, runtime=None) -> "SeComStrategy":
        """Rebuilt under ``config``; the loaded compressor is kept when its settings did not change."""
        config = config or self.config
        same = (config.compressor, config.compress_rate) == (self.config.compressor, self.config.compress_rate)
        compressor = self.__dict__.get("_compressor") if same else None
        return type(self)(
            self.generator, self.embedder, config, runtime=runtime or self.runtime, compressor=compressor
        )

    @property
    def segmenter(self) -> TopicSegmenter:
        c = self.config
        return TopicSegmenter(self.generator, self.embedder, mode=c.segmenter, threshold=c.boundary_threshold)

    # -- memory construction ----------------------------------------------------------------------

    @staticmethod
    def state(session: ChatSession) -> dict:
        m = session.memory
        return {
            "segments": list(m.get("segments", [])),
            "open_from": int(m.get("open_from", 0)),
            "notes": list(m.get("notes", [])),
        }

    def memory_problem(self, memory: dict, n_turns: int) -> str | None:
        """Closed segments in turn order before ``open_from``, each with its compressed unit; notes as text."""
        open_from = memory.get("open_from", 0)
        if not is_whole(open_from, 0, n_turns):
            return f'"open_from" must be a turn in 0-{n_turns}'
        segments = memory.get("segments", [])
        problem = spans_problem(segments, end_before=open_from, what="segment")
        if problem:
            return problem
        for i, seg in enumerate(segments):
            unit = seg.get("compressed")
            if not (
                isinstance(seg.get("segmenter"), str)
                and isinstance(unit, dict)
                and isinstance(unit.get("text"), str)
                and isinstance(unit.get("method"), str)
                and is_whole(unit.get("tokens"), 0)
                and is_whole(unit.get("original_tokens"), 0)
            ):
                return f'segment {i}: needs "segmenter" and "compressed" (its text, method and token counts)'
        if not is_text_list(memory.get("notes", [])):
            return '"notes" must be a list of text'
        return None

    def _compress(self, text: str) -> dict:
        compressor, _ = self._compressor
        c = compressor.compress(text)
        return {"text": c.text, "tokens": c.tokens, "original_tokens": c.original_tokens, "method": c.method}

    def _segment_tail(self, session: ChatSession, state: dict, *, close_all: bool) -> dict:
        exchanges = session.episodes.exchanges
        first = state["open_from"]
        tail = [(ex.user, ex.reply) for ex in exchanges[first:]]
        if not tail:
            return state
        result = self.segmenter.segment(tail, first)
        spans = list(result.spans)
        if not close_all and len(spans) > 1:
            spans = spans[:-1]  # the last segment stays open and meets the next turns
        for start, end in spans:
            unit = self._compress(unit_text(exchanges, start, end))
            state["segments"].append({"start": start, "end": end, "segmenter": result.method, "compressed": unit})
        state["open_from"] = spans[-1][1] + 1
        if result.note:
            state["notes"] = (state["notes"] + [result.note])[-MAX_NOTES:]
        return state

    def store(
        self,
        session: ChatSession,
        user_text: str,
        reply: str,
        *,
        time: str | None = None,
        plan: PromptPlan | None = None,
    ) -> None:
        super().store(session, user_text, reply, time=time)
        state = self.state(session)
        if session.n_turns - state["open_from"] >= self.config.segment_window:
            state = self._segment_tail(session, state, close_all=False)
        self.commit_memory(session, session.n_turns - 1, state)

    def end_sitting(self, session: ChatSession) -> str:
        state = self.state(session)
        if state["open_from"] >= session.n_turns:
            return "SeCom: no open turns; nothing to segment."
        before = len(state["segments"])
        state = self._segment_tail(session, state, close_all=True)
        session.memory = {**session.memory, **state}
        return f"SeCom: session closed; its open turns became {len(state['segments']) - before} segment(s)."

    # -- retrieval and the prompt ------------------------------------------------------------------

    def units(self, session: ChatSession) -> list[dict]:
        """Every memory unit: the closed segments, then the open tail compressed now."""
        state = self.state(session)
        units = [dict(s, open=False) for s in state["segments"]]
        if state["open_from"] < session.n_turns:
            start, end = state["open_from"], session.n_turns - 1
            text = unit_text(session.episodes.exchanges, start, end)
            units.append(
                {"start": start, "end": end, "segmenter": "open", "compressed": self._compress(text), "open": True}
            )
        return units

    def score(self, query: str, texts: list[str], cache: LRUCache | None = None):
        """Retrieval scores of ``texts`` for ``query``; dense vectors of unit texts come from ``cache``
        (the session's own, bounded by ``secom.cache_entries``) when given."""
        if self.config.retriever == "bm25":
            return bm25_scores(query, texts)
        import numpy as np

        cache = cache if cache is not None else LRUCache(max(1, len(texts)))
        found = {t: cache.get(t) for t in texts}
        missing = [t for t, v in found.items() if v is None]
        if missing:
            for t, v in zip(missing, self.embedder.encode(missing)):
                found[t] = v
                cache.put(t, v)
        vectors = np.stack([found[t] for t in texts]) if texts else np.zeros((0, self.embedder.dim))  # (n_units, dim)
        return dense_scores(self.embedder.encode([query])[0], vectors)

    def dense_cache(self, session: ChatSession) -> LRUCache:
        """This session's cache of unit vectors (per session, so it dies with the session)."""
        return session.scratch.setdefault("secom_dense", LRUCache(self.config.cache_entries))

    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        c, count = self.config, self.generator.count_tokens
        units = self.units(session)
        scores = (
            self.score(query, [u["compressed"]["text"] for u in units], self.dense_cache(session)) if units else []
        )
        chosen = set(select_top_k(scores, c.top_k))
        compressed = c.compressor != "none"
        header = load_template("secom_memory").split("{memory}")[0].strip()
        system = self.runtime.system_prompt + (f"\n\n{header}" if chosen else "")
        blocks: list[Segment] = []
        decisions: list[Decision] = []
        exchanges = session.episodes.exchanges
        for i, u in enumerate(units):
            comp, picked = u["compressed"], i in chosen
            resolution = (Resolution.COMPRESSED if compressed else Resolution.RAW) if picked else Resolution.OMIT
            text = comp["text"]
            state = "open tail" if u["open"] else f"{u['segmenter']} segment"
            label = (
                f"segment {i} · turns {u['start']}-{u['end']} · {state} · "
                f"{comp['method']} {comp['tokens']}/{comp['original_tokens']} tok"
                f" · {c.retriever} {float(scores[i]):.2f}{' · retrieved' if picked else ''}"
            )
            blocks.append(
                memory_segment(
                    text,
                    count,
                    resolution=resolution,
                    label=label,
                    turns=range(u["start"], u["end"] + 1),
                    source_reply=unit_text(exchanges, u["start"], u["end"]),
                    score=float(scores[i]),
                )
            )
            decisions += [
                Decision(turn=t, score=float(scores[i]), resolution=resolution)
                for t in range(u["start"], u["end"] + 1)
            ]
        _, compressor_note = self._compressor
        method = units[0]["compressed"]["method"] if units else "-"
        notes = [
            f"SeCom: {len(units)} memory unit(s), top {c.top_k} by {c.retriever} over units compressed by {method} "
            f"at rate {c.compress_rate:.0%} of tokens kept; segmenter {c.segmenter}, window {c.segment_window}."
        ]
        notes += [n for n in [compressor_note] if n] + self.state(session)["notes"]
        return assemble_plan(query=query, count_tokens=count, system_prompt=system, memory=blocks, notes=notes), tuple(
            decisions
        )
