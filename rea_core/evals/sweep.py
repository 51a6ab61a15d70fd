"""Threshold sweep (REA paper, appendix F, Figure 6): IAR and prompt tokens over a tau_low x tau_high grid."""

from __future__ import annotations

from pathlib import Path

from .adherence import AdherenceCase, metrics, run_case


def grid(values: list[float]) -> list[tuple[float, float]]:
    """Every (tau_low, tau_high) pair with tau_low <= tau_high."""
    return [(lo, hi) for lo in values for hi in values if lo <= hi]


def evaluate(models, settings, cases: list[AdherenceCase], values: list[float], out_dir: str | Path) -> dict:
    import plotly.graph_objects as go

    from ..loading import build_from_settings
    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    pairs = {f"tau_{lo:.2f}_{hi:.2f}": (lo, hi) for lo, hi in grid(values)}
    store = RecordStore(out_dir, {"task": "sweep", "model": models.generator.name, "config": settings.to_dict()})

    def run_one(arm: str, case) -> list[dict]:
        lo, hi = pairs[arm]
        return run_case(
            build_from_settings("rea", models, settings.with_section("rea", tau_low=lo, tau_high=hi)), case
        )

    run_arms(store, list(pairs), cases, run_one, label="Threshold sweep")
    ids = [c.id for c in cases]
    cells = {arm: metrics(store.records(arm, ids)) for arm in pairs}
    results = {
        "task": "sweep",
        "conversations": len(cases),
        "model": models.generator.name,
        "values": values,
        "cells": [{"tau_low": pairs[a][0], "tau_high": pairs[a][1], **m} for a, m in cells.items()],
    }
    write_results(out_dir, results)
    figures = []
    for key, label in (("iar", "IAR"), ("mean_prompt_tokens", "mean prompt tokens")):
        z = [
            [
                next((c.get(key) for c in results["cells"] if c["tau_low"] == lo and c["tau_high"] == hi), None)
                for hi in values
            ]
            for lo in values
        ]
        fig = go.Figure(
            go.Heatmap(
                z=z,
                x=[f"{v:.2f}" for v in values],
                y=[f"{v:.2f}" for v in values],
                colorscale="Viridis",
                colorbar_title=label,
            )
        )
        fig.update_layout(
            title=f"{label} by threshold (rows tau_low, columns tau_high)",
            xaxis_title="tau_high",
            yaxis_title="tau_low",
        )
        figures.append(fig)
    rows = [[c["tau_low"], c["tau_high"], c.get("iar"), c.get("mean_prompt_tokens")] for c in results["cells"]]
    write_report(
        out_dir,
        "HCR threshold sweep",
        figures,
        [("cells", ["tau_low", "tau_high", "IAR", "mean prompt tokens"], rows)],
    )
    return results
