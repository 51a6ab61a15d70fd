"""The instruction adapter's training data, from the real packaged conversation sets: every reply it learns
passes the checkers in force, held-out families never appear, and both arms' layouts are drawn."""

from __future__ import annotations

import pytest

from rea_core.evals.suites import KINDS
from rea_core.training.instruct_data import (
    HELD_OUT_KINDS,
    complies,
    make_examples,
    phrasings,
    short_reply,
    turn_pool,
)


@pytest.fixture(scope="module")
def examples():
    return list(make_examples(120, seed=0, pool=turn_pool(n_sessions=200)))


def test_every_target_passes_the_checkers_of_what_is_in_force(examples):
    by_name = {k.name: k for k in KINDS}
    for example in examples:
        assert complies(example.target, [by_name[k] for k in example.kinds]), example


def test_held_out_families_never_appear(examples):
    held_out_texts = {p for k in KINDS if k.name in HELD_OUT_KINDS for p in phrasings(k)}
    for example in examples:
        assert not set(example.kinds) & HELD_OUT_KINDS
        assert not any(text in m["content"] for m in example.messages for text in held_out_texts)


def test_the_instruction_sits_where_each_arm_puts_it(examples):
    by_name = {k.name: k for k in KINDS}
    assert {e.layout for e in examples} == {"rea", "vanilla"}
    assert any(not e.kinds for e in examples), "some prompts have nothing in force"
    for example in (e for e in examples if e.kinds):
        system, rest = example.messages[0]["content"], example.messages[1:]
        stated = {p for k in example.kinds for p in phrasings(by_name[k])}
        if example.layout == "rea":  # in the Instructional Memory block, not in the turns
            assert "instructions for the whole conversation" in system
            assert sum(text in system for text in stated) == len(example.kinds)
        else:  # as earlier user turns, the system message plain
            assert system == "You are a helpful assistant."
            assert sum(m["role"] == "user" and m["content"] in stated for m in rest) == len(example.kinds)


def test_the_same_seed_gives_the_same_examples():
    pool = turn_pool(n_sessions=60)
    assert list(make_examples(10, seed=3, pool=pool)) == list(make_examples(10, seed=3, pool=pool))


def test_short_reply_keeps_whole_sentences_and_lines():
    text = "First line.\n* one point here\n* another point. " + "word " * 80
    assert short_reply(text, 10) == "First line.\n* one point here\n* another point."
    assert short_reply("one two three", 10) == "one two three"


def test_a_focused_stage_carries_its_kinds_in_the_share_asked_and_refuses_held_out_ones():
    from rea_core.training.instruct import InstructTrainConfig

    focus = ("lowercase", "uppercase", "bullets")
    made = list(make_examples(200, seed=1, pool=turn_pool(n_sessions=200), focus=focus, focus_share=0.7))
    instructed = [e for e in made if e.kinds]
    share = sum(bool(set(e.kinds) & set(focus)) for e in instructed) / len(instructed)
    assert share >= 0.7, share  # the focus draws, plus the ordinary draws that happen to hit a focus kind
    by_name = {k.name: k for k in KINDS}
    assert all(complies(e.target, [by_name[k] for k in e.kinds]) for e in made)
    assert not any(set(e.kinds) & HELD_OUT_KINDS for e in made)
    with pytest.raises(ValueError, match="not trained on"):
        InstructTrainConfig(focus=("quotation",))  # held out: never trained, so never focused on
    with pytest.raises(ValueError, match="share"):
        InstructTrainConfig(focus=focus, focus_share=1.5)
