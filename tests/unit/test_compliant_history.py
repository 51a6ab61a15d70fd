"""Compliant histories for the adherence suite: every stored reply passes the checks in force."""

import itertools
import json

import pytest
from langdetect import DetectorFactory
from typer.testing import CliRunner

from rea_core.cli.main import app
from rea_core.evals import adherence
from rea_core.evals.checks import Check
from rea_core.evals.suites import CONFLICTS, KINDS, WORDING, comply, make_adherence_suite

CHECKS = {k.name: [Check(c["instruction_id"], c["kwargs"]) for c in k.checks] for k in KINDS}
# Every set of kinds the suite can hold in force at once: one alone, or a wording kind with a framing kind.
IN_FORCE = [{k} for k in CHECKS] + [
    {w, f}
    for w, f in itertools.product(sorted(WORDING), sorted(set(CHECKS) - WORDING))
    if frozenset((w, f)) not in CONFLICTS
]
SAMPLES = [
    "Sure, here it is.",
    "ok",
    'That is very kind. I "think" so, yes.\nA second line with a back\\slash and 1,000 things.',
    "- first point\n- second point\n* third\n1. fourth",
    "P.S. I already wrote one. Right, and very good.",
]


@pytest.fixture(autouse=True)
def seeded_langdetect(monkeypatch):
    """The checkers call langdetect.detect, which is random unless seeded; seed it so the test is stable."""
    monkeypatch.setattr(DetectorFactory, "seed", 0)


def failing(reply: str, kinds) -> list[str]:
    return [k for k in kinds if not all(c.passed(reply) for c in CHECKS[k])]


def test_every_kind_and_every_pair_the_suite_can_hold_is_satisfied():
    assert len(IN_FORCE) == 14 + 43  # 7 x 7 pairs less the 6 CONFLICTS between a wording and a framing kind
    for kinds, sample in itertools.product(IN_FORCE, SAMPLES):
        out = comply(sample, kinds)
        assert not failing(out, kinds), (sorted(kinds), sample, out)
        assert comply(sample, kinds) == out  # deterministic


def test_comply_examples_and_errors():
    assert comply("Sure, here it is.", {"no_comma", "title"}) == "<<Answer>>\nSure here it is."
    assert comply("Sure, here it is.", set()) == "Sure, here it is."
    assert comply("One. Two. Three. Four.", {"bullets"}) == "* One.\n* Two. Three.\n* Four."
    assert json.loads(comply('He said "hi"\nthen left.', {"json", "uppercase"})) == {
        "ANSWER": "HE SAID 'HI' THEN LEFT. I HOPE THIS IS USEFUL TO YOU."
    }
    assert (
        comply("Fine.", {"first_letter"}) == "Right. Fine."
        and comply("Really fine.", {"first_letter"}) == "Really fine."
    )
    with pytest.raises(ValueError, match="unknown instruction kinds"):
        comply("x", {"shouting"})


def test_compliant_suite_passes_every_check_in_force(tmp_path):
    suite = make_adherence_suite(n=6, turns=24, seed=0, compliant_history=True)
    default = make_adherence_suite(n=6, turns=24, seed=0)
    assert suite == make_adherence_suite(n=6, turns=24, seed=0, compliant_history=True)
    path = tmp_path / "compliant.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in suite), encoding="utf-8")
    cases = adherence.load_cases(path)  # still a valid adherence file
    checked = rewritten = 0
    for case, raw, plain in zip(cases, suite, default):
        assert raw["compliant_history"] is True and "compliant_history" not in plain
        assert (
            raw["global_instructions"] == plain["global_instructions"] and raw["probe_turns"] == plain["probe_turns"]
        )
        for j, (turn, before) in enumerate(zip(case.conversation.turns, plain["turns"])):
            assert turn.user == before["user"]
            active = [g for g in case.instructions if g.active_at(j)]
            if turn.assistant is None or not active:
                assert turn.assistant == before.get("assistant")  # probes and replies with nothing in force stay
                continue
            checked += 1
            rewritten += turn.assistant != before["assistant"]
            assert all(c.passed(turn.assistant) for g in active for c in g.checks), (case.id, j, turn.assistant)
    assert checked > 50 and rewritten > 0.8 * checked


def test_default_suite_is_unchanged():
    suite = make_adherence_suite(n=6, turns=24, seed=0)
    # Instruction kinds, their turns and the probes of seed 0, as generated before compliant histories existed.
    assert [
        (tuple((g["kind"], g["turn"], g.get("until_turn")) for g in c["global_instructions"]), tuple(c["probe_turns"]))
        for c in suite
    ] == [
        ((("json", 0, 18), ("word_limit", 7, None)), (2, 5, 10, 15, 20)),
        ((("word_limit", 1, 21), ("bullets", 10, None)), (3, 6, 11, 16)),
        ((("no_comma", 0, 20), ("bullets", 10, None)), (2, 5, 15)),
        ((("quotation", 0, None), ("no_comma", 12, None)), (2, 5, 10, 15, 20)),
        ((("json", 0, 18), ("uppercase", 9, None)), (2, 5, 10, 15, 20)),
        ((("bullets", 1, None), ("word_limit", 5, None)), (3, 6, 11, 16, 21)),
    ]
    cases = [adherence.parse_case(c, c["id"]) for c in suite]
    assert all("compliant_history" not in c for c in suite)
    assert {t["assistant"] for c in suite for t in c["turns"] if "assistant" in t} >= {"Understood.", "Okay."}
    failing_replies = [
        t.assistant
        for c in cases
        for j, t in enumerate(c.conversation.turns)
        if t.assistant is not None
        and not all(ch.passed(t.assistant) for g in c.instructions if g.active_at(j) for ch in g.checks)
    ]
    assert len(failing_replies) > 20  # the plain history mostly ignores the instructions


def test_cli_flag(tmp_path):
    out = tmp_path / "suite.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "data",
            "make-adherence",
            "--n",
            "2",
            "--turns",
            "12",
            "--seed",
            "1",
            "--compliant-history",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "wrote 2 conversations with compliant histories" in result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows == make_adherence_suite(n=2, turns=12, seed=1, compliant_history=True)
