"""A loaded conversation's latest turn planned again (``Strategy.retrace_latest``) on the real packaged
models: the plan of its latest turn, the session itself untouched."""

import pytest

from rea_core import RuntimeConfig, build_strategy

TURNS = [
    ("My cat is called Biscuit and she is 3 years old.", "What a lovely name for a cat!"),
    ("How do I fold a fitted sheet?", "Tuck the corners into each other, then fold it flat."),
    ("What should I feed Biscuit?", "A balanced wet food suits most adult cats."),
]


@pytest.mark.parametrize("name", ["rea", "vanilla"])
def test_the_latest_turn_is_planned_again_and_the_session_is_unchanged(models, name):
    strategy = build_strategy(name, models, runtime=RuntimeConfig(max_new_tokens=8))
    session = strategy.new_session()
    assert strategy.retrace_latest(session) is None  # nothing to plan yet
    for user, reply in TURNS:
        original = strategy.respond(session, user, reply=reply)
    before = session.to_dict()
    again = strategy.retrace_latest(session)
    assert session.to_dict() == before  # planned on a copy
    assert again.turn == original.turn == 2 and not again.generated and again.reply == TURNS[-1][1]
    assert [d.turn for d in again.decisions] == [0, 1]
    assert again.plan.query == original.plan.query
    assert [(d.turn, d.resolution) for d in again.decisions] == [(d.turn, d.resolution) for d in original.decisions]
