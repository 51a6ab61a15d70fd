"""Every arm an evaluation runs, in one table: a registered strategy, one of the paper's ablation rows
(Table 4, D.3), a retrieval policy or baseline, or a QA prompt.

One row per name, so a name means one thing everywhere: its plain name (what the Results tab shows),
its description (what results.json says), the evaluations that accept it and, for REA's variants, the
settings it changes. Where one eval runs a narrower version of a shared name (``bm25`` in QA is cut
to REA's token budget), the row says so for that eval. An arm that builds a strategy builds it for
one conversation, so conditions that depend on the data (oracle Instructional Memory, a withheld
instruction, an added false positive) are real recognizers fed with that conversation's labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

from ..errors import UnknownStrategyError
from ..loading import Models, build_from_settings
from ..methods.base import Strategy
from ..methods.rea.config import REAConfig
from ..methods.registry import available_strategies, get_strategy
from ..recognizer import GLOBAL, OTHER, REVOKE, Recognizer
from ..settings import Settings
from ..types import Recognition, Resolution

# The evaluations an arm belongs to: REPLAY replays conversations through the strategy it builds
# (adherence, ablations, latency, state); RETRIEVAL scores each query's history (``rea eval
# retrieval``); QA builds the prompt a question is answered from (``rea eval qa``).
REPLAY, RETRIEVAL, QA = "replay", "retrieval", "qa"
BASELINE_K = 10  # exchanges the retrieval baselines keep

NO_FOLLOW_UP = {
    "context_turns": 0,
    "follow_up_decay": 0.0,
    "follow_up_prior": 0.0,
    "referent_top_k": 0,
    "recent_raw": 0,
    "recent_compressed": 0,
}


class LabelRecognizer(Recognizer):
    """Recognizer that answers from known labels: the oracle and simulated-error conditions of D.3."""

    def __init__(self, global_texts: set[str], revoke_texts: set[str] = frozenset()):
        self.global_texts, self.revoke_texts = set(global_texts), set(revoke_texts)

    def recognize(self, text: str) -> Recognition:
        if text in self.global_texts:
            return Recognition(label=GLOBAL, score=1.0, stage="oracle")
        if text in self.revoke_texts:
            return Recognition(label=REVOKE, score=1.0, stage="oracle")
        return Recognition(label=OTHER, score=0.0, stage="oracle")


@dataclass(frozen=True)
class Arm:
    """One arm. ``rea``: REA's settings it replaces (None: not a variant of REA); ``runtime``: serving
    settings it replaces; ``labels``: its recognizer from the conversation's labels; ``strategy``: the
    registered strategy it builds as is (``runtime`` applied); ``per_eval``: a narrower description where
    one eval runs the name differently."""

    name: str
    plain: str
    describe: str
    evals: frozenset[str]
    rea: Mapping[str, object] | None = None
    runtime: Mapping[str, object] = field(default_factory=dict)
    labels: Callable[[object], LabelRecognizer] | None = None
    strategy: str | None = None
    per_eval: Mapping[str, str] = field(default_factory=dict)

    def describe_for(self, kind: str) -> str:
        return self.per_eval.get(kind, self.describe)

    def rea_config(self, base: REAConfig) -> REAConfig:
        """``base`` with this arm's REA settings; thresholds re-calibrated for another scorer unless named."""
        overrides = dict(self.rea or {})
        if "scorer" in overrides and overrides["scorer"] != base.scorer:
            overrides.setdefault("tau_low", None)
            overrides.setdefault("tau_high", None)
        return replace(base, **overrides)

    def build(self, models: Models, settings: Settings, case) -> Strategy:
        """The strategy this arm replays ``case`` with."""
        if self.strategy is not None:
            served = settings.with_section("runtime", **self.runtime) if self.runtime else settings
            return build_from_settings(self.strategy, models, served)
        if self.rea is None:
            raise UnknownStrategyError(
                f"{self.name!r} builds no strategy; it is a {', '.join(sorted(self.evals))} arm"
            )
        return get_strategy("rea").from_models(
            models,
            self.rea_config(settings.rea),
            runtime=replace(settings.runtime, **self.runtime),
            recognizer=self.labels(case) if self.labels else None,
        )


def _oracle(case) -> LabelRecognizer:
    return LabelRecognizer(case.instruction_texts(), case.revoke_texts())


def _withheld(case) -> LabelRecognizer:
    return LabelRecognizer(set(), case.revoke_texts())


def _false_positive(case) -> LabelRecognizer:
    return LabelRecognizer(case.instruction_texts() | {case.first_ordinary_text()}, case.revoke_texts())


