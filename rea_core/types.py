"""Typed data that flows through REA (REA paper, sections 3.1-3.5).

Pure data: no torch, no I/O. Everything here serializes to plain JSON via ``to_dict``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Resolution(str, Enum):
    """How a stored exchange enters the prompt (HCR, section 3.4)."""

    RAW = "raw"  # user text + raw reply
    COMPRESSED = "compressed"  # user text + latent reply (text-compressed where no codec is loaded)
    OMIT = "omit"  # left out this turn; it can come back on a later query


class Reason(str, Enum):
    """Why an exchange has its resolution: the thresholds, or a rule that keeps it whatever its score."""

    SCORE = "score"  # the HCR score band (tau_low / tau_high)
    RECENT = "recent"  # the working-memory window: the latest exchanges, raw within a token budget
    RECENT_BAND = "recent band"  # the band before the window, kept at least compressed
    # among the best-ranked omitted exchanges beyond the window: what a follow-up may point back to
    REFERENT = "likely referent"
    FIXED = "fixed"  # one resolution for every exchange (HCR off, a baseline's own policy)
    # demoted (raw to compressed, or compressed to omitted) so the prompt fits the model's window
    BUDGET = "prompt budget"
    # the message was a global instruction and nothing else: IM already holds its text verbatim, so
    # the exchange is not repeated among the turns
    IN_IM = "held in Instructional Memory"

    @property
    def is_rule(self) -> bool:
        """Kept by a rule rather than by its score: views say which rule."""
        return self in (Reason.RECENT, Reason.RECENT_BAND, Reason.REFERENT)

    @property
    def label(self) -> str:
        """How views name it: "score band", "kept by rule: recent", "fixed"."""
        return (
            f"kept by rule: {self.value}" if self.is_rule else ("score band" if self is Reason.SCORE else self.value)
        )


class SegmentKind(str, Enum):
    """The typed blocks of a hybrid prompt, in the order they are rendered (section 3.5)."""

    SYSTEM = "system"
    INSTRUCTIONS = "instructions"
    EXCHANGE = "exchange"
    MEMORY = "memory"  # a memory unit of a comparison strategy: a SeCom segment, COMEDY's compressive memory
    QUERY = "query"


class ReplyForm(str, Enum):
    """What stands in for the model reply inside a compressed exchange."""

    RAW = "raw"
    TEXT_COMPRESSED = "text_compressed"  # extractive text stand-in; never called latent
    LATENT = "latent"  # latent vectors from the compression adapter (Latent Episodic Memory)


@dataclass(frozen=True)
class InstructionEntry:
    """One global instruction held in Instructional Memory, verbatim, with why it is there."""

    text: str
    turn: int  # turn index where the user gave it (0-based); -1 when added by hand
    source: str = "recognizer"  # "recognizer" or "user"
    stage: str = ""  # recognizer stage that accepted it: "rules" or "classifier"
    score: float = 1.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Recognition:
    """Instruction Recognizer verdict for one user input (section 3.3, A.4).

    ``label`` is "global" (a persistent directive governing later replies), "revoke" (the user
    lifts an earlier one) or "other" (a task-specific request or an ordinary query). ``stage``
    says who decided: "rules" (stage 1 alone), "trained" (the trained classifier of stage 2),
    "multilingual" (stage 2 for fr/de/es/it/pt), "word-classes" (the English second opinion beside the
    trained classifier), "classifier" (the few-shot LLM of stage 2),
    "replacement" (REA: the input swaps an
    instruction Instructional Memory holds) or "oracle" (an evaluation arm given the gold labels).
    ``cues`` are the rule patterns that fired, so a UI can explain the decision. ``sentences`` are
    the sentences of the input that are the instruction (sentence-level recognition):
    Instructional Memory stores those; empty means the whole input.
    """

    label: str
    score: float
    stage: str
    cues: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()

    @property
    def is_global(self) -> bool:
        return self.label == "global"

    def instruction(self, text: str) -> str:
        """What Instructional Memory stores for ``text``: its instruction sentences, else the whole input."""
        return " ".join(self.sentences) if self.sentences else text.strip()

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "score": self.score,
            "stage": self.stage,
            "cues": list(self.cues),
            "sentences": list(self.sentences),
        }


@dataclass(frozen=True)
class Decision:
    """HCR decision for one stored exchange against the current query."""

    turn: int
    score: float | None  # None where no retrieval score applies (full-history baselines)
    resolution: Resolution
    reason: Reason = Reason.SCORE

    def to_dict(self) -> dict:
        return {
            "turn": self.turn,
            "score": self.score,
            "resolution": self.resolution.value,
            "reason": self.reason.value,
        }


@dataclass(frozen=True)
class Segment:
    """One block of a prompt plan, with its token count under the generator's tokenizer.

    For an exchange segment, ``turn`` is its turn index, ``resolution`` its HCR decision and
    ``reply_form`` what stands in for the reply. ``user`` and ``reply`` hold the text that the
    generator sees (``reply`` is empty for an omitted exchange); ``source_reply`` is the
    original reply, so a view can show what a compressed reply stands for. ``time`` is when the
    exchange happened (stored form of ``rea_core.timestamps``) where known and shown to the model
    (``RuntimeConfig.show_time``); a kept exchange's ``user`` is read with it as a prefix
    (``reconstruction.user_as_read``), and an omitted one keeps it for views.
    """

    kind: SegmentKind
    tokens: int
    text: str = ""  # system / instructions / query text
    turn: int | None = None
    resolution: Resolution | None = None
    reply_form: ReplyForm | None = None
    user: str = ""
    reply: str = ""
    source_reply: str = ""
    score: float | None = None
    reason: Reason | None = None  # exchange segments: why the exchange has its resolution
    latent_vectors: int = 0  # latent positions standing for the reply (reply_form LATENT)
    label: str = ""  # memory segments: what the unit is (e.g. "segment 2 · turns 3-5 · bm25"), for views
    turns: tuple[int, ...] = ()  # memory segments: the turns the unit stands for
    time: str | None = None  # exchange segments: when it happened (stored form), None when unknown or not shown

    def to_dict(self) -> dict:
        d = asdict(self)
        d["turns"] = list(self.turns)
        d["kind"] = self.kind.value
        d["resolution"] = self.resolution.value if self.resolution else None
        d["reply_form"] = self.reply_form.value if self.reply_form else None
        d["reason"] = self.reason.value if self.reason else None
        return d


@dataclass(frozen=True)
class OutputRule:
    """A standing instruction decoding keeps by itself (``memory.output_rules``): a rule ``kind`` such as
    "lowercase", and the IM text it comes from."""

    kind: str
    source: str
    count: int = 0  # "bullets": how many

    @property
    def label(self) -> str:
        """How views name it: "lowercase letters only", "exactly 3 bullet points"."""
        if self.kind == "bullets":
            return f"exactly {self.count} bullet points"
        labels = {"lowercase": "lowercase letters only", "uppercase": "capital letters only", "no_comma": "no commas"}
        return labels.get(self.kind, self.kind)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PromptPlan:
    """The ordered hybrid prompt a strategy hands to the generator (section 3.5, Table 13).

    Segments run: system, instruction prefix, exchanges in turn order (omitted ones kept
    with zero tokens so views can show them), then the current query.
    """

    segments: tuple[Segment, ...]
    notes: tuple[str, ...] = ()  # what a view must say about how the plan was made (e.g. a parse fallback)
    rules: tuple[OutputRule, ...] = ()  # what decoding keeps whatever the model prefers (REA: from IM)
    # the most tokens the prompt may take (REA: the model's window less the reply's); past it HCR
    # demotes the lowest-scored exchanges. None where no budget applies.
    budget: int | None = None

    @property
    def total_tokens(self) -> int:
        return sum(s.tokens for s in self.segments)

    @property
    def instructions(self) -> Segment | None:
        return next((s for s in self.segments if s.kind is SegmentKind.INSTRUCTIONS), None)

    @property
    def query(self) -> str:
        """The current user message the plan answers (its last segment)."""
        return next(s.text for s in reversed(self.segments) if s.kind is SegmentKind.QUERY)

    def exchanges(self) -> list[Segment]:
        return [s for s in self.segments if s.kind is SegmentKind.EXCHANGE]

    def to_dict(self) -> dict:
        return {
            "segments": [s.to_dict() for s in self.segments],
            "total_tokens": self.total_tokens,
            "notes": list(self.notes),
            "rules": [r.to_dict() for r in self.rules],
            "budget": self.budget,
        }


@dataclass(frozen=True)
class Generation:
    """One generator call: the reply and what it cost."""

    text: str
    prompt_tokens: int
    new_tokens: int
    wall_s: float
    truncated_tokens: int = 0  # prompt tokens dropped from the left to fit the context window
    ttft_s: float | None = None  # seconds from the call to its first decoded token (None: no token)
    reused_tokens: int = 0  # prompt positions whose KV came from the session's prefix cache
    cache_bytes: int = 0  # the session's prefix cache after the call (0: no cache kept)
    cache_note: str = ""  # why the cache was not (fully) used, e.g. a slid window forced a full prefill
    token_source: str = "tokenizer"  # where prompt_tokens came from: "tokenizer" or "server usage"
    stopped: bool = False  # the caller stopped the stream before the reply ended
    out_of_time: bool = False  # decoding stopped at the call's time budget (``budget_s``) before the reply ended
    cut_at_tokens: int | None = None  # the reply reached this token limit (``max_new_tokens``) before it ended
    kept_rules: tuple[str, ...] = ()  # output rules decoding kept (``OutputRule.label``)
    rule_rewrites: int = 0  # choices of the model rewritten or replaced to keep them


@dataclass(frozen=True)
class Prefill:
    """A prompt opening read ahead into a session's KV cache (``Strategy.warm``): what it cost."""

    tokens: int  # positions the cache now holds
    reused_tokens: int  # of them, already cached before the call
    wall_s: float


