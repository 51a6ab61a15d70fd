"""REA's method settings, with the paper's defaults where they apply (REA paper, sections 3.4 and F).

Only what changes REA's context policy lives here: thresholds, the scorer, the working-memory
window, Instructional Memory, the reply form of the compressed band. How a strategy is served
(reply length, KV reuse) is ``runtime.RuntimeConfig``; the codec's fitting is ``latent_fit``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...compression.optimize import OptimizeConfig
from ...errors import check_choice
from ...prompt_layout import LAYOUTS
from ...retrieval.hcr_scores import HCRScoring
from ...retrieval.thresholds import Thresholds
from ...types import Resolution

PAPER_TAU_LOW = 0.5  # REA paper, section 3.4 and appendix F: the paper's scorer, not ours
PAPER_TAU_HIGH = 0.7
HCR_SCORERS = ("hybrid", "exchange", "minilm", "sentence", "latent")
# Thresholds per scorer, calibrated by `rea eval retrieval --calibrate --target 0.75` on the LoCoMo
# development half (BENCHMARKS.md, "Retrieval": the highest tau_low keeping all evidence for 75% of
# questions; tau_high where the raw band alone keeps half that). The paper's 0.5 / 0.7 belong to
# its own scorer and are kept only where nothing was calibrated (latent).
CALIBRATED_THRESHOLDS: dict[str, tuple[float, float]] = {
    "hybrid": (0.20, 0.36),
    "exchange": (0.42, 0.60),
    "minilm": (0.50, 0.66),
    "sentence": (0.50, 0.64),
    "latent": (PAPER_TAU_LOW, PAPER_TAU_HIGH),
}
DEFAULT_SCORER = "hybrid"
DEFAULT_TAU_LOW, DEFAULT_TAU_HIGH = CALIBRATED_THRESHOLDS[DEFAULT_SCORER]
IM_PLACEMENTS = ("system", "query")
TEXT_COMPRESSIONS = ("first_words", "extractive")
REPLY_FORMS = ("auto", "latent", "text")
CODEC_MODES = ("encode", "optimize")
RECOGNIZER_STAGE2 = ("trained", "llm")
# Working-memory window defaults: chosen by `benchmarks/window_sweep.py` (BENCHMARKS.md, "Working memory").
WINDOW_RAW, WINDOW_RAW_TOKENS, WINDOW_COMPRESSED = 3, 384, 1
REFERENT_TOP_K = 2

SCORER_LABELS = {
    "hybrid": "hybrid score: {w:.1f} x MiniLM cosine + {l:.1f} x normalized BM25",
    "exchange": "MiniLM cosine to the whole exchange",
    "minilm": "max pairwise MiniLM cosine (user text, reply chunks)",
    "sentence": "max pairwise MiniLM cosine (sentences)",
    "latent": "max pairwise cosine of codec latents",
}


def default_thresholds(scorer: str) -> tuple[float, float]:
    """The calibrated (tau_low, tau_high) of ``scorer``: what the app and CLI use unless told otherwise."""
    return CALIBRATED_THRESHOLDS.get(scorer, (PAPER_TAU_LOW, PAPER_TAU_HIGH))


@dataclass(frozen=True)
class REAConfig:
    """Knobs of REA's context policy. Ablation rows of Table 4 are switches here."""

    tau_low: float | None = field(
        default=None,
        metadata={
            "env": "REA_TAU_LOW",
            "help": "below this score an exchange is omitted (default: calibrated for the scorer)",
        },
    )
    tau_high: float | None = field(
        default=None,
        metadata={
            "env": "REA_TAU_HIGH",
            "help": "at or above this score an exchange is raw (default: calibrated for the scorer)",
        },
    )
    scorer: str = field(
        default=DEFAULT_SCORER,
        metadata={
            "env": "REA_SCORER",
            "help": "HCR scorer: `hybrid` (BM25 + whole-exchange MiniLM), "
            "`exchange` (whole-exchange MiniLM), `minilm` "
            "(user text + reply chunks, max pairwise), `sentence` "
            "(the paper's sentence-level max pairwise) or `latent` "
            "(codec latents, REA paper A.1)",
        },
    )
    use_im: bool = field(default=True, metadata={"help": "Instructional Memory and its recognizer on/off"})
    use_hcr: bool = field(default=True, metadata={"help": "Heuristic Context Retrieval on/off"})
    fixed_resolution: Resolution = field(
        default=Resolution.COMPRESSED,
        metadata={"help": "resolution of every exchange when HCR is off (compressed = the paper's 'EM only' row)"},
    )
    im_capacity: int = field(default=16, metadata={"help": "most instructions kept; the oldest is dropped past it"})
    im_placement: str = field(
        default="system",
        metadata={
            "help": "Instructional Memory: `system` (prefix, the paper) or `query` (also restated next to the query)"
        },
    )
    output_rules: bool = field(
        default=True,
        metadata={
            "env": "REA_OUTPUT_RULES",
            "help": "keep the checkable instructions in Instructional Memory (lowercase, capitals, no commas, "
            "exactly N bullet points) while decoding, whatever the model prefers (in-process models)",
        },
    )
    recognizer_stage2: str = field(
        default="trained",
        metadata={
            "env": "REA_RECOGNIZER_STAGE2",
            "help": "recognizer stage 2: `trained` (the shipped embedding classifier) or `llm` (the few-shot prompt)",
        },
    )
    max_reply_units: int = field(default=3, metadata={"help": "reply chunks embedded per exchange for HCR scoring"})
    dense_weight: float = field(
        default=0.3, metadata={"help": "hybrid scorer: weight of the cosine; the rest goes to normalized BM25"}
    )
    neighbor_weight: float = field(
        default=0.2,
        metadata={"help": "share of the better neighbouring exchange's score added to an exchange's own (0: off)"},
    )
    # Follow-up awareness. Defaults measured on the back-reference set (BENCHMARKS.md, "Retrieval"): the
    # joined query and the carry-forward lowered recall there (the previous turn is often unrelated), so
    # they are off; the referent prior and the best omitted exchanges are on.
    context_turns: int = field(
        default=0,
        metadata={"help": "follow-ups: also score the query joined with this many previous user turns (0: off)"},
    )
    follow_up_decay: float = field(
        default=0.0, metadata={"help": "follow-ups: the previous turn's scores carried forward times this (0: off)"}
    )
    follow_up_prior: float = field(
        default=0.2,
        metadata={
            "help": "weight of the referent prior (recent exchanges that produced something) added to the score, "
            "times the message's follow-up probability (0: off)"
        },
    )
    referent_top_k: int = field(
        default=REFERENT_TOP_K,
        metadata={
            "help": "the k best-ranked omitted exchanges beyond the "
            "working-memory window are kept at least compressed: "
            "a follow-up's referent ranks high far more often than it clears a threshold"
        },
    )
    query_rewrite: bool = field(
        default=False,  # measured on the back-reference set (BENCHMARKS.md, "Retrieval")
        metadata={
            "env": "REA_QUERY_REWRITE",
            "help": "`1`/`0`: the generator rewrites each query as a "
            "standalone question from the last `rewrite_turns` "
            "exchanges before HCR scores; both are scored, the better counts (for capable generators)",
        },
    )
    rewrite_turns: int = field(
        default=3, metadata={"env": "REA_REWRITE_TURNS", "help": "exchanges the query rewrite sees"}
    )
    # The working-memory window (hcr.keep_window): what the next reply most often depends on is the
    # latest exchanges, not the ones most similar to the message. Sizes from the joint sweep on the
    # adherence, follow-up and LoCoMo development sets (BENCHMARKS.md, "Working memory").
    recent_raw: int = field(
        default=WINDOW_RAW,
        metadata={
            "env": "REA_RECENT_RAW",
            "help": "working memory: most latest exchanges kept raw whatever their score (0: no window)",
        },
    )
    recent_raw_tokens: int = field(
        default=WINDOW_RAW_TOKENS,
        metadata={
            "env": "REA_RECENT_RAW_TOKENS",
            "help": "working memory: token budget of the raw window (the latest exchange always fits)",
        },
    )
    recent_compressed: int = field(
        default=WINDOW_COMPRESSED,
        metadata={
            "env": "REA_RECENT_COMPRESSED",
            "help": "working memory: exchanges before the raw window kept at least compressed",
        },
    )
    layout: str = field(
        default="window-first",
        metadata={
            "env": "REA_LAYOUT",
            "help": "order of the kept exchanges: `window-first` (the raw window and its band first, read ahead "
            "while the user types; the rest by score, the best nearest the query), `anchored` (those kept as in "
            "the previous prompt first, in its order; the rest by score, the window as one block by its best "
            "score) or `chronological` (turn order, the paper)",
        },
    )
    reply_form: str = field(
        default="auto",
        metadata={
            "env": "REA_REPLY_FORM",
            "help": "form of a compressed reply: `auto` (the form measured "
            "best on this backbone, recorded with the codec), "
            "`latent` (the codec's vectors, when one is loaded) or `text` (text-compressed)",
        },
    )
    text_compression: str = field(
        # measured: NLL gap share 0.772 vs 0.734 for extractive at equal tokens (BENCHMARKS, "Retrieval")
        default="first_words",
        metadata={
            "env": "REA_TEXT_COMPRESSION",
            "help": "how a reply is text-compressed: `first_words` (its first `text_compress_words` words) or "
            "`extractive` (its sentences nearest the query, within that budget)",
        },
    )
    text_compress_words: int = field(default=24, metadata={"help": "word budget of a text-compressed reply"})
    codec_mode: str = field(
        default="encode",
        metadata={
            "env": "REA_CODEC_MODE",
            "help": "how reply latents are made: `encode` (the codec's "
            "compress adapter) or `optimize` (fitted to each reply, "
            "backbone frozen, within `latent_fit`'s budget)",
        },
    )
    latent_fit: OptimizeConfig = field(
        default_factory=OptimizeConfig, metadata={"help": "codec_mode `optimize`: the per-reply fitting budget"}
    )

    def __post_init__(self) -> None:
        check_choice("scorer", self.scorer, HCR_SCORERS)
        # the fields stay two numbers (one REA_* variable each); the pair is made and checked here, once
        thresholds = Thresholds.completed(self.tau_low, self.tau_high, Thresholds(*default_thresholds(self.scorer)))
        object.__setattr__(self, "tau_low", thresholds.low)
        object.__setattr__(self, "tau_high", thresholds.high)
        check_choice("im_placement", self.im_placement, IM_PLACEMENTS)
        check_choice("text_compression", self.text_compression, TEXT_COMPRESSIONS)
        check_choice("reply_form", self.reply_form, REPLY_FORMS)
        check_choice("layout", self.layout, LAYOUTS)
        check_choice("codec_mode", self.codec_mode, CODEC_MODES)
        check_choice("recognizer_stage2", self.recognizer_stage2, RECOGNIZER_STAGE2)
        weights = (self.dense_weight, self.neighbor_weight, self.follow_up_decay, self.follow_up_prior)
        if not all(0.0 <= w <= 1.0 for w in weights):
            raise ValueError("dense_weight, neighbor_weight, follow_up_decay and follow_up_prior must lie in [0, 1]")
        counts = (
            self.context_turns,
            self.recent_raw,
            self.recent_raw_tokens,
            self.recent_compressed,
            self.referent_top_k,
        )
        if min(counts) < 0:
            raise ValueError(
                "context_turns, recent_raw, recent_raw_tokens, "
                "recent_compressed and referent_top_k must not be negative"
            )
        if self.query_rewrite not in (True, False) or self.rewrite_turns < 1:
            raise ValueError(
                f"query_rewrite must be True or False and rewrite_turns at least 1; "
                f"got {self.query_rewrite!r}, {self.rewrite_turns!r}"
            )
        if self.im_capacity < 1 or self.max_reply_units < 1 or self.text_compress_words < 1:
            raise ValueError("im_capacity, max_reply_units and text_compress_words must be positive")
        object.__setattr__(self, "fixed_resolution", Resolution(self.fixed_resolution))
        if isinstance(self.latent_fit, dict):  # from a saved config
            object.__setattr__(self, "latent_fit", OptimizeConfig(**self.latent_fit))

    @property
    def scoring(self) -> HCRScoring:
        """The settings HCR scoring reads (``retrieval.hcr_scores``), and nothing else."""
        return HCRScoring(
            scorer=self.scorer,
            dense_weight=self.dense_weight,
            neighbor_weight=self.neighbor_weight,
            context_turns=self.context_turns,
            follow_up_decay=self.follow_up_decay,
            follow_up_prior=self.follow_up_prior,
        )

    @property
    def unit_mode(self) -> str:
        """How Episodic Memory cuts exchanges into embedded units for this scorer."""
        return self.scoring.unit_mode

    @property
    def thresholds(self) -> Thresholds:
        """(tau_low, tau_high) as the one value HCR decides with."""
        return Thresholds(self.tau_low, self.tau_high)

    def with_thresholds(self, thresholds: Thresholds) -> REAConfig:
        return replace(self, tau_low=thresholds.low, tau_high=thresholds.high)

    @property
    def score_label(self) -> str:
        """What an HCR score is under this config: chart axes and the app header say it."""
        return SCORER_LABELS[self.scorer].format(w=self.dense_weight, l=1 - self.dense_weight)
