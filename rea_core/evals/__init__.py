"""Evaluations: each one an ``EvalTask`` (``task.py``: load cases, arms, run one case, summarize, figures)
that ``rea eval <name>`` and the Results tab run and draw; the arms they compare (``arms.py``); the
charts they share (``charts.py``).

The names below are what the app and the annotation studio may use. They load on first use: the
evaluations import plotting, model loading and, for some, torch, which a plain ``import rea_core``
should not pay for.
"""

from __future__ import annotations

import importlib

# public name -> the module of this package that defines it
_EXPORTS = {
    "ARMS": "arms",
    "MAX_SERIES": "charts",
    "EvalTask": "task",
    "Heading": "charts",
    "ResultsFormatError": "charts",
    "add_note": "charts",
    "adherence_scores": "adherence",
    "adherence_verdict": "adherence",
    "answer_question": "qa",
    "case_conversation": "retrieval",
    "clip": "charts",
    "default_validation_path": "recognizer_eval",
    "eval_tasks": "task",
    "first_line": "qa",
    "is_locomo": "retrieval",
    "kind": "charts",
    "load_locomo": "retrieval",
    "locomo_sample": "cases",
    "obj": "charts",
    "parse_needed_cases": "retrieval",
    "parse_needed_rows": "retrieval",
    "plain_name": "arms",
    "question_label": "qa",
    "recheck_cases": "recheck",
    "register_eval": "task",
    "run_eval": "task",
    "task_of": "task",
    "wrap": "charts",
    "wrapped": "charts",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # the next lookup finds it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
