"""The evaluation contract (``rea_core.evals.task``): a task defined here, in the test alone, is in the
registry, runs as ``rea eval <name>`` to results.json and report.html (resuming when run again), and the
Results tab draws it, with nothing else edited. Real runs, no model: the toy task loads none."""

from __future__ import annotations

import json
from dataclasses import dataclass

import plotly.graph_objects as go
import pytest
from click.testing import CliRunner
from typer.main import get_command

from app.tabs.results import handlers as rh
from app.views.results_charts import ResultsFormatError, results_view
from rea_core.cli.main import app as typer_app
from rea_core.evals import charts as c
from rea_core.evals import task as registry
from rea_core.evals.arms import ARMS, QA, REPLAY, RETRIEVAL, arms_for
from rea_core.evals.task import EvalTask, Report, TaskOption, eval_tasks, register_eval
from rea_core.limits import Limits

runner = CliRunner()
app = get_command(typer_app)  # built before the toy registers: the eval group reads the registry when used


@dataclass(frozen=True)
class Case:
    id: str
    numbers: list[int]


class ToyTask(EvalTask):
    """Sum or largest of each case's numbers, times --scale."""

    name, title = "toy", "Toy"
    own_arms = {"sum": "the numbers' sum", "max": "the largest number"}
    default_arms = ("sum",)
    needs_models = False
    options = (TaskOption("scale", 1.0, "Multiply every value."),)

    def load_cases(self, path, *, max_chars=None, limit=None, scale=1.0, **options):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [Case(r["id"], r["numbers"]) for r in rows][:limit]

    def run_case(self, arm, case, ctx):
        value = sum(case.numbers) if arm == "sum" else max(case.numbers)
        return [{"case_id": case.id, "value": value * ctx.options["scale"]}]

    def summarize(self, records, ctx):
        arms = {arm: {"mean": sum(r["value"] for r in recs) / len(recs)} for arm, recs in records.items()}
        return {"task": "toy", "conversations": len(ctx.cases), "arms": arms}

    def report(self, results):
        return Report("Toy", [("arms", ["arm", "mean"], [[a, m["mean"]] for a, m in results["arms"].items()])])

    def figures(self, results):
        arms = c.series(results, "arms", "arms")
        means = [c.number(m.get("mean"), f'arm "{c.clip(a)}" mean') for a, m in arms.items()]
        scale = c.n_of(c.count(results, "conversations"), "case")
        chart = c.chart(go.Figure(go.Bar(x=list(arms), y=means)), "Mean value per arm", scale, legend_rows=0)
        return c.Figures("A toy", "Sums and maxima.", tuple(arms), scale, "rea eval toy --out <folder>", (chart,))


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(registry, "_TASKS", dict(eval_tasks()))  # the registration ends with the test
    return register_eval(ToyTask())


def test_a_task_defined_in_a_test_runs_from_the_cli_and_draws_in_the_results_tab(toy, tmp_path):
    assert eval_tasks()["toy"] is toy and {"adherence", "ablations", "latency", "retrieval", "qa"} <= set(eval_tasks())
    data, out = tmp_path / "toy.jsonl", tmp_path / "run"
    data.write_text('{"id": "a", "numbers": [1, 2, 3]}\n{"id": "b", "numbers": [4, 5]}\n', encoding="utf-8")
    assert "toy" in runner.invoke(app, ["eval", "--help"]).output
    argv = ["eval", "toy", "--data", str(data), "--out", str(out), "--arms", "sum,max", "--scale", "2"]
    first = runner.invoke(app, argv)
    assert first.exit_code == 0, first.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["arms"] == {"sum": {"mean": 15.0}, "max": {"mean": 8.0}}  # (6 + 9) / 2 * 2, (3 + 5) / 2 * 2
    assert "Mean value per arm" in (out / "report.html").read_text(encoding="utf-8")
    again = runner.invoke(app, argv)
    assert again.exit_code == 0 and "resuming, 4 finished" in again.output
    assert len((out / "records.jsonl").read_text(encoding="utf-8").splitlines()) == 4
    other = runner.invoke(app, [*argv[:-1], "3"])  # another --scale: refused, not mixed into the same run
    assert other.exit_code == 2 and "holds a run with other settings (scale)" in other.output
    unknown = runner.invoke(app, [*argv[:6], "--arms", "min"])
    assert unknown.exit_code == 2 and "unknown toy arm min; choose from sum, max" in unknown.output

    view = rh.read_results(out / "results.json", Limits())
    assert view.task == "toy" and view.title == "A toy" and [h.title for h in view.headings] == ["Mean value per arm"]
    assert list(view.figures[0].data[0].y) == [15.0, 8.0]
    ((name, shipped),) = rh.shipped_results(Limits(), tmp_path)
    assert name == "run" and shipped.command == "rea eval toy --out <folder>"
    with pytest.raises(ResultsFormatError, match='arm "max" mean must be a number'):
        results_view({**results, "arms": {"max": {"mean": "8"}}})


def test_without_the_toy_its_results_are_not_drawn():
    with pytest.raises(ResultsFormatError, match='task "toy" are not drawn here'):
        results_view({"task": "toy", "arms": {}})


def test_one_arm_table_names_each_arm_once_for_every_eval():
    assert ARMS["rea-first-release"].evals == {REPLAY, RETRIEVAL}  # one definition, run by both
    assert set(arms_for(QA)) == {"none", "oracle", "vanilla", "rea", "rea-no-time", "bm25", "secom", "comedy"}
    assert ARMS["bm25"].describe_for(QA) != ARMS["bm25"].describe_for(RETRIEVAL)  # narrower in QA, said there
    for kind in (REPLAY, RETRIEVAL, QA):
        assert all(arm.describe_for(kind) for arm in arms_for(kind).values())
