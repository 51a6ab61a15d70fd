"""Retrieval evaluation: does HCR keep the exchanges a query needs, and at what cost?

Inputs (``load_cases``):
    * conversation JSONL where a turn may carry ``"needed": [exchange indices]`` (0-based): that
      turn's user text is a query over the exchanges before it (the Inspect tab's marks export and
      the back-reference set ``benchmarks/data/backrefs.jsonl`` are in this format);
    * the public LoCoMo JSON (``--format locomo``): a file or a folder of per-conversation files
      (``speaker_a``, ``session_N`` lists of turns with ``dia_id``, ``qa`` with ``evidence``).
      Turns pair into exchanges in order within each session, speaker names kept in the text; each
      question is a query over the whole conversation; category 5 (adversarial) is skipped.

Per policy it reports the share of queries whose needed exchanges are all kept (raw or
compressed), per-exchange recall, kept exchanges and prompt tokens (absolute and as a share of
the history), recall@k of the policy's ranking, and, for every REA scorer, a threshold sweep
(recall against kept share). Baselines run in the same pass: BM25 (``bm25s``, the library SeCom
uses), dense top-k over whole-exchange vectors, recency (the last k) and keep-all.

``calibrate`` picks per scorer the highest tau_low whose kept set still reaches a recall target
(the smallest kept share that does), and a tau_high at half that target in the raw band.
"""

from __future__ import annotations

import re
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from ..conversations import Conversation, check_turn_chars, parse_conversation, read_jsonl, turn_record
from ..errors import DataFormatError
from ..memory.episodic import exchange_text
from ..methods.rea.config import REAConfig
from ..settings import Settings
from ..timestamps import parse_locomo_time
from ..types import Reason, Resolution
from ..validation import parse_json, read_text

RECALL_KS = (5, 10, 25)
SWEEP = tuple(round(0.02 * i, 2) for i in range(51))  # tau_low grid for the recall-vs-kept curves
BASELINE_K = 10

NO_FOLLOW_UP = {
    "context_turns": 0,
    "follow_up_decay": 0.0,
    "follow_up_prior": 0.0,
    "referent_top_k": 0,
    "recent_raw": 0,
    "recent_compressed": 0,
}
# REA policies compared: name -> (description, config overrides). Thresholds not given are the scorer's
# calibrated ones.
REA_POLICIES: dict[str, tuple[str, dict]] = {
    "rea": ("REA as configured (default: hybrid scorer, follow-up awareness, recency)", {}),
    "rea-first-release": (
        "the first release's HCR: user text + reply chunks (MiniLM), paper thresholds 0.5/0.7, no follow-up awareness",
        {
            "scorer": "minilm",
            "tau_low": 0.5,
            "tau_high": 0.7,
            "neighbor_weight": 0.0,
            **NO_FOLLOW_UP,
            "text_compression": "first_words",
        },
    ),
    "rea-minilm": ("user text + reply chunks (MiniLM), calibrated", {"scorer": "minilm"}),
    "rea-exchange": ("whole exchange (MiniLM), calibrated", {"scorer": "exchange"}),
    "rea-sentence": ("the paper's sentence-level max pairwise cosine, calibrated", {"scorer": "sentence"}),
    "rea-hybrid-plain": ("hybrid without follow-up awareness or recency", {"scorer": "hybrid", **NO_FOLLOW_UP}),
    # Not in DEFAULT_POLICIES: one generator call per query (retrieval.rewrite).
    "rea-rewrite": (
        "REA as configured, also scoring the generator's standalone rewrite of each query (query_rewrite)",
        {"query_rewrite": True},
    ),
}
BASELINES = {
    "bm25": f"BM25 (bm25s) top {BASELINE_K}",
    "dense": f"whole-exchange MiniLM cosine top {BASELINE_K}",
    "recency": f"the last {BASELINE_K} exchanges",
    "keep-all": "every exchange raw (vanilla)",
}
DEFAULT_POLICIES = (
    "rea",
    "rea-first-release",
    "rea-minilm",
    "rea-exchange",
    "rea-sentence",
    "rea-hybrid-plain",
    "bm25",
    "dense",
    "recency",
    "keep-all",
)


