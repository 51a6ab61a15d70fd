"""Instruction Recognizer (REA paper, section 3.3 and A.4): which user inputs enter Instructional Memory.

Two stages, as in the paper:
    1. a rule filter (``rules.py``). A *persistence marker* ("from now on", "for the rest of this chat", "in all
       your replies") together with a reply-shaping verb is accepted by the rules alone: that
       wording is unambiguous. A revocation ("you can stop ...") is labeled ``revoke``. An input
       is stopped as "not global" only when no cue family of the recall-safe gate
       (``gate.py``: tone, format, persona, language, length, sign-offs, user facts, scope
       words) fires: missing a real instruction costs the most (IAR ~2.0, section D.3).
    2. everything else goes to a classifier. By default (``build_recognizer``) that is the
       shipped trained classifier (``default.py``: logistic regression on MiniLM
       embeddings plus lexical cue features, stage "trained"); the paper's few-shot LLM
       classifier (prompt in ``templates/recognizer.md``, score = P(yes) from the log-probabilities
       of "yes" and "no", stage "classifier") stays available with stage2="llm". Inputs in
       French, German, Spanish, Italian or Portuguese go to the multilingual stage 2 instead
       (``multilingual.py``, stage "multilingual"), whichever English stage 2 runs. Beside the trained
       stage 2, an English second opinion (the same embedding plus English word classes, stage
       "word-classes") may still call global an English message of at most WORD_CLASS_MAX_WORDS words
       that the trained classifier scores low; it never takes a global verdict away.
"""

from __future__ import annotations

import math
import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..backends.base import Embedder, Generator
from ..backends.threads import torch_threads
from ..types import Recognition
from .addressee import quoted_spans, task_frame
from .labels import GLOBAL, OTHER
from .multilingual import ENGLISH_MODEL, WordClassRecognizer, flags, load_multilingual, load_word_classes
from .rules import FRAME_CUE, LANG_CUE, rule_stage
from .sentences import message_language, split_message

if TYPE_CHECKING:
    import numpy as np

    from .trained import TrainedRecognizer

WORD_CLASS_STAGE = "word-classes"
# The English word-class model decides only messages of at most this many words: it was fitted on chat
# messages (the hard set's are 4 to 60 words); long pasted prompts and code are the embedding model's.
WORD_CLASS_MAX_WORDS = 80
SINGLE_THREAD_MAX = 4  # deferred inputs embedded on one torch thread: faster for tiny batches (backends/threads.py)
# Stage 2's P(global) is multiplied by this where an addressee frame is present (the words are the
# content of a task or a rule for others, ``addressee.py``); chosen on the hard set's dev half.
FRAME_WEIGHT = 0.3
# A sentence judged global by stage 2 alone counts only when the whole message scores at least this
# (the sentence read in the context of its message: "Use rhymes." after "Write a poem." does not).
CONTEXT_FLOOR = 0.2
# A chosen sentence that points back ("keep that in mind", "reflect that") takes the sentence before it.
_BACK_REFERENCE = re.compile(
    r"\b(that|this|it|ça|cela|le|das|dies|eso|esto|lo|isso|isto|questo|ciò|ne)\b[^.?!]{0,40}[.?!]?$"
    r"|^\W*(so|therefore|donc|also|deshalb|así que|quindi|então)\b",
    re.IGNORECASE,
)


@runtime_checkable
class Recognizer(Protocol):
    """What REA asks of a recognizer: a verdict per user input (``InstructionRecognizer``, or an
    evaluation arm's recognizer that answers from gold labels)."""

    def recognize(self, text: str) -> Recognition: ...


@dataclass(frozen=True)
class StageVerdicts:
    """What each stage of the recognizer says of one input (``InstructionRecognizer.explain``).

    Example:
        >>> v = recognizer.explain("Could you keep things brief?")
        >>> v.rules, v.scorer, round(v.p_global, 2), v.verdict.label
        (None, 'trained', 0.41, 'other')
    """

    rules: str | None  # stage 1's label (GLOBAL, OTHER, REVOKE), or None where it defers to stage 2
    cues: tuple[str, ...]  # the rule patterns stage 1 saw
    scorer: str  # the stage-2 model that scored it: "trained", "multilingual", WORD_CLASS_STAGE, "classifier", "none"
    language: str  # "en", or the fr/de/es/it/pt stage 1 read it in (the multilingual stage 2 scores those)
    p_global: float | None  # that model's P(global) for the whole input, asked even where stage 1 decided; None: none
    verdict: Recognition | None  # the recognizer's verdict; None only where ``ask_llm=False`` left an LLM unasked


