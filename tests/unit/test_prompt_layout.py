"""The anchored layout: what the previous prompt held stays first, in its order; the window stays last."""

import pytest

from rea_core import Decision, Resolution
from rea_core.memory.episodic import Exchange
from rea_core.prompt_layout import Placement, anchored_order, message_label, stable_placements
from rea_core.reconstruction import build_prompt_plan, render_messages, rendered_sources
from rea_core.types import Reason, ReplyForm, SegmentKind

RAW, COMP, OMIT = Resolution.RAW, Resolution.COMPRESSED, Resolution.OMIT
EXCHANGES = [Exchange(i, f"question {i}", f"answer number {i} with some words") for i in range(7)]


def plan(resolutions, anchor=None, window=(5, 6)):
    decisions = [
        Decision(i, 0.5, r, Reason.RECENT if i in window else Reason.SCORE) for i, r in enumerate(resolutions)
    ]
    return build_prompt_plan(
        query="and now?",
        exchanges=EXCHANGES,
        decisions=decisions,
        instructions=["answer in lowercase."],
        count_tokens=lambda text: len(text.split()),
        system_prompt="You are helpful.",
        anchor=anchor,
    )


def kept_turns(p):
    return [s.turn for s in p.exchanges() if s.resolution is not OMIT]


def test_without_an_anchor_the_layout_is_turn_order():
    chronological = plan([COMP, OMIT, RAW, OMIT, COMP, RAW, RAW])
    assert kept_turns(chronological) == [0, 2, 4, 5, 6]
    assert plan([COMP, OMIT, RAW, OMIT, COMP, RAW, RAW], anchor=()) == chronological


def test_what_the_previous_prompt_held_comes_first_in_its_order_and_the_rest_after():
    before = plan([OMIT, OMIT, RAW, OMIT, COMP, RAW, RAW])  # turn 2 and 4 kept before the window
    anchor = stable_placements(before)
    assert anchor == (Placement(2, RAW, ReplyForm.RAW), Placement(4, COMP, ReplyForm.TEXT_COMPRESSED))
    # the next query brings exchange 0 back: in turn order it would lead and cut the shared prefix
    after = plan([COMP, OMIT, RAW, OMIT, COMP, RAW, RAW], anchor=anchor)
    assert kept_turns(after) == [2, 4, 0, 5, 6]
    shared = render_messages(before)[:5]  # system, then exchanges 2 and 4
    assert render_messages(after)[:5] == shared
    # the window stays last and in turn order, the query after it
    assert [s.kind for s in after.segments][-1] is SegmentKind.QUERY
    assert [s.turn for s in after.exchanges() if s.reason is Reason.RECENT] == [5, 6]


def test_an_exchange_in_another_form_is_placed_as_new():
    anchor = (Placement(2, RAW, ReplyForm.RAW), Placement(4, COMP, ReplyForm.TEXT_COMPRESSED))
    after = plan([OMIT, COMP, COMP, OMIT, COMP, RAW, RAW], anchor=anchor)  # 2 is compressed now
    assert kept_turns(after) == [4, 1, 2, 5, 6]


def test_only_the_order_changes():
    resolutions = [COMP, RAW, OMIT, COMP, COMP, RAW, RAW]
    anchor = (Placement(4, COMP, ReplyForm.TEXT_COMPRESSED), Placement(1, RAW, ReplyForm.RAW))
    anchored, chronological = plan(resolutions, anchor=anchor), plan(resolutions)
    assert sorted(anchored.segments, key=repr) == sorted(chronological.segments, key=repr)
    assert anchored.total_tokens == chronological.total_tokens
    # omitted exchanges keep their place, so a view still shows where they were
    assert [s.turn for s in anchored.exchanges()].index(2) == 2


def test_anchored_order_keeps_omitted_and_window_slots():
    p = plan([COMP, OMIT, COMP, OMIT, COMP, RAW, RAW])
    segments = list(p.exchanges())
    anchor = (Placement(4, COMP, ReplyForm.TEXT_COMPRESSED),)
    out = anchored_order(segments, anchor)
    assert [s.turn for s in out] == [4, 1, 0, 3, 2, 5, 6]


def test_placements_round_trip_and_refuse_junk():
    p = Placement(3, COMP, ReplyForm.LATENT)
    assert Placement.from_list(p.to_list()) == p
    for junk in ([-1, "raw", "raw"], ["3", "raw", "raw"], [3, "sideways", None], [3, "raw"], 7):
        with pytest.raises((TypeError, ValueError)):
            Placement.from_list(junk)


def test_each_rendered_message_knows_its_blocks():
    p = plan([COMP, OMIT, RAW, OMIT, COMP, RAW, RAW], anchor=(Placement(4, COMP, ReplyForm.TEXT_COMPRESSED),))
    sources = rendered_sources(p)
    assert [m for m, _ in sources] == render_messages(p)
    labels = [message_label(blocks) for _, blocks in sources]
    assert labels[0] == "the system prompt and Instructional Memory"
    assert labels[1:3] == ["exchange 4 (compressed)"] * 2
    assert labels[-1] == "the query"
