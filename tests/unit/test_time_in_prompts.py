"""Time in episodic memory without a model: the prompt form of kept exchanges and its token count,
times through session save/load and export, a bad time's one clear error, and the views that show it."""

from __future__ import annotations

import json

import pytest

from rea_core import ChatSession, Decision, Resolution, load_sessions, prompt_time
from rea_core.errors import DataFormatError
from rea_core.memory.episodic import Exchange
from rea_core.reconstruction import build_prompt_plan, render_messages, user_as_read
from rea_core.session import saved_conversations
from rea_core.types import SegmentKind

XSS = "<img src=x onerror=alert(1)>"
MAY_8 = "2023-05-08T13:56"  # a Monday
SHOWN = "[Monday 8 May 2023 13:56]"


def words(text: str) -> int:
    return len(text.split())


def plan(show_time: bool, resolutions=(Resolution.RAW, Resolution.COMPRESSED, Resolution.OMIT, Resolution.RAW)):
    times = [MAY_8, "2023-05-20T09:05", "2023-06-01T18:00", None]  # the last exchange has no time
    exchanges = [Exchange(i, f"user {i} text", f"reply {i} has some words", time=t) for i, t in enumerate(times)]
    decisions = [Decision(i, 0.5, r) for i, r in enumerate(resolutions)]
    return build_prompt_plan(
        query="what now",
        exchanges=exchanges,
        decisions=decisions,
        instructions=(),
        count_tokens=words,
        show_time=show_time,
    )


def test_prompt_form_is_compact_and_unpadded():
    assert prompt_time(MAY_8) == "Monday 8 May 2023 13:56"
    assert user_as_read("hi", MAY_8) == f"{SHOWN} hi" and user_as_read("hi", None) == "hi"


def test_kept_exchanges_read_their_time_and_the_count_includes_it():
    p = plan(show_time=True)
    users = [m["content"] for m in render_messages(p) if m["role"] == "user"]
    assert users == [f"{SHOWN} user 0 text", "[Saturday 20 May 2023 09:05] user 1 text", "user 3 text", "what now"]
    raw, compressed, omitted, untimed = p.exchanges()
    assert raw.tokens == words(f"{SHOWN} user 0 text") + words(raw.reply) == 13
    assert compressed.tokens == words(user_as_read(compressed.user, compressed.time)) + words(compressed.reply)
    assert untimed.tokens == 3 + 5 and untimed.time is None
    assert omitted.tokens == 0 and omitted.time == "2023-06-01T18:00"  # kept for views, never rendered
    assert "Thu 1 Jun" not in json.dumps(render_messages(p))
    assert p.to_dict()["segments"][0]["time"] == MAY_8


def test_without_show_time_nothing_changes():
    p = plan(show_time=False)
    assert all(s.time is None for s in p.exchanges())
    assert [m["content"] for m in render_messages(p) if m["role"] == "user"][0] == "user 0 text"
    assert p.exchanges()[0].tokens == 3 + 5
    assert plan(show_time=True).total_tokens - p.total_tokens == 2 * words(SHOWN)  # two kept exchanges with a time


def test_count_and_render_agree_for_every_raw_exchange():
    p = plan(show_time=True, resolutions=(Resolution.RAW,) * 4)
    messages = render_messages(p)[:-1]  # (user, assistant) pairs, then the query
    for seg, (user, reply) in zip(p.exchanges(), zip(messages[::2], messages[1::2])):
        assert seg.tokens == words(user["content"]) + words(reply["content"])


def session_with_times() -> ChatSession:
    session = ChatSession(strategy="vanilla")
    session.episodes.append("I moved to Lisbon.", "Congratulations!", time=MAY_8)
    session.episodes.append("No time here.", "Fine.")
    return session


def test_times_survive_save_load_and_the_export_to_conversations(tmp_path):
    path = session_with_times().save(tmp_path / "chat.json")
    loaded = ChatSession.load(path)
    assert [ex.time for ex in loaded.episodes.exchanges] == [MAY_8, None]
    (conv,) = saved_conversations(path)
    assert [t.time for t in conv.turns] == [MAY_8, None]
    assert loaded.to_dict()["episodes"] == session_with_times().to_dict()["episodes"]


def test_a_loaded_time_comes_back_in_the_stored_form(tmp_path):
    data = session_with_times().to_dict()
    data["episodes"]["exchanges"][0]["time"] = "2023-05-08T13:56:41+02:00"
    loaded = ChatSession.from_dict(data)
    assert loaded.episodes.exchanges[0].time == MAY_8


@pytest.mark.parametrize("bad", ["yesterday", 1683554160, "2023-13-40"])
def test_a_bad_time_gives_one_clear_error(tmp_path, bad):
    data = session_with_times().to_dict()
    data["episodes"]["exchanges"][1]["time"] = bad
    with pytest.raises(DataFormatError, match=r'turn 1: "time"') as err:
        ChatSession.from_dict(data)
    assert "damaged" not in str(err.value)  # named for what it is, not wrapped
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "rea-studio-compare", "version": 1, "columns": [data]}))
    with pytest.raises(DataFormatError, match=r'bad.json: turn 1: "time"'):
        load_sessions(path)


def test_check_loaded_refuses_a_bad_time_set_after_loading():
    session = session_with_times()
    session.episodes.exchanges[0].time = "not a date"
    with pytest.raises(DataFormatError, match=r'turn 0: "time"'):
        session.check_loaded(max_turns=10, max_chars=1000, max_instructions=10)


def test_prompt_view_shows_each_time_escaped():
    from app.views.prompt import render_prompt_view

    p = build_prompt_plan(
        query=XSS,
        exchanges=[Exchange(0, XSS, "old", time=MAY_8), Exchange(1, XSS, XSS, time="2023-05-09T08:00")],
        decisions=[Decision(0, 0.1, Resolution.OMIT), Decision(1, 0.9, Resolution.RAW)],
        instructions=(),
        count_tokens=words,
        show_time=True,
    )
    html = render_prompt_view(p, prompt_tokens=40)
    assert "<img" not in html
    assert f'<span class="rea-time">{SHOWN}</span> &lt;img' in html  # the omitted exchange's list entry
    kept_one = '<span class="rea-time">[Tuesday 9 May 2023 08:00]</span> &lt;img'
    assert kept_one in html  # the kept one, as the model reads
    assert [s.kind for s in p.segments][-1] is SegmentKind.QUERY


def test_retrieval_chart_hover_says_when():
    from app.views.charts import retrieval_chart

    exchanges = [Exchange(0, XSS, "r", time=MAY_8), Exchange(1, "b", "r")]
    decisions = (Decision(0, 0.2, Resolution.OMIT), Decision(1, 0.8, Resolution.RAW))
    fig = retrieval_chart(decisions, exchanges, tau_low=0.3, tau_high=0.7, score_label="hybrid score")
    hovers = [h for bar in fig.data for h in (bar.hovertext or ())]
    assert any(h.startswith("turn 0 · Monday 8 May 2023 13:56 · score") for h in hovers)
    assert any(h.startswith("turn 1 · score") for h in hovers)  # no time: nothing said