@dataclass
class RecognizerConfig:
    threshold: float = field(default=0.5, metadata={"help": "P(yes) at or above which the classifier says global"})
    use_classifier: bool = field(default=True, metadata={"help": "off: cue-only inputs are not global (rules alone)"})
    max_chars: int = field(default=2000, metadata={"help": "longer inputs are cut before the classifier reads them"})


class InstructionRecognizer:
    """Rule filter, then a few-shot LLM classifier on ``llm`` (any ``Generator``).

    Given ``trained`` and its ``embedder``, stage 2 is that trained classifier instead of the
    LLM (stage "trained"); ``use_trained`` switches it at run time, e.g. from the app, and
    ``use_trained(None)`` goes back to what the recognizer was built with (``packaged``). Inputs
    in French, German, Spanish, Italian or Portuguese go to ``multilingual`` instead (stage
    "multilingual"; the shipped one unless given), whichever English stage 2 runs.
    """

    def __init__(
        self,
        llm: Generator | None,
        config: RecognizerConfig | None = None,
        *,
        trained: "TrainedRecognizer | None" = None,
        embedder: Embedder | None = None,
        multilingual: WordClassRecognizer | None = None,
        english_words: WordClassRecognizer | None = None,
        use_english_words: bool = True,
    ):
        self.llm = llm
        # fr/de/es/it/pt inputs: the shipped word-class model unless another is given (``multilingual.py``)
        self.multilingual = multilingual if multilingual is not None else load_multilingual()
        # English messages the embedding stage 2 scores low: the shipped English word-class model unless given
        if english_words is None and use_english_words:
            english_words = load_word_classes(ENGLISH_MODEL)
        self.english_words = english_words
        self.config = config or RecognizerConfig()
        self.trained: TrainedRecognizer | None = None
        self.embedder: Embedder | None = None
        self.packaged: tuple[TrainedRecognizer | None, Embedder | None] = (None, None)
        if trained is not None:
            self.use_trained(trained, embedder)
        self.packaged = (self.trained, self.embedder)
        self._prompt = resources.files("rea_core.templates").joinpath("recognizer.md").read_text(encoding="utf-8")

    def recognize(self, text: str) -> Recognition:
        return self.recognize_many([text])[0]

    def recognize_many(self, texts: list[str]) -> list[Recognition]:
        """Verdicts for many inputs, sentence by sentence.

        A message of several sentences is recognized whole and per sentence, in one stage-2
        batch, each read in its own language. It is global when a sentence is (by the rules, by the
        English stage 2 with the whole message scoring at least CONTEXT_FLOOR, or by the multilingual
        stage 2 at its sentence threshold; never inside quoted text), and then ``sentences`` names
        the instruction sentences Instructional Memory stores (none when the message asks nothing
        else: then all of it is the wish); else the whole message's verdict stands, down-weighted
        when one of its sentences is content of a task (``sentences`` empty: the whole input is stored).
        """
        units: list[str] = []
        langs: list[str] = []
        is_sentence: list[bool] = []
        short: list[bool] = []  # a unit of a message the English word-class model may decide
        spans: list[tuple[int, int, list[str]]] = []
        for text in texts:
            sentences = split_message(text)
            sentences = sentences if len(sentences) > 1 else []
            spans.append((len(units), len(units) + 1 + len(sentences), sentences))
            units += [text, *sentences]
            langs += [message_language(t) for t in (text, *sentences)]  # "Rispondi sempre in italiano. What's ...?"
            is_sentence += [False] + [True] * len(sentences)
            short += [len(text.split()) <= WORD_CLASS_MAX_WORDS] * (1 + len(sentences))
        verdicts = self._recognize_units(units, langs, is_sentence, short)
        return [self._combine(text, verdicts[a], verdicts[a + 1 : b], s) for text, (a, b, s) in zip(texts, spans)]

    def explain(self, text: str, *, ask_llm: bool = True) -> StageVerdicts:
        """Each stage's verdict on ``text``: stage 1's label and cues, the stage-2 model that scores it
        (the multilingual one for fr/de/es/it/pt; the English second opinion where it is what stores the
        input) with its P(global), and the verdict of the whole recognizer.

        Args:
            text: One user input.
            ask_llm: False: an LLM stage 2 is not asked (no model call; its score and verdict are None).
        """
        rules, cues = rule_stage(text)
        if cues[:1] and cues[0].startswith(LANG_CUE) and self.multilingual is not None:
            lang = cues[0][len(LANG_CUE) :]
            p = float(self.multilingual.p_global([text], lang)[0])
            return StageVerdicts(rules, cues, "multilingual", lang, p, self.recognize(text))
        if self.stage2 == "trained":
            verdict = self.recognize(text)
            if rules is None and verdict.stage == WORD_CLASS_STAGE:  # the trained classifier scored it low
                return StageVerdicts(rules, cues, WORD_CLASS_STAGE, "en", verdict.score, verdict)
            p = float(self.trained.p_global([text[: self.config.max_chars]], self.embedder)[0])
            return StageVerdicts(rules, cues, "trained", "en", p, verdict)
        if self.stage2 == "llm":
            if not ask_llm:
                return StageVerdicts(rules, cues, "classifier", "en", None, None)
            return StageVerdicts(rules, cues, "classifier", "en", self.classify(text), self.recognize(text))
        return StageVerdicts(rules, cues, "none", "en", None, self.recognize(text))

    def _combine(self, text: str, whole: Recognition, parts: list[Recognition], sentences: list[str]) -> Recognition:
        """One message's verdict from its whole-text verdict and its sentences' verdicts."""
        if not parts:
            return whole
        quotes = quoted_spans(text)

        def counts(i: int) -> bool:
            v = parts[i]
            if v.label != GLOBAL:
                return False
            start = text.find(sentences[i])
            if any(qs <= start < qe for qs, qe in quotes):  # a quoted sentence is content
                return False
            if v.stage in ("multilingual", WORD_CLASS_STAGE):
                return True  # its sentence threshold was chosen per message, with the whole message's (training)
            return v.stage == "rules" or whole.score >= CONTEXT_FLOOR

        chosen = [i for i in range(len(parts)) if counts(i)]
        if not chosen:
            frames = tuple(dict.fromkeys(c for v in parts for c in v.cues if c.startswith(FRAME_CUE)))
            if whole.label == GLOBAL and whole.stage != "rules" and frames:
                # "I'm building a bot. Write its system prompt: always ...": no sentence is a wish, one is content
                return Recognition(OTHER, whole.score * FRAME_WEIGHT, whole.stage, (*whole.cues, *frames))
            return whole
        keep = set(chosen)
        for i in chosen:
            if i > 0 and i - 1 not in keep and _BACK_REFERENCE.search(sentences[i]):
                if not sentences[i - 1].rstrip().endswith("?"):
                    keep.add(i - 1)
        best = max(chosen, key=lambda i: parts[i].score)
        cues = tuple(dict.fromkeys(c for i in sorted(keep) for c in parts[i].cues))
        # Only a message that also asks something (a question, a piece of content) is cut down to its
        # instruction; otherwise its other sentences belong to the wish ("Too long. Be concise.").
        asks = any("?" in s or task_frame(s) for i, s in enumerate(sentences) if i not in keep)
        return Recognition(
            label=GLOBAL,
            score=max(parts[best].score, whole.score if whole.label == GLOBAL else 0.0),
            stage=parts[best].stage,
            cues=cues,
            sentences=tuple(sentences[i] for i in sorted(keep)) if asks else (),
        )

    def _recognize_units(
        self,
        texts: list[str],
        langs: list[str],
        is_sentence: list[bool] | None = None,
        short: list[bool] | None = None,
    ) -> list[Recognition]:
        """Verdicts for texts taken as they are, each read as its language; the trained stage 2
        embeds all deferred English ones in one batch, the multilingual stage 2 decides the others."""
        out: list[Recognition | None] = [None] * len(texts)
        deferred: list[int] = []
        cues_of: dict[int, tuple[str, ...]] = {}
        for i, (text, lang) in enumerate(zip(texts, langs)):
            label, cues = rule_stage(text, lang)
            if label is not None:
                out[i] = Recognition(label=label, score=0.0 if label == OTHER else 1.0, stage="rules", cues=cues)
            elif (
                cues[:1]
                and cues[0].startswith(LANG_CUE)
                and self.multilingual is not None
                and self.config.use_classifier
            ):
                lang = cues[0][len(LANG_CUE) :]  # the language stage 1 read it in
                p_global = float(self.multilingual.p_global([text], lang)[0])
                sentence = is_sentence is not None and is_sentence[i]
                threshold = self.multilingual.sentence_threshold if sentence else self.multilingual.threshold
                label = GLOBAL if p_global >= threshold else OTHER
                out[i] = Recognition(label, p_global, "multilingual", (*cues, *flags(text, lang)[1]))
            else:
                deferred.append(i)
                cues_of[i] = cues
        if deferred and self.trained is not None and self.config.use_classifier:
            batch = [texts[i][: self.config.max_chars] for i in deferred]
            one_thread = len(deferred) <= SINGLE_THREAD_MAX  # a short batch: threads would wait for each other
            with torch_threads(1) if one_thread else nullcontext():
                X = self.trained.features(batch, self.embedder)  # the embedding is computed once for both models
            p = self.trained.p_global_features(X)
            for i, p_global in zip(deferred, p.tolist()):
                if any(c.startswith(FRAME_CUE) for c in cues_of[i]):
                    p_global *= FRAME_WEIGHT
                label = GLOBAL if p_global >= self.trained.threshold else OTHER
                out[i] = Recognition(label=label, score=p_global, stage="trained", cues=cues_of[i])
            with torch_threads(1) if one_thread else nullcontext():
                self._second_opinion(out, deferred, batch, X, is_sentence, short)
        for i in deferred:
            if out[i] is not None:
                continue
            if self.llm is None or not self.config.use_classifier:
                out[i] = Recognition(label=OTHER, score=0.0, stage="rules", cues=cues_of[i])
            else:
                p_yes = self.classify(texts[i])
                if any(c.startswith(FRAME_CUE) for c in cues_of[i]):
                    p_yes *= FRAME_WEIGHT
                out[i] = Recognition(
                    label=GLOBAL if p_yes >= self.config.threshold else OTHER,
                    score=p_yes,
                    stage="classifier",
                    cues=cues_of[i],
                )
        return out  # type: ignore[return-value]

    def _second_opinion(
        self,
        out: list[Recognition | None],
        deferred: list[int],
        batch: list[str],
        X: "np.ndarray",
        is_sentence: list[bool] | None,
        short: list[bool] | None,
    ) -> None:
        """Let the English word-class model call global the short deferred units the trained stage 2 left
        "other" (its label set never saw plain standing wishes without a marker); ``batch`` and ``X``: their
        texts as stage 2 read them and its features, in ``deferred`` order (the embedding columns are reused)."""
        words = self.english_words
        if words is None or words.embedder_name not in ("", self.embedder.name):
            return  # none, or its weights belong to another embedder
        rows = [k for k, i in enumerate(deferred) if out[i].label == OTHER and (short is None or short[i])]
        if not rows:
            return
        texts = [batch[k] for k in rows]
        if words.adapter:  # its own fine-tuned encoder
            embeddings = words.encoder().encode(texts).astype("float64")
        else:
            embeddings = self.trained.embedding_part(X[rows]) if words.embedder_name else None
        for k, p_words in zip(rows, words.p_global(texts, "en", embeddings).tolist()):
            i = deferred[k]
            sentence = is_sentence is not None and is_sentence[i]
            if p_words >= (words.sentence_threshold if sentence else words.threshold):
                out[i] = Recognition(label=GLOBAL, score=p_words, stage=WORD_CLASS_STAGE, cues=out[i].cues)

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
        return "llm" if self.llm is not None and self.config.use_classifier else "none"

    def classify(self, text: str) -> float:
        """P(global) from the few-shot classifier: softmax over the "yes" and "no" answers."""
        message = " ".join(text.split())[: self.config.max_chars]
        prompt = self._prompt.replace("{message}", message)
        lp_yes, lp_no = self.llm.choice_logprobs([{"role": "user", "content": prompt}], ["yes", "no"])
        return 1.0 / (1.0 + math.exp(lp_no - lp_yes))


