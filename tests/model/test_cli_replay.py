"""``rea replay --json`` and ``rea recognize`` on the packaged model, as a user runs them."""

import json
import os
import subprocess
import sys

import pytest


def run_rea(*args, **kwargs):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-m", "rea_core.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        **kwargs,
    )


@pytest.mark.slow  # every example conversation through a fresh CLI process; the slow group runs it in CI
def test_replay_json_one_object_per_turn(examples_dir):
    proc = run_rea(
        "replay", str(examples_dir / "conversations.jsonl"), "--strategy", "rea", "--json", "--max-new-tokens", "16"
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    convs = [
        json.loads(line) for line in (examples_dir / "conversations.jsonl").read_text().splitlines() if line.strip()
    ]
    assert len(records) == sum(len(c["turns"]) for c in convs)
    for r in records:
        assert {"turn", "instructions", "scores", "decisions", "prompt_tokens", "reply", "latency_s"} <= set(r)
        assert len(r["decisions"]) == len(r["scores"]) == r["turn"]
        assert set(r["decisions"]) <= {"raw", "compressed", "omit"}
    h1 = [r for r in records if r["conversation"] == "h1-initial-letter"]
    assert all(r["instructions"] == [convs[0]["turns"][0]["user"]] for r in h1)
    assert [r["generated"] for r in h1] == [True] + [False] * 7 + [True]


@pytest.mark.slow  # moved to keep the default run under 15 minutes; test_strategies runs the LLM stage 2
def test_recognize_with_classifier():
    proc = run_rea("recognize", "--json", "--stage2", "llm", "Always answer in French.")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["stage"] == "classifier" and 0 <= out["score"] <= 1


def test_recognize_uses_the_shipped_trained_stage_two_by_default():
    proc = run_rea("recognize", "--json", "Whatever I ask next, reply like a pirate would.")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["stage"] == "trained" and out["label"] == "global" and "gate:tone_persona" in out["cues"]
