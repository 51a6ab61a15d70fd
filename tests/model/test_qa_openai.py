"""``rea eval qa`` over a real OpenAI-compatible server (``transformers serve`` on the packaged model,
started and stopped here): answers, a judge through the same server, the Mem0-layout table, and the
NLL column stated as unavailable (the server gives no log-probabilities of a given reply)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from transformers_serve import Server  # tests/model/transformers_serve.py

pytestmark = pytest.mark.slow  # the server alone takes tens of seconds to start

ROOT = Path(__file__).resolve().parents[2]
REA = [sys.executable, "-c", "from rea_core.cli.main import main; main()"]  # this checkout's CLI
TURNS = [
    {"user": "I adopted a kitten last week. My cat is named Zorblax.", "assistant": "Zorblax is a wonderful name!"},
    {"user": "I also started learning the cello.", "assistant": "The cello is beautiful."},
    {"user": "What is my cat's name?", "answer": "Zorblax", "needed": [0]},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("serve"))
    yield s
    s.stop()


def test_qa_over_the_server_gives_the_mem0_table_and_says_nll_is_unavailable(server, tmp_path):
    data = tmp_path / "cat.jsonl"
    data.write_text(json.dumps({"id": "cat", "turns": TURNS}) + "\n")
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "REA_OPENAI_BASE_URL": server.url}
    spec = f"openai:{server.folder}"
    command = [*REA, "eval", "qa", "--data", str(data), "--arms", "none,oracle,rea", "--out", str(out)]
    command += ["--model", spec, "--tokenizer", "packaged", "--judge-model", spec]
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=540, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "NLL: not available" in run.stdout and "Mem0 layout" in run.stdout
    assert "overall F1 | overall J | tokens | s/q" in run.stdout
    results = json.loads((out / "results.json").read_text())
    assert results["nll"].startswith("not available") and results["judge"] == spec
    for arm in ("none", "oracle", "rea"):
        summary = results["arms"][arm]["all"]
        assert summary["nll"] is None and summary["gap_share"] is None
        assert summary["questions"] == 1 and summary["f1"] is not None and summary["prompt_tokens"] > 0
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert all(r["judge_raw"] for row in records for r in row["records"])  # the judge answered every question
    assert all(r["reply"] for row in records for r in row["records"])