@dataclass(frozen=True)
class Timings:
    """Wall time of each step of a turn, in seconds."""

    recognize_s: float = 0.0
    retrieve_s: float = 0.0
    generate_s: float = 0.0
    store_s: float = 0.0

    @property
    def total_s(self) -> float:
        return self.recognize_s + self.retrieve_s + self.generate_s + self.store_s

    def to_dict(self) -> dict:
        d = asdict(self)
        d["total_s"] = self.total_s
        return d


@dataclass(frozen=True)
class TurnResult:
    """What ``Strategy.respond`` returns for one user turn."""

    turn: int
    reply: str
    plan: PromptPlan
    decisions: tuple[Decision, ...]
    recognition: Recognition | None
    prompt_tokens: int
    new_tokens: int
    truncated_tokens: int
    generated: bool  # False when a given reply was stored instead (replay)
    timings: Timings = field(default_factory=Timings)
    generation: Generation | None = None  # the model call's own figures (TTFT, KV reuse); None in replay
    reuse_note: str = ""  # where the prompt parts from the one the model read before (``prompt_layout.reuse_note``)

    @property
    def scores(self) -> list[float]:
        return [d.score for d in self.decisions]

    def decision_counts(self) -> dict[str, int]:
        counts = {r.value: 0 for r in Resolution}
        for d in self.decisions:
            counts[d.resolution.value] += 1
        return counts