@dataclass(frozen=True)
class RetrievalQuery:
    position: int  # exchanges before the query (it sees exchanges 0 .. position-1)
    text: str
    needed: tuple[int, ...]
    answer: str | None = None  # the gold answer, where the data gives one (``rea eval qa``)
    category: int | None = None  # LoCoMo: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop


@dataclass(frozen=True)
class RetrievalCase:
    id: str
    exchanges: tuple[tuple[str, str], ...]  # (user, reply)
    queries: tuple[RetrievalQuery, ...]
    times: tuple[str | None, ...] = ()  # when each exchange happened (stored form of rea_core.timestamps); () unknown

    def time_of(self, index: int) -> str | None:
        return self.times[index] if self.times else None


def known_times(times) -> tuple[str | None, ...]:
    """``RetrievalCase.times`` from one time (or None) per exchange: () where the data gives none at all."""
    times = tuple(times)
    return times if any(t is not None for t in times) else ()


# -- loading ---------------------------------------------------------------------------------------


def load_needed_jsonl(path: str | Path, *, answers: bool = False, max_chars: int | None = None) -> list[RetrievalCase]:
    """Conversation JSONL whose turns may carry ``needed``; every error names the file and line.

    With ``answers`` (``rea eval qa``) a turn carrying ``"answer"`` is a query too, ``needed`` optional.
    ``max_chars``: the most characters of one turn's text or answer (``check_turn_chars``)."""
    cases = parse_needed_rows(read_jsonl(path), answers=answers, max_chars=max_chars)
    if not cases:
        what = '"answer"' if answers else '"needed"'
        raise DataFormatError(f"{path}: no turn carries {what}; nothing to evaluate")
    return cases


def parse_needed_cases(objects: Sequence[dict], *, where: str) -> list[RetrievalCase]:
    """Conversations already decoded (the Inspect tab's stored marks) as cases."""
    return parse_needed_rows([(f"{where}: conversation {i}", obj) for i, obj in enumerate(objects)])


def parse_needed_rows(rows, *, answers: bool = False, max_chars: int | None = None) -> list[RetrievalCase]:
    cases = []
    for where, obj in rows:
        conv = parse_conversation(obj, where=where, max_chars=max_chars)
        exchanges, queries = [], []
        for i, raw in enumerate(obj["turns"]):
            needed = raw.get("needed")
            answer = raw.get("answer")
            if answer is not None and (not isinstance(answer, str) or not answer.strip()):
                raise DataFormatError(f'{where}: turn {i} "answer" must be non-empty text, got {answer!r:.80}')
            if answer is not None:
                check_turn_chars(answer, max_chars, f'{where}: turn {i} "answer"')
            if answers and answer is not None and needed is None:
                queries.append(RetrievalQuery(position=i, text=conv.turns[i].user, needed=(), answer=answer.strip()))
            if needed is not None:
                if (
                    not isinstance(needed, list)
                    or not needed
                    or not all(isinstance(n, int) and not isinstance(n, bool) for n in needed)
                ):
                    raise DataFormatError(f'{where}: turn {i} "needed" must be a non-empty list of exchange indices')
                bad = [n for n in needed if not 0 <= n < i]
                if bad:
                    raise DataFormatError(
                        f'{where}: turn {i} "needed" names exchange(s) {bad}, not before that turn (0-{i - 1})'
                    )
                queries.append(
                    RetrievalQuery(
                        position=i,
                        text=conv.turns[i].user,
                        needed=tuple(sorted(set(needed))),
                        answer=answer.strip() if answer is not None else None,
                    )
                )
            exchanges.append((conv.turns[i].user, conv.turns[i].assistant or ""))
        if queries:
            cases.append(
                RetrievalCase(
                    id=conv.id,
                    exchanges=tuple(exchanges),
                    queries=tuple(queries),
                    times=known_times(t.time for t in conv.turns),
                )
            )
    return cases


