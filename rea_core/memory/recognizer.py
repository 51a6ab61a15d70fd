"""Instruction Recognizer (seed 000, section 3.3 and A.4): which user inputs enter Instructional Memory.

Two stages, as in the paper:
    1. a rule filter. A *persistence marker* ("from now on", "for the rest of this chat", "in all
       your replies") together with a reply-shaping verb is accepted by the rules alone: that
       wording is unambiguous. A revocation ("you can stop ...") is labeled ``revoke``. An input
       is stopped as "not global" only when no cue family of the recall-safe gate
       (``gate.py``: tone, format, persona, language, length, sign-offs, user facts, scope
       words) fires: missing a real instruction costs the most (IAR ~2.0, section D.3).
    2. everything else goes to a classifier. By default (``build_recognizer``) that is the
       shipped trained classifier (``default_recognizer.py``: logistic regression on MiniLM
       embeddings plus lexical cue features, stage "trained"); the paper's few-shot LLM
       classifier (prompt in ``prompts/recognizer.md``, score = P(yes) from the log-probabilities
       of "yes" and "no", stage "classifier") stays available with stage2="llm".
"""

from __future__ import annotations

import math
import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from importlib import resources

from typing import TYPE_CHECKING

from ..backends.base import Embedder, Generator
from ..backends.threads import torch_threads
from ..types import Recognition
from .gate import gate_cues

if TYPE_CHECKING:
    from .trained_recognizer import TrainedRecognizer

GLOBAL, REVOKE, OTHER = "global", "revoke", "other"
SINGLE_THREAD_MAX = 4  # deferred inputs embedded on one torch thread: faster for tiny batches (backends/threads.py)


def _rx(*patterns: str) -> list[tuple[str, re.Pattern]]:
    return [(p, re.compile(p, re.IGNORECASE)) for p in patterns]


# Wording that says an instruction lasts beyond this turn.
PERSISTENCE_CUES = _rx(
    r"\bfrom (now|here|this point)( on(wards?)?)?\b",
    r"\bgoing forward\b",
    r"\bhenceforth\b",
    r"\bfor the (rest|remainder) of (this|our|the) (conversation|chat|session|discussion)\b",
    r"\b(in|for) (all|every|each|any) (of )?(your )?(future |subsequent |later |following |remaining )?(responses?|answers?|repl(y|ies)|messages?|outputs?)\b",
    r"\b(every|each) (time you (respond|answer|reply|write)|(response|answer|reply|message) (you (give|write|send)|from now))\b",
    r"\buntil I (say|tell you) (otherwise|to stop)\b",
    r"\bwhenever you (respond|answer|reply|write|talk)\b",
    r"\b(all|every|each) (of )?your (future |subsequent )?(responses|answers|replies|messages)\b",
)

# An imperative aimed at the assistant: a reply-shaping verb opening a clause, or "you must/should".
DIRECTIVE_CUES = _rx(
    r"(^|[,.;:!]\s*|\b(on|forward|please|and)\s+)(respond|answer|reply|write|speak|talk|use|start|begin|end|finish|include|add|avoid|keep|limit|format|wrap|call me|address me|refer to me|act|pretend|be|stay|make|put|sign|translate|don't|do not|never|always|only)\b",
    r"\byou (must|should|need to|have to|are to|will need to)\b",
)

# Weaker cues: a constraint that may or may not be meant to last; the classifier decides.
CONSTRAINT_CUES = _rx(
    r"\balways\b",
    r"\bnever\b",
    r"\b(every|each) (time|response|answer|reply|sentence|paragraph)\b",
    r"\b(in|using|use) (all )?(lower ?case|upper ?case|capital letters|all caps|caps|title case)\b",
    r"\b(lower ?case|upper ?case|all caps|capital letters)\b",
    r"\b(respond|answer|reply|write|speak|talk) (only |just )?(in|with|using) (english|french|spanish|german|chinese|japanese|italian|portuguese|russian|korean|arabic|hindi|json|markdown|bullet|haiku|rhymes?|a single|one|short|plain)\b",
    r"\b(no more than|at most|under|fewer than|less than|at least|exactly) \d+ (words|sentences|paragraphs|bullet points|lines|characters)\b",
    r"\b(start|begin|end|finish) (each|every|all|your) (of )?(your )?(responses?|answers?|repl(y|ies)|sentences?|messages?)\b",
    r"\b(don't|do not|never) (use|say|mention|include|write|add|apologi[sz]e|respond|answer)\b",
    r"\bcall me\b|\baddress me as\b|\brefer to me as\b",
    r"\b(act|behave|respond|talk) (as|like) (a|an|my)\b|\bpretend (to be|you are)\b",
    r"\bwrap (your|the|every|each) (entire )?(response|answer|reply|output)\b",
    r"\bkeep (your|all|the) (responses|answers|replies)\b",
    r"\bplease (answer|respond|reply|write|use|keep|be)\b",
    r"\b(in|as) (valid )?json\b|\bbullet points?\b|\bno commas\b|\bwithout (using )?(any )?commas\b",
)

