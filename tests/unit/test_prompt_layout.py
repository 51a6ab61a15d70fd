"""The anchored layout: what the previous prompt held stays first, in its order; the rest by score,
the best nearest the query."""

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
    assert plan([COMP, OMIT, RAW, OMIT, COMP, RAW, RAW], anchor=()).segments == chronological.segments


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


def scored_plan(scores, resolutions, anchor=(), window=(5, 6), window_first=False, band=()):
    decisions = [
        Decision(i, s, r, Reason.RECENT if i in window else Reason.RECENT_BAND if i in band else Reason.SCORE)
        for i, (s, r) in enumerate(zip(scores, resolutions))
    ]
    return build_prompt_plan(
        query="and now?",
        exchanges=EXCHANGES,
        decisions=decisions,
        instructions=(),
        count_tokens=lambda text: len(text.split()),
        system_prompt="You are helpful.",
        anchor=anchor,
        window_first=window_first,
    )


# a question about the distant past: the window (turns 5, 6) scores low, the evidence (turn 1) high
PAST_QUESTION = [0.3, 0.9, 0.0, 0.5, 0.2, 0.1, 0.15]


def test_new_exchanges_come_by_score_with_the_best_nearest_the_query():
    resolutions = [COMP, RAW, OMIT, COMP, RAW, RAW, RAW]
    past = scored_plan(PAST_QUESTION, resolutions)
    assert kept_turns(past) == [5, 6, 4, 0, 3, 1]
    assert render_messages(past)[-2]["content"] == EXCHANGES[1].reply  # the evidence, then the query
    # a follow-up: the referent prior lifts the latest exchange, so the window stays next to the query
    follow_up = scored_plan([0.3, 0.9, 0.0, 0.5, 0.2, 0.1, 0.95], resolutions)
    assert kept_turns(follow_up) == [4, 0, 3, 1, 5, 6]
    # what the previous prompt held stays first in its order, whatever its score
    anchor = (Placement(1, RAW, ReplyForm.RAW), Placement(0, COMP, ReplyForm.TEXT_COMPRESSED))
    assert kept_turns(scored_plan(PAST_QUESTION, resolutions, anchor=anchor)) == [1, 0, 5, 6, 4, 3]
    # chronological stays the paper's turn order
    assert kept_turns(scored_plan(PAST_QUESTION, resolutions, anchor=None)) == [0, 1, 3, 4, 5, 6]


def test_the_plan_says_why_its_exchanges_stand_where_they_do():
    resolutions = [COMP, RAW, OMIT, COMP, RAW, RAW, RAW]
    anchor = (Placement(1, RAW, ReplyForm.RAW),)
    p = scored_plan(PAST_QUESTION, resolutions, anchor=anchor)
    assert p.notes == (
        "order: 1 exchange as in the previous prompt first (a cache reuses them), then 5 by score "
        "(the window as one block, by its best score), the best nearest the query",
    )
    assert scored_plan(PAST_QUESTION, resolutions, anchor=None).notes == ()


def test_window_first_opens_with_the_window_whatever_the_scores_and_orders_the_rest_by_score():
    resolutions = [COMP, RAW, OMIT, COMP, RAW, RAW, RAW]
    anchor = (Placement(1, RAW, ReplyForm.RAW), Placement(0, COMP, ReplyForm.TEXT_COMPRESSED))
    for scores in (PAST_QUESTION, [0.3, 0.9, 0.0, 0.5, 0.2, 0.1, 0.95]):  # a distant question, a follow-up
        p = scored_plan(scores, resolutions, anchor=anchor, window_first=True)
        assert kept_turns(p) == [5, 6, 4, 0, 3, 1]  # no anchoring after the window: by score, best last
        assert render_messages(p)[-2]["content"] == EXCHANGES[1].reply
    assert p.notes == (
        "order: the window first (2 exchanges: read before the message came), then 4 by score, "
        "the best nearest the query",
    )
    # the opening (system, then the window) is the same for any query: it can be read before one comes
    other = scored_plan(
        [0.9, 0.1, 0.8, 0.0, 0.7, 0.2, 0.3], [RAW, OMIT, COMP, OMIT, OMIT, RAW, RAW], window_first=True
    )
    assert render_messages(other)[:5] == render_messages(p)[:5]


def test_window_first_puts_the_band_right_after_the_window_whatever_its_score():
    """The band is known before the message too, so it is read ahead with the window; after it, not
    before it in turn order, so a band exchange HCR keeps by score instead leaves the window shared."""
    resolutions = [COMP, RAW, OMIT, COMP, COMP, RAW, RAW]
    for scores in (PAST_QUESTION, [0.3, 0.9, 0.0, 0.5, 0.99, 0.1, 0.95]):
        p = scored_plan(scores, resolutions, window_first=True, band=(4,))
        assert kept_turns(p) == [5, 6, 4, 0, 3, 1]
    assert p.notes == (
        "order: the window and its band first (3 exchanges: read before the message came), then 3 by score, "
        "the best nearest the query",
    )
    by_score = scored_plan([0.3, 0.9, 0.0, 0.5, 0.99, 0.1, 0.95], resolutions, window_first=True)
    assert kept_turns(by_score) == [5, 6, 0, 3, 1, 4]  # kept by its score: among the rest
    assert render_messages(by_score)[:5] == render_messages(p)[:5]  # the window still opens both


def test_the_reuse_note_names_the_last_message_read_again_as_history():
    from rea_core.prompt_layout import PromptPrint, reuse_note

    def print_of(*messages):
        return PromptPrint(tuple((hash(m), label) for m, label in messages))

    sent = print_of(("sys", "the system prompt"), ("hi", "the query")).followed_by("hello")
    # as history the message carries its time, so the prompt parts from the previous one there
    now = print_of(("sys", "the system prompt"), ("[Mon 9:00] hi", "exchange 0 (raw)"), ("x", "exchange 0 (raw)"))
    now = PromptPrint((*now.messages, (hash("and?"), "the query")))
    note = reuse_note(sent, now)
    assert note == (
        "first change: the last message is read again as exchange 0 (raw) (history writes it otherwise, e.g. with its "
        "time); "
        "read anew: 1 exchange and the query"
    )