_LOCOMO_SESSION = re.compile(r"session_\d+")


def _locomo_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    return text + (f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")


def parse_locomo(data: dict, case_id: str, *, max_chars: int | None = None) -> RetrievalCase:
    """One LoCoMo conversation as exchanges (turn pairs within each session) and its questions.

    ``max_chars``: the most characters of one turn (as the exchange holds it: speaker, text and
    photo caption), question or answer (``check_turn_chars``). The release's layout, with the sessions
    nested under ``"conversation"`` beside ``"qa"``, reads as the flat one."""
    if isinstance(data, dict) and isinstance(data.get("conversation"), dict) and "session_1" not in data:
        data = {**data["conversation"], **{k: data[k] for k in ("qa",) if k in data}}
    if not isinstance(data, dict) or "qa" not in data or "session_1" not in data:
        raise DataFormatError(f'{case_id}: a LoCoMo conversation needs "session_1" and "qa"')
    exchanges: list[tuple[str, str]] = []
    times: list[str | None] = []
    where: dict[str, int] = {}
    sessions = sorted(
        (int(m.group(1)), k) for k in data if (m := re.fullmatch(r"session_(\d+)", k)) and isinstance(data[k], list)
    )
    for _, key in sessions:
        turns = data[key]
        date = data.get(f"{key}_date_time")
        time = parse_locomo_time(date, where=f"{case_id}: {key}_date_time") if date is not None else None
        for j, t in enumerate(turns):  # the fields every turn is read by, as text
            if not (isinstance(t, dict) and all(isinstance(t.get(k), str) for k in ("speaker", "dia_id", "text"))):
                raise DataFormatError(f'{case_id}: {key} turn {j} needs text "speaker", "dia_id" and "text"')
            check_turn_chars(_locomo_text(t), max_chars, f"{case_id}: {key} turn {j}")
        for i in range(0, len(turns), 2):
            pair = turns[i : i + 2]
            for t in pair:
                where[t["dia_id"]] = len(exchanges)
            exchanges.append((_locomo_text(pair[0]), _locomo_text(pair[1]) if len(pair) > 1 else ""))
            times.append(time)
    queries = []
    for n, q in enumerate(data["qa"]):
        if q.get("category") == 5:
            continue
        needed = sorted({where[e] for e in q.get("evidence", []) if e in where})
        if needed:
            answer = q.get("answer")  # LoCoMo gives a year as a number
            if answer is not None and (isinstance(answer, bool) or not isinstance(answer, (str, int, float))):
                raise DataFormatError(
                    f'{case_id}: question {q.get("question", "")[:60]!r} has a {type(answer).__name__} "answer"; '
                    "expected text or a number"
                )
            answer = None if answer is None else str(answer)
            for what, text in (("question", str(q["question"])), ("answer", answer or "")):
                check_turn_chars(text, max_chars, f'{case_id}: the {what} of "qa" {n}')
            queries.append(
                RetrievalQuery(
                    position=len(exchanges),
                    text=str(q["question"]),
                    needed=tuple(needed),
                    answer=answer,
                    category=q.get("category") if isinstance(q.get("category"), int) else None,
                )
            )
    return RetrievalCase(id=case_id, exchanges=tuple(exchanges), queries=tuple(queries), times=known_times(times))


def is_locomo(data: object) -> bool:
    """Whether decoded JSON is meant as LoCoMo: one conversation or a list of them, any of which
    carries a key only LoCoMo has ("qa", "sample_id", "session_<n>").

    Loose on purpose: a damaged LoCoMo file (a conversation without "qa") is then refused by
    ``load_locomo`` with what LoCoMo needs, not read as another format and refused in its terms."""
    items = data if isinstance(data, list) else [data]
    return any(
        isinstance(x, dict) and ("qa" in x or "sample_id" in x or any(_LOCOMO_SESSION.fullmatch(str(k)) for k in x))
        for x in items
    )


def case_conversation(
    case: RetrievalCase, *, max_chars: int | None = None, max_turns: int | None = None, where: str | None = None
) -> Conversation:
    """A case's exchanges as a conversation (user, assistant, time), checked as a conversation file's
    line is (``max_chars``, ``max_turns``), so LoCoMo data can be traced like conversation JSONL."""
    turns = [turn_record(user, reply, case.time_of(i)) for i, (user, reply) in enumerate(case.exchanges)]
    return parse_conversation(
        {"id": case.id, "turns": turns}, where=where or case.id, max_chars=max_chars, max_turns=max_turns
    )


def load_locomo(path: str | Path, *, max_chars: int | None = None) -> list[RetrievalCase]:
    """A LoCoMo file (one conversation or the release's list of them) or a folder of such files.

    Every refusal names the file, says it was read as LoCoMo, and which conversation (its index in
    the file) broke what; ``max_chars`` caps each turn, question and answer (``parse_locomo``)."""
    path = Path(path)
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise DataFormatError(f"{path}: no .json files")
    cases = []
    for f in files:
        data = parse_json(read_text(f), where=str(f))  # depth, numbers and text checked before any use
        items = data if isinstance(data, list) else [data]
        for i, item in enumerate(items):
            cid = (
                str(item.get("sample_id", f"{f.stem}" if len(items) == 1 else f"{f.stem}-{i}"))
                if isinstance(item, dict)
                else f.stem
            )
            try:
                cases.append(parse_locomo(item, cid, max_chars=max_chars))
            except DataFormatError as exc:
                raise DataFormatError(f"{f}: LoCoMo conversation {i}: {exc}") from exc
            except (KeyError, TypeError, AttributeError, ValueError) as exc:  # a field of the wrong shape
                what = (
                    f"a turn or question lacks {exc.args[0]!r:.40}"
                    if isinstance(exc, KeyError)
                    else "a field of a wrong type"
                )
                raise DataFormatError(f"{f}: LoCoMo conversation {i} is malformed ({what})") from exc
    return cases


def load_cases(
    path: str | Path, fmt: str = "jsonl", *, answers: bool = False, max_chars: int | None = None
) -> list[RetrievalCase]:
    """``answers``: JSONL turns with an ``"answer"`` are queries even without ``"needed"`` (``rea eval qa``).

    ``max_chars``: the most characters of one turn, question or answer (the CLI passes
    ``RuntimeConfig.max_message_chars``, REA_MAX_MESSAGE_CHARS), refused before any model loads."""
    if fmt == "locomo":
        cases = load_locomo(path, max_chars=max_chars)
        if not any(c.queries for c in cases):  # e.g. every "evidence" names no turn: nothing would be measured
            raise DataFormatError(f"{path}: no question whose evidence names a turn; nothing to evaluate")
        return cases
    if fmt == "jsonl":
        return load_needed_jsonl(path, answers=answers, max_chars=max_chars)
    raise DataFormatError(f"unknown format {fmt!r}; use jsonl or locomo")


# -- metrics (pure) --------------------------------------------------------------------------------


def recall_at(scores: np.ndarray, needed: Sequence[int], k: int) -> float:
    """Share of the needed exchanges among the ``k`` best scores (ties: earlier first)."""
    top = set(np.argsort(-np.asarray(scores), kind="stable")[:k].tolist())
    return sum(n in top for n in needed) / len(needed)


def query_record(
    kept: np.ndarray,
    raw: np.ndarray,
    scores: np.ndarray,
    needed: Sequence[int],
    prompt_tokens: int,
    history_tokens: int,
) -> dict:
    """One query's measures; ``kept`` and ``raw`` are boolean masks over the exchanges it saw."""
    n = len(kept)
    hit = [bool(kept[i]) for i in needed]
    return {
        "all_kept": all(hit),
        "recall": sum(hit) / len(needed),
        "raw_recall": sum(bool(raw[i]) for i in needed) / len(needed),
        "kept": int(kept.sum()),
        "kept_share": float(kept.sum()) / n if n else 0.0,
        "history": n,
        "prompt_tokens": prompt_tokens,
        "prompt_share": prompt_tokens / history_tokens if history_tokens else 1.0,
        **{f"recall@{k}": recall_at(scores, needed, k) for k in RECALL_KS},
    }


def recency_hit(n: int, k: int, needed: Sequence[int]) -> bool:
    """Whether keeping the last ``k`` of ``n`` exchanges keeps every needed one: plain recency at a
    policy's own kept count, the baseline REA must never fall below."""
    return all(i >= n - k for i in needed)


def sweep_record(scores: np.ndarray, floor: np.ndarray, needed: Sequence[int]) -> dict:
    """Kept count and all-needed-kept at each tau_low of ``SWEEP`` (``floor``: exchanges kept regardless)."""
    s = np.asarray(scores)
    kept = [(s >= t) | floor for t in SWEEP]
    return {
        "kept": [int(k.sum()) for k in kept],
        "all": [bool(all(k[i] for i in needed)) for k in kept],
        "raw_hits": [sum(bool(s[i] >= t) for i in needed) / len(needed) for t in SWEEP],
    }


def summarize(records: list[dict]) -> dict:
    if not records:
        return {"queries": 0}
    mean = lambda key: float(np.mean([r[key] for r in records]))  # noqa: E731
    out = {
        "queries": len(records),
        "all_kept": mean("all_kept"),
        "recall": mean("recall"),
        "raw_recall": mean("raw_recall"),
        "kept": mean("kept"),
        "kept_share": mean("kept_share"),
        "prompt_tokens": mean("prompt_tokens"),
        "prompt_share": mean("prompt_share"),
    }
    out.update({f"recall@{k}": mean(f"recall@{k}") for k in RECALL_KS})
    if all("recency_matched" in r for r in records):
        out["recency_matched_all_kept"] = mean(
            "recency_matched"
        )  # the last k exchanges, k = this policy's kept count per query
    if all("seconds" in r for r in records):
        out["seconds"] = mean("seconds")
    rewrites = [r["rewrite"] for r in records if "rewrite" in r]
    if rewrites:
        out["rewritten"] = float(np.mean([w["rewritten"] for w in rewrites]))
        out["rewrite_errors"] = float(np.mean([w["error"] is not None for w in rewrites]))
    sweeps = [r["sweep"] for r in records if "sweep" in r]
    if sweeps:
        history = np.array([r["history"] for r in records if "sweep" in r], dtype=float)
        kept = np.array([s["kept"] for s in sweeps], dtype=float)
        out["sweep"] = {
            "tau_low": list(SWEEP),
            "all_kept": np.mean([s["all"] for s in sweeps], axis=0).tolist(),
            "kept_share": (kept / np.maximum(history, 1)[:, None]).mean(axis=0).tolist(),
            "raw_recall": np.mean([s["raw_hits"] for s in sweeps], axis=0).tolist(),
        }
    return out


def calibrate(sweep: dict, target: float) -> dict:
    """Thresholds from a summary's sweep: tau_low is the highest grid value whose kept set still has
    every needed exchange for ``target`` of the queries (the smallest kept share reaching it);
    tau_high the highest whose raw band alone reaches ``target / 2`` of the needed exchanges."""
    taus, all_kept, raw = sweep["tau_low"], sweep["all_kept"], sweep["raw_recall"]
    ok = [t for t, a in zip(taus, all_kept) if a >= target]
    tau_low = max(ok) if ok else min(taus)
    high_ok = [t for t, r in zip(taus, raw) if r >= target / 2 and t >= tau_low]
    tau_high = max(high_ok) if high_ok else tau_low
    i = taus.index(tau_low)
    return {
        "tau_low": tau_low,
        "tau_high": tau_high,
        "target": target,
        "reached": all_kept[i] >= target,
        "all_kept": all_kept[i],
        "kept_share": sweep["kept_share"][i],
    }


# -- running policies ------------------------------------------------------------------------------


def policy_config(name: str, base: REAConfig) -> REAConfig:
    """The config of an REA policy: the base config with the policy's overrides (thresholds re-calibrated
    for another scorer unless the policy names them)."""
    overrides = dict(REA_POLICIES[name][1])
    if "scorer" in overrides and overrides["scorer"] != base.scorer:
        overrides.setdefault("tau_low", None)
        overrides.setdefault("tau_high", None)
    return replace(base, **overrides)


class CachedEmbedder:
    """An Embedder that remembers every text it encoded: policies of one run share exchange texts,
    so each is embedded once. Only for evaluation runs (memory grows with the data)."""

    def __init__(self, embedder):
        self.inner, self.name, self.dim = embedder, embedder.name, embedder.dim
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            self._cache.update(zip(missing, self.inner.encode(missing)))
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)


