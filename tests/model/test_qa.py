"""``rea eval qa`` on the packaged models: the gold answer is likelier after its evidence than after
nothing, the KV-reusing NLL equals the plain one, and an interrupted run resumes."""

import json

import pytest

from rea_core.errors import REAError
from rea_core.evals import qa
from rea_core.evals.retrieval import load_cases
from rea_core.settings import Settings

TURNS = [
    {"user": "Hi! I just moved to a new flat in Lisbon.", "assistant": "Congratulations! How do you like Lisbon?"},
    {"user": "I adopted a kitten last week. My cat is named Zorblax.", "assistant": "Zorblax is a wonderful name!"},
    {"user": "I also started learning the cello.", "assistant": "The cello is beautiful. Enjoy your lessons!"},
    {"user": "Any tips for practising every day?", "assistant": "Short daily sessions work better than long ones."},
    {"user": "What is my cat's name?", "answer": "Zorblax", "needed": [1]},
]


@pytest.fixture()
def cases(tmp_path):
    path = tmp_path / "cat.jsonl"
    path.write_text(json.dumps({"id": "cat", "turns": TURNS}) + "\n")
    return qa.prepare_cases(load_cases(path, "jsonl", answers=True), list(qa.DEFAULT_ARMS), None)


def test_oracle_prompt_makes_the_gold_answer_likelier_than_no_history(models, cases):
    ctx = qa.QAContext(models=models, settings=Settings())
    (none,) = qa.run_case("none", cases[0], ctx)
    (oracle,) = qa.run_case("oracle", cases[0], ctx)
    (rea,) = qa.run_case("rea", cases[0], ctx)
    assert oracle["nll"] < none["nll"] - 1.0, (oracle["nll"], none["nll"])
    assert oracle["evidence_shown"] == 1.0 and none["evidence_shown"] == 0.0
    assert none["prompt_tokens"] < oracle["prompt_tokens"] < oracle["history_tokens"]
    assert "Zorblax" in oracle["question"] or "cat" in oracle["question"]
    assert rea["evidence_shown"] == 1.0 and rea["nll"] < none["nll"]  # a four-exchange history: REA keeps it all


def test_answer_logprobs_with_a_reused_prefix_match_a_full_prefill(models):
    g = models.generator
    history = [{"role": "system", "content": "You are a helpful assistant."}]
    for t in TURNS[:4]:
        history += [{"role": "user", "content": t["user"]}, {"role": "assistant", "content": t["assistant"]}]
    first = history + [{"role": "user", "content": "What is my cat's name?"}]
    second = history + [{"role": "user", "content": "Where did I move?"}]
    plain = [g.answer_logprobs(first, "Zorblax"), g.answer_logprobs(second, "Lisbon")]
    try:
        cached = [
            g.answer_logprobs(first, "Zorblax", cache_key="t"),
            g.answer_logprobs(second, "Lisbon", cache_key="t"),
        ]
        assert len(g.prefix_cache._entries["t"].items) == g.prompt_tokens(second) + g.count_tokens("Lisbon")
    finally:
        g.prefix_cache.drop("t")
    for a, b in zip(plain, cached):
        assert a == pytest.approx(b, abs=1e-4)
    assert sum(plain[0]) == pytest.approx(g.choice_logprobs(first, ["Zorblax"])[0], abs=1e-4)


def test_qa_run_resumes_and_refuses_other_settings(models, cases, tmp_path):
    out = tmp_path / "run"
    results = qa.evaluate(models, Settings(), cases, ["none", "oracle"], out, dataset="cat")
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 2 and (out / "report.html").exists()
    assert results["arms"]["oracle"]["all"]["gap_share"] == 1.0 and results["arms"]["none"]["all"]["gap_share"] == 0.0
    again = qa.evaluate(models, Settings(), cases, ["none", "oracle"], out, dataset="cat")
    assert (out / "records.jsonl").read_text().splitlines() == lines  # nothing recomputed
    assert again["arms"] == json.loads(json.dumps(results["arms"]))
    with pytest.raises(REAError, match="other settings"):
        qa.evaluate(models, Settings(), cases, ["none"], out, dataset="cat", max_new_tokens=8)
