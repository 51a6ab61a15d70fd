"""The Inspect tab's answer to one question: the gold answer beside REA's, its scores, and what the
evidence became in the prompt.

Every piece of question, answer or model text is HTML-escaped here; nothing from a file reaches the
page as markup.
"""

from __future__ import annotations

from html import escape

from rea_core import Resolution, prompt_time
from rea_core.evals import first_line

from .reasons import reason_label


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render_answer(answer, *, number: int | None = None) -> str:
    """HTML for a ``qa.QuestionAnswer``: gold answer, REA's answer (as the library gives it, a copied
    speaker name taken off; the generated line on hover where it differs), F1/EM, NLL with the
    none/oracle references and this question's gap share, prompt tokens; None: the empty panel.
    ``number``: the question's place in its conversation, counted from 1 as people count."""
    if answer is None:
        return '<div class="rea-answer rea-empty">Pick a question and answer it with REA.</div>'
    nll = _num(answer.nll) if answer.nll is not None else f"n/a ({escape(answer.nll_note or 'not scored')})"
    references = ""
    if answer.none_nll is not None:
        oracle = _num(answer.oracle_nll) if answer.oracle_nll is not None else "n/a (no evidence given)"
        share = "n/a" if answer.gap_share is None else f"{answer.gap_share:.0%}"
        references = (
            f"<li>NLL with no history: {_num(answer.none_nll)} · with the evidence alone (oracle): {oracle} · "
            f"share of the evidence's gain REA kept: <b>{share}</b></li>"
        )
    shown = answer.evidence_shown
    evidence = (
        "no evidence exchanges given"
        if shown is None
        else f"{shown:.0%} of {len(answer.evidence)} evidence exchange(s) in the prompt"
    )
    f1 = "n/a" if answer.f1 is None else f"{answer.f1:.2f}"
    em = "n/a" if answer.em is None else f"{answer.em:.0f}"
    prediction = answer.prediction
    generated = first_line(answer.reply) if answer.reply else prediction  # the line before the name came off
    if prediction is None:
        said = "(no answer generated)"
    elif generated == prediction:
        said = escape(prediction)
    else:
        said = f'<span title="{escape("generated: " + generated)}">{escape(prediction)}</span>'
    which = f"Question {number}" if number is not None else "Question"
    cut = f"<li><b>Time budget:</b> {escape(answer.budget_note)}</li>" if answer.budget_note else ""
    return (
        '<div class="rea-answer">'
        f"<p><b>{which}</b> ({escape(answer.category or f'turn {answer.position}')}): {escape(answer.question)}</p>"
        f"<p><b>Gold answer:</b> {escape(answer.answer)}</p>"
        f'<p><b>REA\'s answer:</b> <span class="rea-answer-text">{said}</span></p>'
        "<ul>"
        f"<li>token F1 {f1} · exact match {em}</li>"
        f"<li>gold answer NLL (mean per token) after REA's prompt: <b>{nll}</b></li>"
        f"{references}"
        f"<li>prompt: {answer.prompt_tokens:,} tokens · {evidence} · "
        f"tau_low {answer.tau_low:.2f}, tau_high {answer.tau_high:.2f} · {answer.seconds:.1f} s</li>"
        f"{cut}</ul></div>"
    )


def evidence_rows(answer) -> list[list]:
    """The evidence table: exchange turn, time, score, decision, why, user text (Dataframe cells: plain text)."""
    if answer is None:
        return []
    return [
        [
            e.turn,
            prompt_time(e.time) if e.time else "",
            None if e.score is None else round(e.score, 3),
            e.resolution.value,
            reason_label(e.resolution, e.reason),
            e.user,
        ]
        for e in answer.evidence
    ]


def omitted_choices(answer) -> list[tuple[str, int]]:
    """The omitted evidence exchanges a researcher may mark as needed."""
    if answer is None:
        return []
    return [(f"turn {e.turn}: {e.user[:60]}", e.turn) for e in answer.evidence if e.resolution is Resolution.OMIT]
