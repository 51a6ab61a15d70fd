"""Configuration of a REA pipeline, with the paper's defaults (seed 000, sections 3.4, F).

Environment variables (all optional):
    REA_MODEL           generator: a Hugging Face model id, a local folder, or ``packaged`` (default).
    REA_EMBEDDER        sentence embedder: model id, folder, or ``packaged`` (default).
    REA_CACHE_DIR       where converted models are kept (default ``~/.cache/rea-studio``).
    REA_TAU_LOW, REA_TAU_HIGH   HCR thresholds (default: the values calibrated for the scorer).
    REA_SCORER          HCR scorer: ``hybrid`` (default), ``exchange``, ``minilm``, ``sentence``, or ``latent`` (needs a codec).
    REA_CODEC           latent codec: ``auto`` (the one shipped for the backbone), ``none``, or a folder.
    REA_CODEC_MODE      how reply latents are made: ``encode`` (the codec's compress adapter, default) or ``optimize`` (fitted per reply).
    REA_OPTIMIZE_STEPS  step budget per reply of ``optimize`` (default 60).
    REA_COMPRESSED_FORM REA's compressed band: ``auto`` (the form measured best, recorded with the codec; default), ``latent`` or ``text``.
    REA_RECENT_RAW, REA_RECENT_RAW_TOKENS, REA_RECENT_COMPRESSED   the working-memory window (most raw exchanges, their token budget, the compressed band).
    REA_RECOGNIZER_STAGE2   recognizer stage 2: ``trained`` (the shipped classifier, default) or ``llm`` (few-shot).
    REA_QUERY_REWRITE   ``1``/``true`` or ``0``/``false``: rewrite each query as a standalone question before HCR scores (default off).
    REA_REWRITE_TURNS   exchanges the query rewrite sees (default 3).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, fields, replace

from .errors import ThresholdError
from .types import Resolution

PAPER_TAU_LOW = 0.5  # seed 000, section 3.4 and appendix F: the paper's scorer, not ours
PAPER_TAU_HIGH = 0.7
DEFAULT_MAX_MESSAGE_CHARS = 32_000
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
COMPRESSED_FORMS = ("extractive", "first_words")
CODEC_MODES = ("encode", "optimize")
LATENT_CHOICE = {"auto": None, "latent": True, "text": False}  # REA_COMPRESSED_FORM -> latent_replies
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


def scorer_label(config: "REAConfig") -> str:
    """What an HCR score is under ``config``: chart axes and the app header say it."""
    return SCORER_LABELS[config.scorer].format(w=config.dense_weight, l=1 - config.dense_weight)


def default_thresholds(scorer: str) -> tuple[float, float]:
    """The calibrated (tau_low, tau_high) of ``scorer``: what the app and CLI use unless told otherwise."""
    return CALIBRATED_THRESHOLDS.get(scorer, (PAPER_TAU_LOW, PAPER_TAU_HIGH))


def validate_thresholds(tau_low: float, tau_high: float) -> tuple[float, float]:
    """Return the thresholds as floats, or raise ThresholdError naming what is wrong."""
    try:
        lo, hi = float(tau_low), float(tau_high)
    except (TypeError, ValueError) as exc:
        raise ThresholdError(f"HCR thresholds must be numbers, got tau_low={tau_low!r}, tau_high={tau_high!r}") from exc
    for name, value in (("tau_low", lo), ("tau_high", hi)):
        if not 0.0 <= value <= 1.0:  # also rejects NaN
            raise ThresholdError(f"{name} must lie in [0, 1], got {value}")
    if lo > hi:
        raise ThresholdError(f"tau_low ({lo}) must not exceed tau_high ({hi})")
    return lo, hi


SECOM_SEGMENTERS = ("llm", "embedding")
SECOM_COMPRESSORS = ("auto", "llmlingua2", "ppl", "none")
SECOM_RETRIEVERS = ("bm25", "dense")


def env_flag(name: str, raw: str) -> bool:
    """A boolean environment value; anything but 1/0, true/false, yes/no, on/off is an error, not a silent default."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1 or 0 (true/false); got {raw!r}")


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