def exchange_tokens(case: RetrievalCase, count) -> np.ndarray:
    """(n_exchanges,) tokens of each exchange, user text plus reply: what keeping it raw costs."""
    return np.array([count(u) + count(r) for u, r in case.exchanges], dtype=np.int64)


def rea_records(strategy, case: RetrievalCase) -> list[dict]:
    """Every query of ``case`` through ``strategy``'s own scoring and planning (no generation): the
    session grows exchange by exchange, so each query sees only what came before it."""
    return list(iter_rea_records(strategy, case))


EMBED_STEP = 8  # exchanges embedded in one gated step: well under a second of MiniLM on a CPU


def gated_steps(case: RetrievalCase) -> int:
    """The steps ``iter_rea_records`` enters ``step`` for on ``case``: exchange batches and queries."""
    steps, stored = 0, 0
    for q in sorted(case.queries, key=lambda q: q.position):
        if q.position > stored:
            steps += -(-(q.position - stored) // EMBED_STEP)  # ceil
            stored = q.position
        steps += 1
    return steps


def store_exchanges(strategy, case: RetrievalCase, session, position: int, *, step=None, embed: bool = True) -> None:
    """Store ``case``'s exchanges in ``session`` up to ``position`` (with times), embedding them when
    ``embed``: in batches of ``EMBED_STEP``, each inside ``step()``, where a step is given (a server
    can end the work between batches, and what was stored stays), else in one batch."""
    memory = session.episodes
    while len(memory) < position or (embed and memory.n_embedded < position):
        with step() if step is not None else nullcontext():
            start = len(memory)
            for i in range(start, min(position, start + EMBED_STEP) if step is not None else position):
                memory.append(*case.exchanges[i], time=case.time_of(i))
            if embed:
                memory.ensure_embedded(strategy.embedder)


def iter_rea_records(
    strategy, case: RetrievalCase, *, step: Callable[[], AbstractContextManager] | None = None
) -> Iterator[dict]:
    """``rea_records``, each query's record yielded as soon as it is scored.

    ``step()`` is entered around each unit of work (storing and embedding up to ``EMBED_STEP``
    exchanges, scoring one query; ``gated_steps`` counts them): a server passes its chats-first gate
    (``limits.ModelGate.background``) so a long history is embedded in short steps a chat can come
    between, and can stop between them (an exception raised by ``step`` ends the iteration). Without
    it the history is embedded at the first query, in one batch, as an evaluation run wants.
    """
    gate = step or nullcontext
    embed = step is not None and not getattr(strategy, "latent_scoring", False)
    count = strategy.generator.count_tokens
    cum = np.concatenate([[0], np.cumsum(exchange_tokens(case, count))])  # history tokens before each position
    session = strategy.new_session()
    if embed:
        session.episodes.use_unit_mode(strategy.config.scoring.unit_mode)  # as scoring will (no re-embedding)
    for q in sorted(case.queries, key=lambda q: q.position):
        store_exchanges(strategy, case, session, q.position, step=step, embed=embed)
        with gate():
            t0 = time.perf_counter()
            scores = strategy.score(session, q.text)
            seconds = time.perf_counter() - t0
            plan, decisions = strategy.replan(
                q.text, session.episodes.exchanges, (), scores, strategy.config.thresholds
            )
        kept = np.array([d.resolution is not Resolution.OMIT for d in decisions], dtype=bool)
        raw = np.array([d.resolution is Resolution.RAW for d in decisions], dtype=bool)
        floor = np.array(
            [d.reason in (Reason.RECENT, Reason.RECENT_BAND) for d in decisions], dtype=bool
        )  # kept at any tau_low
        rec = query_record(kept, raw, scores, q.needed, plan.total_tokens, int(cum[q.position]) + count(q.text))
        rec["sweep"] = sweep_record(scores, floor, q.needed)
        rec["recency_matched"] = recency_hit(len(kept), int(kept.sum()), q.needed)
        rec["seconds"] = seconds  # scoring wall time, a query rewrite's model call included
        if strategy.config.query_rewrite and session.last_rewrite is not None:
            rec["rewrite"] = session.last_rewrite.to_dict()
        yield rec


def run_case(policy: str, case: RetrievalCase, models, settings: Settings) -> list[dict]:
    """Every query of ``case`` under ``policy``: REA's real strategy code, or a baseline."""
    from ..methods.rea.strategy import REAStrategy
    from ..methods.secom.retriever import bm25_scores

    if policy in REA_POLICIES:
        strategy = REAStrategy(
            models.generator,
            models.embedder,
            policy_config(policy, settings.rea),
            runtime=settings.runtime,
            recognizer=None,
            codec=None,
        )
        return rea_records(strategy, case)
    count = models.generator.count_tokens
    ex_tokens = exchange_tokens(case, count)
    records = []
    texts = [exchange_text(u, r) for u, r in case.exchanges]
    vectors = models.embedder.encode(texts) if policy == "dense" else None
    for q in case.queries:
        n = q.position
        if policy == "keep-all":
            scores = np.linspace(0.0, 1.0, n)  # ranking by recency; everything is kept
            kept = np.ones(n, dtype=bool)
        else:
            if policy == "bm25":
                scores = bm25_scores(q.text, texts[:n])
            elif policy == "dense":
                scores = vectors[:n] @ models.embedder.encode([q.text])[0]
            elif policy == "recency":
                scores = np.arange(n, dtype=float)
            else:
                raise ValueError(f"unknown policy {policy!r}")
            kept = np.zeros(n, dtype=bool)
            kept[np.argsort(-scores, kind="stable")[:BASELINE_K]] = True
        tokens = int(ex_tokens[:n][kept].sum()) + count(q.text)
        records.append(query_record(kept, kept, scores, q.needed, tokens, int(ex_tokens[:n].sum()) + count(q.text)))
    return records


def check_policies(names: Sequence[str]) -> list[str]:
    unknown = [n for n in names if n not in REA_POLICIES and n not in BASELINES]
    if unknown:
        raise DataFormatError(
            f"unknown retrieval policy {', '.join(unknown)}; "
            f"choose from {', '.join(list(REA_POLICIES) + list(BASELINES))}"
        )
    return list(names)


def evaluate(
    models,
    config: Settings,
    cases: list[RetrievalCase],
    policies: Sequence[str],
    out_dir: str | Path,
    *,
    dataset: str,
    calibrate_target: float | None = None,
) -> dict:
    """Run every policy on every case (resumable), then write results.json and report.html."""
    import plotly.graph_objects as go

    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    policies = check_policies(policies)
    models = replace(models, embedder=CachedEmbedder(models.embedder))
    store = RecordStore(
        out_dir,
        {"task": "retrieval", "dataset": dataset, "embedder": models.embedder.name, "config": config.to_dict()},
    )
    run_arms(store, policies, cases, lambda p, case: run_case(p, case, models, config), label="retrieval")
    ids = [c.id for c in cases]
    per = {p: summarize(store.records(p, ids)) for p in policies}
    describe = {**{k: v[0] for k, v in REA_POLICIES.items()}, **BASELINES}
    results = {
        "task": "retrieval",
        "dataset": dataset,
        "conversations": len(cases),
        "queries": sum(len(c.queries) for c in cases),
        "embedder": models.embedder.name,
        "config": config.to_dict(),
        "policies": {
            p: {
                "describe": describe[p],
                **({"thresholds": _thresholds(p, config.rea)} if p in REA_POLICIES else {}),
                **m,
            }
            for p, m in per.items()
        },
    }
    if calibrate_target is not None:
        results["calibration"] = {
            p: {"scorer": policy_config(p, config.rea).scorer, **calibrate(m["sweep"], calibrate_target)}
            for p, m in per.items()
            if m.get("sweep")
        }
    write_results(out_dir, results)

    curve = go.Figure()
    for p, m in per.items():
        if m.get("sweep"):
            curve.add_scatter(
                x=m["sweep"]["kept_share"],
                y=m["sweep"]["all_kept"],
                mode="lines+markers",
                name=p,
                text=[f"tau_low {t:.2f}" for t in m["sweep"]["tau_low"]],
                hovertemplate="%{text}<br>kept %{x:.1%}<br>all needed kept %{y:.1%}",
            )
        else:
            curve.add_scatter(
                x=[m.get("kept_share", 0)],
                y=[m.get("all_kept", 0)],
                mode="markers",
                marker_symbol="diamond",
                marker_size=11,
                name=p,
            )
    curve.update_layout(
        title="All needed exchanges kept vs share of history kept (threshold sweep per REA scorer)",
        xaxis_title="mean share of earlier exchanges kept",
        yaxis_title="queries with every needed exchange kept",
        xaxis_range=[0, 1],
        yaxis_range=[0, 1],
    )
    bars = go.Figure()
    for k in RECALL_KS:
        bars.add_bar(x=list(per), y=[m.get(f"recall@{k}", 0) for m in per.values()], name=f"recall@{k}")
    bars.update_layout(title="Ranking quality: needed exchanges among the top k", barmode="group", yaxis_range=[0, 1])
    header = [
        "policy",
        "queries",
        "all kept",
        "recency at equal kept",
        "recall",
        "kept",
        "kept share",
        "prompt tokens",
        "prompt share",
    ] + [f"recall@{k}" for k in RECALL_KS]
    rows = [
        [
            p,
            m.get("queries"),
            m.get("all_kept"),
            m.get("recency_matched_all_kept"),
            m.get("recall"),
            m.get("kept"),
            m.get("kept_share"),
            m.get("prompt_tokens"),
            m.get("prompt_share"),
        ]
        + [m.get(f"recall@{k}") for k in RECALL_KS]
        for p, m in per.items()
    ]
    tables = [("Policies", header, rows)]
    if calibrate_target is not None:
        tables.append(
            (
                "Calibrated thresholds",
                ["policy", "scorer", "tau_low", "tau_high", "all kept", "kept share", "target reached"],
                [
                    [p, c["scorer"], c["tau_low"], c["tau_high"], c["all_kept"], c["kept_share"], c["reached"]]
                    for p, c in results["calibration"].items()
                ],
            )
        )
    write_report(
        out_dir,
        f"Retrieval ({dataset})",
        [curve, bars],
        tables,
        notes=f"{len(cases)} conversations, {results['queries']} queries, "
        f"embedder {models.embedder.name}. Scores are each scorer's own scale.",
    )
    return results


def _thresholds(policy: str, config: REAConfig) -> dict:
    cfg = policy_config(policy, config)
    return {"scorer": cfg.scorer, "tau_low": cfg.tau_low, "tau_high": cfg.tau_high}
