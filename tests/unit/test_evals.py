"""Evaluation harness logic without a model: checks, file validation, metrics, generators."""

import json

import pytest

from rea_core.errors import DataFormatError
from rea_core.evals import adherence, state
from rea_core.evals.checks import Check, known_instruction_ids
from rea_core.evals.suites import CONFLICTS, KINDS, make_adherence_suite
from rea_core.recognizer.default import load_label_set
from rea_core.recognizer.metrics import evaluate_scores


def test_ifeval_checkers_run_offline():
    assert Check("change_case:english_lowercase").passed("all lowercase here")
    assert not Check("change_case:english_lowercase").passed("Not lowercase")
    assert Check("punctuation:no_comma").passed("no commas") and not Check("punctuation:no_comma").passed("a, b")
    words = Check("length_constraints:number_words", {"num_words": 5, "relation": "less than"})
    assert words.passed("one two three") and not words.passed("one two three four five six")
    assert Check("startend:first_letter", {"letter": "r"}).passed('"Right, here it is."')
    assert not Check("startend:first_letter", {"letter": "r"}).passed("Here it is.")
    assert not Check("keywords:existence", {"keywords": ["banana"]}).passed("")
    assert len(known_instruction_ids()) >= 20


@pytest.mark.parametrize(
    "check, message",
    [
        (Check("made:up"), "unknown instruction id"),
        (Check("length_constraints:number_sentences", {"num_sentences": 2}), "punkt"),
        (Check("startend:first_letter"), "needs kwargs"),
    ],
)
def test_bad_checks(check, message):
    with pytest.raises(ValueError, match=message):
        check.validate()


def test_every_generated_kind_validates():
    for kind in KINDS:
        for c in kind.checks:
            Check(c["instruction_id"], c["kwargs"]).validate()
    assert len(KINDS) >= 12


def write(tmp_path, rows):
    path = tmp_path / "a.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


GOOD = {
    "id": "c1",
    "turns": [
        {"user": "From now on, answer in lowercase.", "assistant": "ok"},
        {"user": "hi", "assistant": "hello"},
        {"user": "q?"},
    ],
    "global_instructions": [
        {"turn": 0, "checks": [{"instruction_id": "change_case:english_lowercase", "kwargs": {}}]}
    ],
    "probe_turns": [2],
}


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda d: d["global_instructions"][0]["checks"][0].update(instruction_id="nope:x"),
            "line 2|a.jsonl:2: global_instructions\\[0\\]: unknown instruction id",
        ),
        (lambda d: d.update(probe_turns=[7]), "a.jsonl:2: probe turn 7 is past the end"),
        (lambda d: d.update(probe_turns=[1]), "probe turn 1 carries an assistant reply"),
        (lambda d: d.pop("global_instructions"), '"global_instructions" must be a non-empty list'),
        (lambda d: d["global_instructions"][0].update(until_turn=0), "until_turn must be a turn after"),
    ],
)
def test_adherence_file_errors_name_the_line(tmp_path, mutate, message):
    bad = json.loads(json.dumps(GOOD))
    bad["id"] = "c2"
    mutate(bad)
    with pytest.raises(DataFormatError, match=message):
        adherence.load_cases(write(tmp_path, [GOOD, bad]))


def test_active_instructions_and_metrics(tmp_path):
    (case,) = adherence.load_cases(write(tmp_path, [GOOD]))
    g = case.instructions[0]
    assert not g.active_at(0) and g.active_at(2)
    records = [
        {"instructions": [{"depth": 2, "passed": True}], "passed": True, "prompt_tokens": 10, "latency_s": 1.0},
        {
            "instructions": [{"depth": 12, "passed": False}, {"depth": 3, "passed": True}],
            "passed": False,
            "prompt_tokens": 30,
            "latency_s": 2.0,
        },
        {"instructions": [], "passed": True, "prompt_tokens": 5, "latency_s": 1.0},  # nothing in force: not a probe
    ]
    m = adherence.metrics(records)
    assert m["probes"] == 2 and m["iar"] == 0.5 and m["iar_10"] == 5.0 and m["iar_depth_10_plus"] == 0.0
    assert m["by_depth"] == {"1-4": 1.0, "10-19": 0.0} and m["mean_prompt_tokens"] == 20


def test_generated_adherence_suite_is_valid_and_deterministic(tmp_path):
    suite = make_adherence_suite(n=6, turns=24, seed=3)
    assert suite == make_adherence_suite(n=6, turns=24, seed=3)
    cases = adherence.load_cases(write(tmp_path, suite))
    assert len(cases) == 6
    for c in cases:
        kinds = {g.kind for g in c.instructions}
        assert len(kinds) == 2 and frozenset(kinds) not in CONFLICTS
        assert len(c.probe_turns) >= 3 and all(c.conversation.turns[p].assistant is None for p in c.probe_turns)
    revoked = [g for c in make_adherence_suite(n=20, seed=0) for g in c["global_instructions"] if "until_turn" in g]
    assert revoked  # some instructions are lifted by the user mid-conversation


def test_state_suite_answers_and_exact_match(tmp_path):
    suite = state.make_state_suite(n=2, seed=1)
    assert len(suite) == 12 and {c["condition"] for c in suite} == {"full", "shared"}
    cases = state.load_cases(write(tmp_path, suite))
    full, shared = [c for c in cases if c.flavor == "math"][:2]
    assert full.answer == shared.answer and full.condition == "full" and shared.condition == "shared"
    assert len(shared.conversation.turns) > len(full.conversation.turns)
    assert state.exact_match("The answer is 12.", "12") and not state.exact_match("13", "12")
    assert state.exact_match("Paris.", "paris") and not state.exact_match("It is Paris", "paris")


def test_recognizer_metrics_and_file_errors(tmp_path):
    m = evaluate_scores(["global", "global", "task", "ordinary", "task"], [1.0, 0.0, 1.0, 0.0, 0.0])
    assert (m["precision"], m["recall"], m["accuracy"]) == (0.5, 0.5, 0.6)
    (tn, fp), (fn, tp) = m["confusion"]
    assert {"tp": tp, "fp": fp, "fn": fn, "tn": tn} == {"tp": 1, "fp": 1, "fn": 1, "tn": 2}
    with pytest.raises(DataFormatError, match="a.jsonl:2"):
        load_label_set(write(tmp_path, [{"text": "hi", "label": "ordinary"}, {"text": "x", "label": "maybe"}]))