_REPLAY_QA = frozenset({REPLAY, QA})
_REPLAY, _RETRIEVAL, _QA = frozenset({REPLAY}), frozenset({RETRIEVAL}), frozenset({QA})
_QA_REA = (
    "REAStrategy's plan at its configured thresholds (no latent codec: compressed replies are text "
    "stand-ins; no Instructional Memory)"
)

ARMS: dict[str, Arm] = {
    arm.name: arm
    for arm in (
        Arm("none", "No earlier turns", "system prompt and question only", _QA),
        Arm("oracle", "Only the turns needed", "the question's evidence exchanges only, raw, in turn order", _QA),
        Arm(
            "vanilla",
            "Whole chat (vanilla)",
            "every exchange raw, the oldest cut to fit the context window",
            _REPLAY_QA,
            strategy="vanilla",
            per_eval={
                QA: "the vanilla strategy's full history, oldest whole exchanges dropped once per conversation to "
                "fit the window (context window - max new tokens, with a reserve for the question and answer)"
            },
        ),
        Arm(
            "rea",
            "REA",
            "REA as configured (default: hybrid scorer, follow-up awareness, recency)",
            frozenset({REPLAY, RETRIEVAL, QA}),
            rea={},
            strategy="rea",
            per_eval={QA: _QA_REA},
        ),
        Arm("rea-no-time", "REA without turn times", "as rea, with RuntimeConfig.show_time off", _QA),
        Arm(
            "rea-first-release",
            "REA, first release",
            "REA with the first release's HCR: user text + reply chunks (MiniLM), paper thresholds 0.5/0.7, "
            "no follow-up awareness or recency",
            frozenset({REPLAY, RETRIEVAL}),
            rea={
                "scorer": "minilm",
                "tau_low": 0.5,
                "tau_high": 0.7,
                "neighbor_weight": 0.0,
                **NO_FOLLOW_UP,
                "text_compression": "first_words",
            },
        ),
        Arm(
            "rea-minilm",
            "REA, scoring reply chunks",
            "user text + reply chunks (MiniLM), calibrated",
            _RETRIEVAL,
            rea={"scorer": "minilm"},
        ),
        Arm(
            "rea-exchange",
            "REA, scoring whole exchanges",
            "whole exchange (MiniLM), calibrated",
            _RETRIEVAL,
            rea={"scorer": "exchange"},
        ),
        Arm(
            "rea-sentence",
            "REA, scoring sentences (paper)",
            "the paper's sentence-level max pairwise cosine, calibrated",
            _RETRIEVAL,
            rea={"scorer": "sentence"},
        ),
        Arm(
            "rea-hybrid-plain",
            "REA by score alone",
            "hybrid without follow-up awareness or recency",
            _RETRIEVAL,
            rea={"scorer": "hybrid", **NO_FOLLOW_UP},
        ),
        Arm(  # not a default policy: one generator call per query (retrieval.rewrite)
            "rea-rewrite",
            "REA, question rewritten first",
            "REA as configured, also scoring the generator's standalone rewrite of each query (query_rewrite)",
            _RETRIEVAL,
            rea={"query_rewrite": True},
        ),
        Arm(
            "bm25",
            f"Keyword search, top {BASELINE_K}",
            f"BM25 (bm25s) top {BASELINE_K}",
            frozenset({RETRIEVAL, QA}),
            per_eval={
                QA: "BM25 (bm25s) top exchanges, added in rank order until their tokens reach what rea kept for that "
                "question, shown raw in turn order"
            },
        ),
        Arm(
            "dense", f"Meaning search, top {BASELINE_K}", f"whole-exchange MiniLM cosine top {BASELINE_K}", _RETRIEVAL
        ),
        Arm("recency", f"Last {BASELINE_K} turns only", f"the last {BASELINE_K} exchanges", _RETRIEVAL),
        Arm("keep-all", "Whole chat kept", "every exchange raw (vanilla)", _RETRIEVAL),
        Arm(
            "secom",
            "SeCom (topic segments)",
            "the SeCom strategy (segments, compression, retrieval), memory built exchange by exchange",
            _REPLAY_QA,
            strategy="secom",
        ),
        Arm(
            "comedy",
            "COMEDY (running summary)",
            "the COMEDY strategy (session memories, compressive memory), memory built exchange by exchange",
            _REPLAY_QA,
            strategy="comedy",
        ),
        Arm(
            "em-only",
            "Memory only, all shortened",
            "EM only: every exchange compressed, no HCR, no IM",
            _REPLAY,
            rea={"use_im": False, "use_hcr": False, "fixed_resolution": Resolution.COMPRESSED},
        ),
        Arm("em-hcr", "REA without instruction memory", "EM + HCR, no IM", _REPLAY, rea={"use_im": False}),
        Arm("em-hcr-im", "Full REA", "EM + HCR + IM (full REA)", _REPLAY, rea={}),
        Arm(
            "oracle-im",
            "REA told the true instructions",
            "REA with oracle recognition",
            _REPLAY,
            rea={},
            labels=_oracle,
        ),
        Arm(
            "im-withheld",
            "REA missing the instructions",
            "REA with the true instructions withheld from IM (false negatives)",
            _REPLAY,
            rea={},
            labels=_withheld,
        ),
        Arm(
            "im-false-positive",
            "REA with one false instruction",
            "REA with oracle IM plus one ordinary turn (a false positive)",
            _REPLAY,
            rea={},
            labels=_false_positive,
        ),
        Arm(
            "all-raw",
            "Every past turn sent whole",
            "EM + IM, every reply kept raw (no HCR)",
            _REPLAY,
            rea={"use_hcr": False, "fixed_resolution": Resolution.RAW},
        ),
        Arm(
            "all-omitted",
            "Every past reply left out",
            "EM + IM, every reply discarded (no HCR)",
            _REPLAY,
            rea={"use_hcr": False, "fixed_resolution": Resolution.OMIT},
        ),
        Arm(
            "rea-text-compressed",
            "REA, short replies as text",
            "REA with compressed replies as text even where a latent codec is loaded",
            _REPLAY,
            rea={"reply_form": "text"},
        ),
        Arm(
            "rea-latent-scorer",
            "REA, scoring with the codec",
            "REA scoring HCR with the codec's latent vectors instead of MiniLM (A.1)",
            _REPLAY,
            rea={"scorer": "latent", "tau_low": None, "tau_high": None},
        ),
        Arm(
            "rea-latest-only",
            "REA, latest turn only whole",
            "REA with only the latest exchange kept raw, no further working-memory window (the previous release)",
            _REPLAY,
            rea={"recent_raw": 1, "recent_compressed": 0},
        ),
        Arm(
            "rea-im-query",
            "REA, instructions by the question",
            "REA with Instructional Memory also restated next to the query",
            _REPLAY,
            rea={"im_placement": "query"},
        ),
        Arm(
            "rea-no-rules",
            "REA, model alone",
            "REA without output rules: Instructional Memory's checkable instructions are left to the model",
            _REPLAY,
            rea={"output_rules": False},
        ),
        Arm(
            "vanilla-cached",
            "Whole chat, server cache",
            "vanilla with per-session KV prefix reuse (what a chat server does)",
            _REPLAY,
            strategy="vanilla",
            runtime={"kv_reuse": True},
        ),
        Arm(
            "rea-cached",
            "REA, server cache",
            "REA with per-session KV prefix reuse",
            _REPLAY,
            rea={},
            runtime={"kv_reuse": True},
        ),
        Arm(
            "rea-chronological",
            "REA in turn order",
            "REA with its kept exchanges in turn order (the paper's), not laid out for prefix reuse",
            _REPLAY,
            rea={"layout": "chronological"},
        ),
        Arm(
            "rea-chronological-cached",
            "REA in turn order, server cache",
            "REA in turn order with per-session KV prefix reuse",
            _REPLAY,
            rea={"layout": "chronological"},
            runtime={"kv_reuse": True},
        ),
    )
}
# The replay arms that are not a registered strategy built as is: the ablation rows.
ABLATIONS: dict[str, Arm] = {n: a for n, a in ARMS.items() if REPLAY in a.evals and a.strategy != n}


def arms_for(kind: str) -> dict[str, Arm]:
    """The arms one evaluation accepts (``REPLAY``, ``RETRIEVAL`` or ``QA``), in the table's order."""
    return {n: a for n, a in ARMS.items() if kind in a.evals}


def plain_name(name: str) -> str:
    """An arm as a stakeholder reads it; a name not in the table (a file from elsewhere) as written."""
    return ARMS[name].plain if name in ARMS else name


def get_arm(name: str) -> Arm:
    """A replay arm: a registered strategy or an ablation."""
    if name in ARMS and REPLAY in ARMS[name].evals:
        return ARMS[name]
    if name in available_strategies():
        return Arm(name, name, f"strategy {name}", _REPLAY, strategy=name)
    raise UnknownStrategyError(
        f"Unknown strategy or ablation {name!r}; choose from: {', '.join(available_strategies() + sorted(ABLATIONS))}"
    )
