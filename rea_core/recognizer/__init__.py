"""The Instruction Recognizer (REA paper, sections 3.3, A.4, D.1-D.3): which inputs enter Instructional Memory.

``rules`` (stage 1, with the recall-safe ``gate``) decides where the English wording is unambiguous;
stage 2 is the shipped ``trained`` classifier (``default``) or the paper's few-shot LLM, and for
French, German, Spanish, Italian and Portuguese the ``multilingual`` word-class model (``lexicons``),
with an English word-class second opinion beside the trained classifier (stage ``WORD_CLASS_STAGE``);
``recognize`` runs both (``InstructionRecognizer.explain`` says what each stage said); ``metrics``
measures exactly that; ``training`` fits new stage-2 versions.
"""

from .default import load_label_set, provenance_line
from .hard_set import hard_set_path, load_hard_set
from .labels import GLOBAL, LABELS, ORDINARY, OTHER, REVOKE, TASK
from .metrics import (
    baseline_metrics,
    decision_threshold,
    defined,
    evaluate_recognizer,
    evaluate_scores,
    recognizer_scores,
)
from .recognize import (
    WORD_CLASS_STAGE,
    InstructionRecognizer,
    Recognizer,
    RecognizerConfig,
    StageVerdicts,
    build_recognizer,
)
from .rules import LANG_CUE, PROHIBITION, is_replacement, rule_priors, rule_stage
from .trained import TrainedRecognizer

__all__ = [
    "GLOBAL",
    "LABELS",
    "LANG_CUE",
    "ORDINARY",
    "OTHER",
    "PROHIBITION",
    "REVOKE",
    "TASK",
    "WORD_CLASS_STAGE",
    "InstructionRecognizer",
    "Recognizer",
    "RecognizerConfig",
    "StageVerdicts",
    "TrainedRecognizer",
    "baseline_metrics",
    "build_recognizer",
    "decision_threshold",
    "defined",
    "evaluate_recognizer",
    "evaluate_scores",
    "hard_set_path",
    "is_replacement",
    "load_hard_set",
    "load_label_set",
    "provenance_line",
    "recognizer_scores",
    "rule_priors",
    "rule_stage",
]