def build_recognizer(
    llm: Generator | None, embedder: Embedder | None, stage2: str = "trained"
) -> InstructionRecognizer:
    """The recognizer a strategy runs: stage 1, then the shipped trained classifier (default) or the LLM.

    The shipped classifier needs the embedder it was trained on; with another embedder the LLM
    stage decides instead (the shipped weights would give meaningless scores), and a warning says so.
    """
    if stage2 == "llm" or embedder is None:
        if llm is not None:
            from ..backends.base import CHOICE_LOGPROBS, require

            require(llm, {CHOICE_LOGPROBS}, "the recognizer's LLM stage 2 (REA_RECOGNIZER_STAGE2=llm)")
        return InstructionRecognizer(llm)
    if stage2 != "trained":
        from ..errors import InputError

        raise InputError(f"recognizer stage 2 must be 'trained' or 'llm', got {stage2!r}")
    from .default import load_default_recognizer

    model = load_default_recognizer()
    if embedder.name != model.embedder_name:
        import warnings

        warnings.warn(
            f"the shipped recognizer needs embedder {model.embedder_name!r}, "
            f"not {embedder.name!r}; using the LLM stage 2",
            stacklevel=2,
        )
        return InstructionRecognizer(llm)
    return InstructionRecognizer(llm, trained=model, embedder=embedder)