@dataclass(frozen=True)
class SeComConfig:
    """SeCom's settings (seed 001): segmentation, denoising, retrieval."""

    segmenter: str = field(
        default="llm",
        metadata={"help": "'llm' (zero-shot on the backbone, embedding fallback when its output does not parse) or 'embedding'"},
    )
    segment_window: int = field(default=6, metadata={"help": "unsegmented turns that trigger a segmentation pass"})
    boundary_threshold: float = field(
        default=0.15, metadata={"help": "embedding segmenter: a turn whose cosine to its segment's mean falls below this starts a new segment"}
    )
    compressor: str = field(
        default="auto",
        metadata={"help": "denoising: 'auto' (LLMLingua-2 where its model loads, else perplexity LLMLingua on the backbone), 'llmlingua2', 'ppl' or 'none'"},
    )
    compress_rate: float = field(default=0.75, metadata={"help": "share of tokens a memory unit keeps after compression (LLMLingua's rate; paper: 75%)"})
    retriever: str = field(default="bm25", metadata={"help": "retriever over compressed segments: 'bm25' (bm25s) or 'dense' (the embedder)"})
    top_k: int = field(default=3, metadata={"help": "segments retrieved per query (N)"})
    cache_entries: int = field(default=512, metadata={"help": "dense-retriever vectors cached per session, least recently used dropped past it"})

    def __post_init__(self) -> None:
        _choice("secom.segmenter", self.segmenter, SECOM_SEGMENTERS)
        _choice("secom.compressor", self.compressor, SECOM_COMPRESSORS)
        _choice("secom.retriever", self.retriever, SECOM_RETRIEVERS)
        if not 0.0 < self.compress_rate <= 1.0:
            raise ValueError(f"secom.compress_rate must lie in (0, 1], got {self.compress_rate}")
        if not -1.0 <= self.boundary_threshold <= 1.0:
            raise ValueError(f"secom.boundary_threshold must lie in [-1, 1], got {self.boundary_threshold}")
        if self.segment_window < 2 or self.top_k < 1 or self.cache_entries < 1:
            raise ValueError("secom.segment_window >= 2, secom.top_k >= 1 and secom.cache_entries >= 1 are required")


@dataclass(frozen=True)
class COMEDYConfig:
    """COMEDY's settings (seed 002): session length and the memory calls' budget."""

    session_turns: int = field(default=8, metadata={"help": "turns per session before memory extraction and compression run"})
    memory_tokens: int = field(default=160, metadata={"help": "new-token cap of the Task 1 and Task 2 model calls"})

    def __post_init__(self) -> None:
        if self.session_turns < 1 or self.memory_tokens < 8:
            raise ValueError("comedy.session_turns >= 1 and comedy.memory_tokens >= 8 are required")


