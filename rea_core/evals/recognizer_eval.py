"""Recognizer precision/recall (seed 000, D.1-D.2, Table 9: recall 0.8947, precision 0.6182).

File: JSONL with "text" and "label" ("global", or "task"/"ordinary" = not global). The shipped
validation set is ``rea_core/data/recognizer_validation.jsonl`` (see docs/recognizer_labeling.md).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..conversations import read_jsonl
from ..errors import DataFormatError

LABELS = ("global", "task", "ordinary")


def default_validation_path() -> Path:
    return Path(str(resources.files("rea_core").joinpath("data", "recognizer_validation.jsonl")))


def load_labeled(path: str | Path) -> list[dict]:
    rows = []
    for where, row in read_jsonl(path, what="labeled inputs"):
        if not isinstance(row, dict) or not isinstance(row.get("text"), str) or not row["text"].strip() or row.get("label") not in LABELS:
            raise DataFormatError(f"{where}: needs a non-empty \"text\" and a \"label\" in {LABELS}")
        rows.append(row)
    return rows


def binary_metrics(gold: list[bool], predicted: list[bool]) -> dict:
    tp = sum(g and p for g, p in zip(gold, predicted))
    fp = sum(p and not g for g, p in zip(gold, predicted))
    fn = sum(g and not p for g, p in zip(gold, predicted))
    tn = len(gold) - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"n": len(gold), "positives": tp + fn, "precision": precision, "recall": recall, "f1": f1,
            "accuracy": (tp + tn) / len(gold) if gold else 0.0, "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn}}


def evaluate(recognizer, rows: list[dict], out_dir: str | Path, *, name: str = "recognizer") -> dict:
    import sys

    import plotly.graph_objects as go
    from tqdm.auto import tqdm

    from .report import write_report, write_results

    Path(out_dir).mkdir(parents=True, exist_ok=True)
    verdicts = [recognizer.recognize(r["text"]) for r in tqdm(rows, desc="Recognizer", file=sys.stderr)]
    gold = [r["label"] == "global" for r in rows]
    predicted = [v.label == "global" for v in verdicts]
    m = binary_metrics(gold, predicted)
    stages = {s: sum(v.stage == s for v in verdicts) for s in {v.stage for v in verdicts}}
    errors = [{"text": r["text"], "gold": r["label"], "predicted": v.label, "stage": v.stage, "score": v.score}
              for r, v, g, p in zip(rows, verdicts, gold, predicted) if g != p]
    results = {"task": "recognizer", "name": name, **m, "decided_by_stage": stages, "paper": {"precision": 0.6182, "recall": 0.8947}, "errors": errors}
    write_results(out_dir, results)
    c = m["confusion"]
    fig = go.Figure(go.Heatmap(z=[[c["tp"], c["fn"]], [c["fp"], c["tn"]]], x=["predicted global", "predicted not"], y=["gold global", "gold not"],
                               text=[[c["tp"], c["fn"]], [c["fp"], c["tn"]]], texttemplate="%{text}", colorscale="Blues", showscale=False))
    fig.update_layout(title="Confusion matrix")
    bars = go.Figure([go.Bar(name="this run", x=["precision", "recall", "F1"], y=[m["precision"], m["recall"], m["f1"]]),
                      go.Bar(name="paper (Qwen3-0.6B)", x=["precision", "recall"], y=[0.6182, 0.8947])])
    bars.update_layout(title="Recognizer vs the paper (Table 9)", yaxis_range=[0, 1], barmode="group")
    rows_table = [[e["gold"], e["predicted"], e["stage"], e["score"], e["text"][:160]] for e in errors]
    write_report(out_dir, f"Instruction Recognizer: {name}", [bars, fig], [("errors", ["gold", "predicted", "stage", "score", "text"], rows_table)],
                 notes=f"{m['n']} inputs, {m['positives']} global. Decided by stage: {stages}.")
    return results