# The user lifts an earlier instruction.
REVOKE_CUES = _rx(
    r"\byou (can|may) stop\b",
    r"\bstop (answering|responding|replying|writing|using|doing|starting|beginning|ending|adding|including|speaking|talking|calling me)\b",
    r"\bno longer (need|have) to\b",
    r"\b(don't|do not) need to .{1,60}\b(any ?more|any longer)\b",
    r"\b(forget|ignore|drop|cancel) (about )?(my|the|that|those|these|all|any)( of)?( my| the| those| these)? (earlier |previous |prior |last |old )?(instructions?|rules?|constraints?|requests?)\b",
    r"\bgo back to (normal|your usual|the usual)\b",
    r"\bforget (what|everything|all) (I|I've|I have) (said|told you|asked)\b",
    r"\b(forget|ignore|drop|ditch|lose|cancel) (about )?(the|my|that|this) .{1,40}\b(thing|rule|instruction|request|bit|part|voice|accent|persona|act|style|format)\b",
    r"\bstop (shouting|yelling|saying|putting|signing|formatting|calling|that|it)\b",
)

# The user swaps a standing instruction for another ("actually, use capitals again"); acted on
# only when Instructional Memory holds an entry it refers to (``is_replacement``, REAStrategy).
_BACK_TO = r"\b(go|switch|change|get) back to\b"
REPLACE_CUES = _rx(
    r"^\W*(actually|on second thought|scratch that|change of plans?|wait)\b",
    _BACK_TO,
    r"\b(again|instead)\b",
)
_REDO = re.compile(r"\b(it|that|this|them) (again|instead)\b|\btry again\b|\bonce again\b", re.IGNORECASE)


def _matches(rules: list[tuple[str, re.Pattern]], text: str) -> list[str]:
    return [pattern for pattern, rx in rules if rx.search(text)]


def rule_stage(text: str) -> tuple[str | None, tuple[str, ...]]:
    """Stage 1. Returns (label or None when the classifier must decide, cues that fired).

    "other" only when no gate family (``gate.py``) fires: stopping a real instruction here is
    the one error stage 2 cannot repair, so anything that may shape replies is passed on.
    """
    revoke = _matches(REVOKE_CUES, text)
    persistence = _matches(PERSISTENCE_CUES, text)
    if revoke and not persistence:  # "stop using commas from now on" sets a rule, it lifts none
        return REVOKE, tuple(revoke)
    directive = _matches(DIRECTIVE_CUES, text)
    constraint = _matches(CONSTRAINT_CUES, text)
    if persistence and (directive or constraint):
        return GLOBAL, tuple(persistence + constraint)
    cues = tuple(persistence + constraint) + tuple(f"gate:{name}" for name in gate_cues(text))
    if cues:
        return None, cues
    return OTHER, ()


def is_replacement(text: str) -> bool:
    """A wish that replaces an earlier standing instruction rather than adding one.

    Needs a replacement cue and a directive, and is not a redo of one reply ("write it again",
    "try again") or a question.
    """
    if _REDO.search(text) or text.strip().endswith("?") or not _matches(REPLACE_CUES, text):
        return False
    return bool(_matches(DIRECTIVE_CUES, text) or _matches(CONSTRAINT_CUES, text) or re.search(_BACK_TO, text, re.I))


@dataclass
class RecognizerConfig:
    threshold: float = field(default=0.5, metadata={"help": "P(yes) at or above which the classifier says global"})
    use_classifier: bool = field(default=True, metadata={"help": "off: cue-only inputs are not global (rules alone)"})
    max_chars: int = field(default=2000, metadata={"help": "longer inputs are cut before the classifier reads them"})


