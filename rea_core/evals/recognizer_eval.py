"""Recognizer precision/recall (REA paper, D.1-D.2, Table 9: recall 0.8947, precision 0.6182).

File: JSONL with "text" and "label" ("global", or "task"/"ordinary" = not global). The shipped
validation set is ``rea_core/data/recognizer_validation.jsonl`` (see docs/recognizer_labeling.md).
"""

from __future__ import annotations

from pathlib import Path

from ..recognizer.default import LabeledInput, data_path
from ..recognizer.labels import GLOBAL
from ..recognizer.metrics import decision_threshold, evaluate_scores, verdict_scores


def default_validation_path() -> Path:
    return data_path("recognizer_validation.jsonl")


def evaluate(recognizer, rows: list[LabeledInput], out_dir: str | Path, *, name: str = "recognizer") -> dict:
    import sys

    import plotly.graph_objects as go
    from tqdm.auto import tqdm

    from .report import write_report, write_results

    Path(out_dir).mkdir(parents=True, exist_ok=True)
    verdicts = [recognizer.recognize(r.text) for r in tqdm(rows, desc="Recognizer", file=sys.stderr)]
    m = evaluate_scores([r.label for r in rows], verdict_scores(verdicts), decision_threshold(recognizer))
    m.pop("pr_curve")
    stages = {s: sum(v.stage == s for v in verdicts) for s in {v.stage for v in verdicts}}
    errors = [
        {"text": r.text, "gold": r.label, "predicted": v.label, "stage": v.stage, "score": v.score}
        for r, v in zip(rows, verdicts)
        if (r.label == GLOBAL) != (v.label == GLOBAL)
    ]
    results = {
        "task": "recognizer",
        "name": name,
        **m,
        "decided_by_stage": stages,
        "paper": {"precision": 0.6182, "recall": 0.8947},
        "errors": errors,
    }
    write_results(out_dir, results)
    (tn, fp), (fn, tp) = m["confusion"]
    cells = [[tp, fn], [fp, tn]]
    fig = go.Figure(
        go.Heatmap(
            z=cells,
            x=["predicted global", "predicted not"],
            y=["gold global", "gold not"],
            text=cells,
            texttemplate="%{text}",
            colorscale="Blues",
            showscale=False,
        )
    )
    fig.update_layout(title="Confusion matrix")
    bars = go.Figure(
        [
            go.Bar(name="this run", x=["precision", "recall", "F1"], y=[m["precision"], m["recall"], m["f1"]]),
            go.Bar(name="paper (Qwen3-0.6B)", x=["precision", "recall"], y=[0.6182, 0.8947]),
        ]
    )
    bars.update_layout(title="Recognizer vs the paper (Table 9)", yaxis_range=[0, 1], barmode="group")
    rows_table = [[e["gold"], e["predicted"], e["stage"], e["score"], e["text"][:160]] for e in errors]
    write_report(
        out_dir,
        f"Instruction Recognizer: {name}",
        [bars, fig],
        [("errors", ["gold", "predicted", "stage", "score", "text"], rows_table)],
        notes=f"{m['n']} inputs, {m['positives']} global. Decided by stage: {stages}.",
    )
    return results