@dataclass(frozen=True)
class REAConfig:
    """Knobs of the REA pipeline. Ablation rows of Table 4 are switches here."""

    tau_low: float | None = field(default=None, metadata={"help": "below this score an exchange is omitted (default: calibrated for the scorer)"})
    tau_high: float | None = field(default=None, metadata={"help": "at or above this score an exchange is raw (default: calibrated for the scorer)"})
    use_im: bool = field(default=True, metadata={"help": "Instructional Memory and its recognizer on/off"})
    use_hcr: bool = field(default=True, metadata={"help": "Heuristic Context Retrieval on/off"})
    fixed_resolution: Resolution = field(
        default=Resolution.COMPRESSED,
        metadata={"help": "resolution of every exchange when HCR is off (compressed = the paper's 'EM only' row)"},
    )
    im_capacity: int = field(default=16, metadata={"help": "most instructions kept; the oldest is dropped past it"})
    max_message_chars: int = field(default=DEFAULT_MAX_MESSAGE_CHARS, metadata={"help": "longest user message taken"})
    max_new_tokens: int = field(default=256, metadata={"help": "reply length cap"})
    kv_reuse: bool = field(default=False, metadata={"help": "reuse the session's KV prefix between turns (as chat servers do); off: every turn prefills in full, the paper's setting"})
    max_reply_units: int = field(default=3, metadata={"help": "reply chunks embedded per exchange for HCR scoring"})
    text_compress_words: int = field(default=24, metadata={"help": "word budget of the text-compressed reply stand-in"})
    latent_replies: bool | None = field(
        default=None,
        metadata={"help": "compressed replies as latent vectors (True, when a codec is loaded), text-compressed (False), or None: "
                          "the form measured best on this backbone, recorded with the codec (compression/forms.py)"},
    )
    codec_mode: str = field(default="encode", metadata={"help": "how reply latents are made: 'encode' (the codec's compress adapter) or 'optimize' (fitted to each reply, issue 15)"})
    optimize_steps: int = field(default=60, metadata={"help": "codec_mode 'optimize': Adam steps per reply at most (the background budget; 60 measured best of 0, 30, 60, 120)"})
    optimize_lr: float = field(default=1e-2, metadata={"help": "codec_mode 'optimize': learning rate"})
    optimize_target_accuracy: float = field(default=1.0, metadata={"help": "codec_mode 'optimize': stop once this share of the reply's tokens is predicted"})
    optimize_adapter: str = field(default="generate", metadata={"help": "codec_mode 'optimize': fit and generate under the 'generate' adapter or 'none' (plain backbone)"})
    scorer: str = field(
        default=DEFAULT_SCORER,
        metadata={"help": "HCR scorer: 'hybrid' (BM25 + whole-exchange MiniLM), 'exchange' (whole-exchange MiniLM), 'minilm' "
                          "(user text + reply chunks, max pairwise), 'sentence' (the paper's sentence-level max pairwise) or 'latent' (codec latents, A.1)"},
    )
    dense_weight: float = field(default=0.3, metadata={"help": "hybrid scorer: weight of the cosine; the rest goes to normalized BM25"})
    neighbor_weight: float = field(default=0.2, metadata={"help": "share of the better neighbouring exchange's score added to an exchange's own (0: off)"})
    # Follow-up awareness. Defaults measured on the back-reference set (BENCHMARKS.md, "Retrieval"): the
    # joined query and the carry-forward lowered recall there (the previous turn is often unrelated), so
    # they are off; the referent prior and the best omitted exchange are on.
    context_turns: int = field(default=0, metadata={"help": "follow-ups: also score the query joined with this many previous user turns, keeping the better score (0: off)"})
    follow_up_decay: float = field(default=0.0, metadata={"help": "follow-ups: the previous turn's scores carried forward times this (0: off)"})
    follow_up_prior: float = field(default=0.2, metadata={"help": "weight of the referent prior (recent exchanges that produced something) added to the score, "
                                                                     "times the message's follow-up probability (0: off)"})
    referent_top_k: int = field(default=REFERENT_TOP_K, metadata={"help": "the k best-ranked omitted exchanges beyond the working-memory window are kept at least compressed, "
                                                                                "for every message: a follow-up's referent ranks high far more often than it clears a threshold"})
    query_rewrite: bool = field(
        default=False,  # measured on the back-reference set (BENCHMARKS.md, "Retrieval")
        metadata={"help": "rewrite each query as a standalone question from the last rewrite_turns exchanges before scoring (one generator call per turn; "
                          "the original and the rewrite are both scored, the better counts); for capable generators: off on the packaged 135M model unless measured better"},
    )
    rewrite_turns: int = field(default=3, metadata={"help": "query_rewrite: how many of the latest exchanges the rewrite sees"})
    # The working-memory window (hcr.keep_window): what the next reply most often depends on is the
    # latest exchanges, not the ones most similar to the message. Sizes from the joint sweep on the
    # adherence, follow-up and LoCoMo development sets (BENCHMARKS.md, "Working memory").
    recent_raw: int = field(default=WINDOW_RAW, metadata={"help": "working memory: at most this many latest exchanges are kept raw whatever their score (0: no window)"})
    recent_raw_tokens: int = field(default=WINDOW_RAW_TOKENS, metadata={"help": "working memory: token budget of the raw window (the latest exchange is always in it)"})
    recent_compressed: int = field(default=WINDOW_COMPRESSED, metadata={"help": "working memory: this many exchanges before the raw window are kept at least compressed"})
    im_placement: str = field(default="system", metadata={"help": "Instructional Memory: 'system' (prefix, the paper) or 'query' (also restated next to the query)"})
    compressed_form: str = field(
        default="first_words",  # measured: NLL gap share 0.772 vs 0.734 for extractive at equal tokens (BENCHMARKS, "Retrieval")
        metadata={"help": "text-compressed reply: 'first_words' (its first text_compress_words words) or 'extractive' (its sentences nearest the query, within them)"},
    )
    recognizer_stage2: str = field(
        default="trained",
        metadata={"help": "recognizer stage 2: 'trained' (the shipped embedding classifier, issue 16) or 'llm' (the few-shot prompt on the recognizer model)"},
    )
    system_prompt: str = field(
        default="You are a helpful assistant.",
        metadata={"help": "system message shared by every strategy, so they differ only in context policy"},
    )
    # -- comparison strategies (issue 7), each with its own settings -----------------------------
    secom: SeComConfig = field(default_factory=SeComConfig, metadata={"help": "SeCom's settings (seed 001)"})
    comedy: COMEDYConfig = field(default_factory=COMEDYConfig, metadata={"help": "COMEDY's settings (seed 002)"})

    def __post_init__(self) -> None:
        if self.scorer not in HCR_SCORERS:
            raise ValueError(f"scorer must be one of {', '.join(HCR_SCORERS)}; got {self.scorer!r}")
        calibrated = default_thresholds(self.scorer)
        if self.tau_low is None and self.tau_high is None:
            object.__setattr__(self, "tau_low", calibrated[0])
            object.__setattr__(self, "tau_high", calibrated[1])
        elif self.tau_low is None:  # one given: the other calibrated, pulled along so the pair stays ordered
            object.__setattr__(self, "tau_low", min(calibrated[0], float(self.tau_high)))
        elif self.tau_high is None:
            object.__setattr__(self, "tau_high", max(calibrated[1], float(self.tau_low)))
        lo, hi = validate_thresholds(self.tau_low, self.tau_high)
        object.__setattr__(self, "tau_low", lo)
        object.__setattr__(self, "tau_high", hi)
        _choice("im_placement", self.im_placement, IM_PLACEMENTS)
        _choice("compressed_form", self.compressed_form, COMPRESSED_FORMS)
        _choice("codec_mode", self.codec_mode, CODEC_MODES)
        _choice("optimize_adapter", self.optimize_adapter, ("generate", "none"))
        if self.latent_replies not in (None, True, False):
            raise ValueError(f"latent_replies must be True, False or None (measured best); got {self.latent_replies!r}")
        if self.optimize_steps < 0 or not self.optimize_lr > 0 or not 0.0 < self.optimize_target_accuracy <= 1.0:
            raise ValueError("optimize_steps must be >= 0, optimize_lr > 0 and optimize_target_accuracy in (0, 1]")
        if not 0.0 <= self.dense_weight <= 1.0 or not 0.0 <= self.neighbor_weight <= 1.0 or not 0.0 <= self.follow_up_decay <= 1.0 or not 0.0 <= self.follow_up_prior <= 1.0:
            raise ValueError("dense_weight, neighbor_weight, follow_up_decay and follow_up_prior must lie in [0, 1]")
        if min(self.context_turns, self.recent_raw, self.recent_raw_tokens, self.recent_compressed, self.referent_top_k) < 0:
            raise ValueError("context_turns, recent_raw, recent_raw_tokens, recent_compressed and referent_top_k must not be negative")
        if self.query_rewrite not in (True, False) or self.rewrite_turns < 1:
            raise ValueError(f"query_rewrite must be True or False and rewrite_turns at least 1; got {self.query_rewrite!r}, {self.rewrite_turns!r}")
        if self.im_capacity < 1:
            raise ValueError("im_capacity must be at least 1")
        if self.max_message_chars < 1 or self.max_new_tokens < 1 or self.max_reply_units < 1:
            raise ValueError("max_message_chars, max_new_tokens and max_reply_units must be positive")
        object.__setattr__(self, "fixed_resolution", Resolution(self.fixed_resolution))
        _choice("recognizer_stage2", self.recognizer_stage2, RECOGNIZER_STAGE2)
        if isinstance(self.secom, dict):  # from a saved config
            object.__setattr__(self, "secom", SeComConfig(**self.secom))
        if isinstance(self.comedy, dict):
            object.__setattr__(self, "comedy", COMEDYConfig(**self.comedy))

    @property
    def unit_mode(self) -> str:
        """How Episodic Memory cuts exchanges into embedded units for this scorer."""
        return {"hybrid": "exchange", "exchange": "exchange", "sentence": "sentence"}.get(self.scorer, "units")

    def with_thresholds(self, tau_low: float, tau_high: float) -> "REAConfig":
        return replace(self, tau_low=tau_low, tau_high=tau_high)

    def to_dict(self) -> dict:
        d = asdict(self)  # secom and comedy become nested dicts
        d["fixed_resolution"] = self.fixed_resolution.value
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "REAConfig":
        """A config from ``to_dict``'s output; also reads the flat ``secom_*`` / ``comedy_*`` keys saved before they were grouped."""
        known = {f.name for f in fields(cls)}
        data = dict(data)
        for group, group_cls in (("secom", SeComConfig), ("comedy", COMEDYConfig)):
            flat = {k[len(group) + 1:]: data.pop(k) for k in list(data) if k.startswith(group + "_")}
            flat = {k: v for k, v in flat.items() if k in {f.name for f in fields(group_cls)}}
            if flat and group not in data:
                data[group] = flat
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_env(cls, **overrides) -> "REAConfig":
        """Defaults, then the REA_* variables of the module docstring from the environment, then explicit overrides.

        Thresholds not set anywhere are the scorer's calibrated ones."""
        env: dict = {}
        for name in ("tau_low", "tau_high"):
            raw = os.environ.get(f"REA_{name.upper()}")
            if raw:
                env[name] = float(raw)
        if os.environ.get("REA_SCORER"):
            env["scorer"] = os.environ["REA_SCORER"]
        if os.environ.get("REA_CODEC_MODE"):
            env["codec_mode"] = os.environ["REA_CODEC_MODE"]
        form = os.environ.get("REA_COMPRESSED_FORM")
        if form:
            if form not in LATENT_CHOICE:
                raise ValueError(f"REA_COMPRESSED_FORM must be one of {', '.join(LATENT_CHOICE)}; got {form!r}")
            env["latent_replies"] = LATENT_CHOICE[form]
        if os.environ.get("REA_KV_REUSE"):
            env["kv_reuse"] = os.environ["REA_KV_REUSE"].strip().lower() not in ("0", "false", "no", "off")
        for name in ("optimize_steps", "recent_raw", "recent_raw_tokens", "recent_compressed", "rewrite_turns"):
            raw = os.environ.get(f"REA_{name.upper()}")
            if raw:
                try:
                    env[name] = int(raw)
                except ValueError as exc:
                    raise ValueError(f"REA_{name.upper()} must be a whole number; got {raw!r}") from exc
        if os.environ.get("REA_RECOGNIZER_STAGE2"):
            env["recognizer_stage2"] = os.environ["REA_RECOGNIZER_STAGE2"]
        if os.environ.get("REA_QUERY_REWRITE"):
            env["query_rewrite"] = env_flag("REA_QUERY_REWRITE", os.environ["REA_QUERY_REWRITE"])
        env.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**env)
