"""`rea eval` commands end to end on the packaged model, at tiny sizes: outputs, resume, arms."""

import json
import os
import subprocess
import sys

import pytest

from rea_core.evals.suites import make_adherence_suite


def rea(*args):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, "-m", "rea_core.cli.main", *args], capture_output=True, text=True, env=env, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "suite.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in make_adherence_suite(n=2, turns=14, seed=1)))
    return path


@pytest.mark.slow  # tens of seconds of generation; the slow group runs it in CI
def test_adherence_writes_results_and_resumes(suite, tmp_path):
    out = tmp_path / "adh"
    rea("eval", "adherence", "--data", str(suite), "--out", str(out), "--limit", "1", "--max-new-tokens", "8")
    results = json.loads((out / "results.json").read_text())
    assert set(results["arms"]) == {"vanilla", "rea"}
    for m in results["arms"].values():
        assert m["probes"] >= 2 and 0.0 <= m["iar"] <= 1.0 and m["by_depth"]
    assert results["arms"]["rea"]["mean_prompt_tokens"] < results["arms"]["vanilla"]["mean_prompt_tokens"]
    html = (out / "report.html").read_text()
    assert "plotly" in html.lower() and "IAR per arm" in html
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 2
    again = rea("eval", "adherence", "--data", str(suite), "--out", str(out), "--limit", "1", "--max-new-tokens", "8")
    assert "resuming, 2 finished" in again.stderr
    assert (out / "records.jsonl").read_text().splitlines() == lines
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    other = subprocess.run(
        [
            sys.executable,
            "-m",
            "rea_core.cli.main",
            "eval",
            "adherence",
            "--data",
            str(suite),
            "--out",
            str(out),
            "--limit",
            "1",
            "--max-new-tokens",
            "9",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert other.returncode == 2 and "holds a run with other settings (config)" in other.stderr


@pytest.mark.slow  # tens of seconds of generation; the slow group runs it in CI
def test_ablation_arms_control_instructional_memory(suite, tmp_path):
    out = tmp_path / "abl"
    rea(
        "eval",
        "ablations",
        "--data",
        str(suite),
        "--out",
        str(out),
        "--limit",
        "1",
        "--max-new-tokens",
        "4",
        "--arms",
        "em-only,oracle-im,im-withheld,im-false-positive",
    )
    rows = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    by_arm = {r["arm"]: r["records"] for r in rows}
    case = json.loads(suite.read_text().splitlines()[0])
    first = case["turns"][case["global_instructions"][0]["turn"]]["user"]
    last_probe = {arm: recs[-1]["im"] for arm, recs in by_arm.items()}
    assert last_probe["em-only"] == [] and last_probe["im-withheld"] == []
    assert first in last_probe["oracle-im"] and first in last_probe["im-false-positive"]
    assert len(last_probe["im-false-positive"]) == len(last_probe["oracle-im"]) + 1


@pytest.mark.slow
def test_latency_state_and_sweep_run(suite, tmp_path):
    rea("eval", "latency", "--turns", "6", "--every", "3", "--out", str(tmp_path / "lat"), "--max-new-tokens", "4")
    lat = json.loads((tmp_path / "lat" / "results.json").read_text())
    assert lat["vanilla_over_rea_last_quarter"] > 0 and len(lat["per_turn"]["rea"]) == 6
    rea("eval", "state", "--n", "1", "--limit", "2", "--out", str(tmp_path / "state"), "--max-new-tokens", "4")
    st = json.loads((tmp_path / "state" / "results.json").read_text())
    assert any(k.startswith("rea /") for k in st["jga"])
    rea(
        "eval",
        "sweep",
        "--data",
        str(suite),
        "--values",
        "0.5,0.7",
        "--limit",
        "1",
        "--out",
        str(tmp_path / "sweep"),
        "--max-new-tokens",
        "4",
    )
    sw = json.loads((tmp_path / "sweep" / "results.json").read_text())
    assert {(c["tau_low"], c["tau_high"]) for c in sw["cells"]} == {(0.5, 0.5), (0.5, 0.7), (0.7, 0.7)}


def test_recognizer_eval_runs_on_labeled_jsonl(tmp_path):
    labeled = tmp_path / "labeled.jsonl"
    labeled.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"text": "From now on, answer in lowercase.", "label": "global"},
                {"text": "What is the capital of France?", "label": "ordinary"},
                {"text": "Write a poem about the sea in lowercase.", "label": "task"},
            ]
        )
    )
    rea("eval", "recognizer", "--data", str(labeled), "--out", str(tmp_path / "rec"))
    rec = json.loads((tmp_path / "rec" / "results.json").read_text())
    assert rec["n"] == 3 and rec["positives"] == 1 and rec["recall"] == 1.0