class InstructionRecognizer:
    """Rule filter, then a few-shot LLM classifier on ``classifier`` (any ``Generator``).

    Given ``trained`` and its ``embedder``, stage 2 is that trained classifier instead of the
    LLM (stage "trained"); ``use_trained`` switches it at run time, e.g. from the app, and
    ``use_trained(None)`` goes back to what the recognizer was built with (``packaged``).
    """

    def __init__(self, classifier: Generator | None, config: RecognizerConfig | None = None, *,
                 trained: "TrainedRecognizer | None" = None, embedder: Embedder | None = None):
        self.classifier = classifier
        self.config = config or RecognizerConfig()
        self.trained: TrainedRecognizer | None = None
        self.embedder: Embedder | None = None
        self.packaged: tuple[TrainedRecognizer | None, Embedder | None] = (None, None)
        if trained is not None:
            self.use_trained(trained, embedder)
        self.packaged = (self.trained, self.embedder)
        self._prompt = resources.files("rea_core.prompts").joinpath("recognizer.md").read_text(encoding="utf-8")

    def recognize(self, text: str) -> Recognition:
        return self.recognize_many([text])[0]

    def recognize_many(self, texts: list[str]) -> list[Recognition]:
        """Verdicts for many inputs; the trained stage 2 embeds all deferred inputs in one batch."""
        out: list[Recognition | None] = [None] * len(texts)
        deferred: list[int] = []
        cues_of: dict[int, tuple[str, ...]] = {}
        for i, text in enumerate(texts):
            label, cues = rule_stage(text)
            if label is not None:
                out[i] = Recognition(label=label, score=0.0 if label == OTHER else 1.0, stage="rules", cues=cues)
            else:
                deferred.append(i)
                cues_of[i] = cues
        if deferred and self.trained is not None and self.config.use_classifier:
            with torch_threads(1) if len(deferred) <= SINGLE_THREAD_MAX else nullcontext():
                p = self.trained.p_global([texts[i][: self.config.max_chars] for i in deferred], self.embedder)
            for i, p_global in zip(deferred, p.tolist()):
                label = GLOBAL if p_global >= self.trained.threshold else OTHER
                out[i] = Recognition(label=label, score=p_global, stage="trained", cues=cues_of[i])
        for i in deferred:
            if out[i] is not None:
                continue
            if self.classifier is None or not self.config.use_classifier:
                out[i] = Recognition(label=OTHER, score=0.0, stage="rules", cues=cues_of[i])
            else:
                p_yes = self.classify(texts[i])
                out[i] = Recognition(label=GLOBAL if p_yes >= self.config.threshold else OTHER, score=p_yes, stage="classifier", cues=cues_of[i])
        return out  # type: ignore[return-value]

    def use_trained(self, trained: "TrainedRecognizer | None", embedder: Embedder | None = None) -> None:
        """Make ``trained`` stage 2 (None: back to the packaged stage 2). It needs the embedder it was trained on."""
        if trained is None:
            self.trained, self.embedder = self.packaged
            return
        if embedder is None or embedder.name != trained.embedder_name:
            from ..errors import InputError

            raise InputError(f"a trained recognizer needs its embedder {trained.embedder_name!r}")
        self.trained, self.embedder = trained, embedder

    @property
    def stage2(self) -> str:
        """What decides the inputs stage 1 defers: "trained", "llm" or "none" (rules only)."""
        if self.trained is not None and self.config.use_classifier:
            return "trained"
        return "llm" if self.classifier is not None and self.config.use_classifier else "none"

    def classify(self, text: str) -> float:
        """P(global) from the few-shot classifier: softmax over the "yes" and "no" answers."""
        message = " ".join(text.split())[: self.config.max_chars]
        prompt = self._prompt.replace("{message}", message)
        lp_yes, lp_no = self.classifier.choice_logprobs([{"role": "user", "content": prompt}], ["yes", "no"])
        return 1.0 / (1.0 + math.exp(lp_no - lp_yes))


def build_recognizer(classifier: Generator | None, embedder: Embedder | None, stage2: str = "trained") -> InstructionRecognizer:
    """The recognizer a strategy runs: stage 1, then the shipped trained classifier (default) or the LLM.

    The shipped classifier needs the embedder it was trained on; with another embedder the LLM
    stage decides instead (the shipped weights would give meaningless scores), and a warning says so.
    """
    if stage2 == "llm" or embedder is None:
        if classifier is not None:
            from ..backends.base import CHOICE_LOGPROBS, require

            require(classifier, {CHOICE_LOGPROBS}, "the recognizer's LLM stage 2 (REA_RECOGNIZER_STAGE2=llm)")
        return InstructionRecognizer(classifier)
    if stage2 != "trained":
        from ..errors import InputError

        raise InputError(f"recognizer stage 2 must be 'trained' or 'llm', got {stage2!r}")
    from .default_recognizer import load_default_recognizer

    model = load_default_recognizer()
    if embedder.name != model.embedder_name:
        import warnings

        warnings.warn(f"the shipped recognizer needs embedder {model.embedder_name!r}, not {embedder.name!r}; using the LLM stage 2", stacklevel=2)
        return InstructionRecognizer(classifier)
    return InstructionRecognizer(classifier, trained=model, embedder=embedder)
