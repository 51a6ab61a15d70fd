"""Pure pieces of SeCom and COMEDY: metrics, segment parsing, retrieval selection,
compression word selection, memory parsing and fallback rules, config checks, the prompt view."""

import json

import numpy as np
import pytest

from rea_core import Settings
from rea_core.evals.segmentation import boundary_sequence, default_gold_path, default_k, load_gold, pk, window_diff
from rea_core.methods.comedy.memory import (
    MemoryParseError,
    parse_compressive,
    parse_sitting_memory,
    render_compressive,
    rule_compressive,
    rule_sitting_memory,
)
from rea_core.methods.registry import available_strategies
from rea_core.methods.secom.compressor import is_forced, select_words
from rea_core.methods.secom.retriever import bm25_scores, dense_scores, select_top_k
from rea_core.methods.secom.segmenter import (
    SegmentParseError,
    boundaries,
    embedding_segments,
    format_turns,
    parse_segments,
)
from rea_core.session import ChatSession
from rea_core.types import PromptPlan, Resolution, Segment, SegmentKind

# -- WindowDiff and Pk ---------------------------------------------------------------------------


def test_metrics_perfect_and_known_values():
    ref = boundary_sequence([3, 6], 9)
    assert ref == [0, 0, 0, 1, 0, 0, 1, 0, 0]
    assert pk(ref, ref) == 0.0 and window_diff(ref, ref) == 0.0
    hyp = boundary_sequence([4, 6], 9)  # one boundary one turn late
    # k = round(9 / 6) = 2 -> 8 windows; windows starting at 2 and 3 differ for both metrics
    assert default_k(ref) == 2
    assert pk(ref, hyp) == pytest.approx(2 / 8) and window_diff(ref, hyp) == pytest.approx(2 / 8)
    none = boundary_sequence([], 9)
    assert window_diff(ref, none, k=3) == pytest.approx(6 / 7)


def test_metrics_match_nltk():
    from nltk.metrics.segmentation import pk as nltk_pk
    from nltk.metrics.segmentation import windowdiff as nltk_wd

    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(3, 14))
        ref = [0] + [int(x) for x in rng.random(n - 1) < 0.3]
        hyp = [0] + [int(x) for x in rng.random(n - 1) < 0.3]
        k = int(rng.integers(1, n + 1))
        a, b = "".join(map(str, ref)), "".join(map(str, hyp))
        assert window_diff(ref, hyp, k) == pytest.approx(nltk_wd(a, b, k))
        assert pk(ref, hyp, k) == pytest.approx(nltk_pk(a, b, k))


def test_metric_and_gold_input_errors(tmp_path):
    with pytest.raises(ValueError):
        boundary_sequence([0], 5)
    with pytest.raises(ValueError):
        pk([0, 1], [0, 1, 0])
    cases = load_gold(default_gold_path())
    assert len(cases) == 10 and sum(len(t) for _, t, _ in cases) == 77
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "turns": [{"user": "a", "assistant": "b"}] * 3, "boundaries": [5]}) + "\n")
    from rea_core.errors import DataFormatError

    with pytest.raises(DataFormatError, match="boundaries"):
        load_gold(bad)


# -- segmentation ------------------------------------------------------------------------------------


def test_parse_segments_formats():
    assert parse_segments("0-2\n3-3\n4-6", 0, 6) == [(0, 2), (3, 3), (4, 6)]
    assert parse_segments("Segment 1: turns 5 to 6\nSegment 2: 7", 5, 7) == [(5, 6), (7, 7)]
    js = json.dumps(
        {
            "segments": [
                {"start_exchange_number": 2, "end_exchange_number": 3},
                {"start_exchange_number": 4, "end_exchange_number": 4},
            ]
        }
    )
    assert parse_segments(js, 2, 4) == [(2, 3), (4, 4)]
    assert parse_segments("0-1\n2-3\n4-9\n10-12", 0, 3) == [(0, 1), (2, 3)]  # runs past the end: cut at the last turn


@pytest.mark.parametrize(
    "answer, why",
    [
        ("I think the topics are travel and pets.", "no segment"),
        ("0-1\n3-4", "gap"),
        ("0-2\n2-4", "gap or overlap"),
        ("0-2", "end at turn 2"),
        ("1-4", "start at turn 0"),
    ],
)
def test_parse_segments_rejects(answer, why):
    with pytest.raises(SegmentParseError, match=why):
        parse_segments(answer, 0, 4)


def test_embedding_segments_cover_in_order():
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    vecs = np.stack([a, a, b, b, b, a]).astype(np.float32)
    spans = embedding_segments(vecs, 0.5, first=10)
    assert spans == [(10, 11), (12, 14), (15, 15)]
    assert boundaries(spans) == [12, 15]
    assert embedding_segments(np.zeros((0, 2)), 0.5) == []
    text = format_turns([("hi", "hello")], 4)
    assert text.startswith("Turn 4:\n[user]: hi\n[agent]: hello")


# -- retrieval ----------------------------------------------------------------------------------------


def test_bm25_and_top_k():
    docs = ["the cat sat on the mat", "dogs love kyoto temples", "maruyama park cherry blossoms in kyoto"]
    scores = bm25_scores("where are the cherry blossoms in Kyoto?", docs)
    assert select_top_k(scores, 2) == [2, 1] and scores[0] == 0
    assert not bm25_scores("zebra", docs).any()
    assert len(bm25_scores("x", [])) == 0
    assert select_top_k([0.5, 0.9, 0.5], 3) == [1, 0, 2]  # ties keep the earlier unit first
    assert select_top_k([1.0], 0) == []
    v = np.eye(3, dtype=np.float32)
    assert dense_scores(v[1], v).tolist() == [0.0, 1.0, 0.0]


# -- compression word selection ----------------------------------------------------------------


def test_select_words_keeps_entities_and_meets_rate():
    words = ["[user]:", "we", "went", "to", "Kyoto", "in", "2019", "and", "it", "was", "really", "very", "nice"]
    info = [0.0, 1, 2, 0.1, 0.0, 0.2, 0.0, 0.1, 0.1, 0.3, 0.5, 0.4, 3]
    keep = select_words(words, info, [1] * len(words), 0.5)
    kept = [w for w, k in zip(words, keep) if k]
    assert {"[user]:", "Kyoto", "2019"} <= set(kept)  # forced despite zero information
    assert 0.5 * len(words) <= len(kept) < len(words)
    assert "nice" in kept and "to" not in kept
    assert is_forced("\n") and is_forced("Mei.") and not is_forced("the")


# -- COMEDY memory parsing and rules -----------------------------------------------------------


def test_session_memory_parse_and_rule():
    assert parse_sitting_memory("[User likes green tea|Assistant suggests a tea shop|ok]") == [
        "User likes green tea",
        "Assistant suggests a tea shop",
    ]
    assert parse_sitting_memory("Memory: User moved to Denver | User owns a dog named Biscuit") == [
        "User moved to Denver",
        "User owns a dog named Biscuit",
    ]
    for bad in ("No valid information.", "ok", ""):
        with pytest.raises(MemoryParseError):
            parse_sitting_memory(bad)
    prompt = "create objective memory descriptions for both individuals"
    with pytest.raises(MemoryParseError):
        parse_sitting_memory("create objective memory descriptions for individuals", prompt)  # an echo
    rule = rule_sitting_memory([("I adopted a kitten. She is shy.", "Congratulations! Give her time.")])
    assert rule == ["User said: I adopted a kitten.", "Assistant said: Congratulations!"]


def test_compressive_parse_and_rule_have_three_parts():
    parsed = parse_compressive(
        "{User Description: The user likes tea###Relationship Description: "
        "friendly and warm###Event Description: they planned a trip}"
    )
    assert parsed == {
        "user": "The user likes tea",
        "relationship": "friendly and warm",
        "events": "they planned a trip",
    }
    for bad in ("just one part", "a###b", "User Description: x###Relationship Description: ###Event Description: y z"):
        with pytest.raises(MemoryParseError):
            parse_compressive(bad)
    sessions = [
        rule_sitting_memory([("I am a nurse in Lyon.", "That is a demanding job.")]),
        ["User plans a trip to Rome"],
    ]
    rule = rule_compressive(sessions, 3)
    assert set(rule) == {"user", "relationship", "events"} and all(v.strip() for v in rule.values())
    assert (
        "nurse in Lyon" in rule["user"]
        and "2 sessions (3 turns)" in rule["relationship"]
        and "Session 2" in rule["events"]
    )
    text = render_compressive(rule)
    assert text.splitlines()[0].startswith("User Description:") and "Event Description:" in text
    assert rule_compressive([], 0)["user"]  # never empty


# -- config, registry, session, view -----------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        dict(secom_segmenter="gpt4"),
        dict(secom_compressor="zip"),
        dict(secom_retriever="tfidf"),
        dict(secom_compress_rate=0.0),
        dict(secom_compress_rate=1.5),
        dict(secom_top_k=0),
        dict(secom_segment_window=1),
        dict(comedy_session_turns=0),
        dict(secom_boundary_threshold=2.0),
    ],
)
def test_config_rejects(bad):
    with pytest.raises(ValueError):
        Settings.from_dict(bad)  # the flat names of saved configs map into Settings.secom / .comedy


def test_defaults_follow_the_papers():
    c = Settings()
    assert c.secom.compress_rate == 0.75 and c.secom.retriever == "bm25" and c.secom.segmenter == "llm"
    assert Settings.from_dict(c.to_dict()) == c
    assert {"secom", "comedy"} <= set(available_strategies())


def test_session_memory_round_trip():
    s = ChatSession(strategy="comedy", memory={"session_start": 2, "compressive": {"user": "x"}})
    again = ChatSession.from_json(s.to_json())
    assert again.memory == s.memory
    old = s.to_dict()
    del old["memory"]  # files saved without strategy memory (older versions) still load
    assert ChatSession.from_dict(old).memory == {}


def test_prompt_view_shows_memory_and_notes_escaped():
    from app.views.prompt import render_prompt_view
    from rea_core.reconstruction import render_messages

    xss = "<img src=x onerror=alert(1)>"
    plan = PromptPlan(
        segments=(
            Segment(kind=SegmentKind.SYSTEM, tokens=3, text="sys"),
            Segment(
                kind=SegmentKind.MEMORY,
                tokens=5,
                text=f"[user]: {xss}",
                resolution=Resolution.COMPRESSED,
                label="segment 0 · turns 0-1",
                source_reply=xss,
            ),
            Segment(
                kind=SegmentKind.MEMORY,
                tokens=0,
                text="[user]: unrelated",
                resolution=Resolution.OMIT,
                label="segment 1 · turns 2-2",
            ),
            Segment(kind=SegmentKind.QUERY, tokens=2, text="q"),
        ),
        notes=(f"LLM segmenter output did not parse {xss}",),
    )
    html = render_prompt_view(plan, title="secom")
    assert "<img" not in html and "&lt;img" in html
    assert "rea-memory" in html and "segment 0 · turns 0-1" in html and "1 memory unit not retrieved" in html
    assert "rea-notes" in html and "did not parse" in html
    messages = render_messages(plan)
    assert (
        messages[0]["role"] == "system" and xss in messages[0]["content"] and "unrelated" not in messages[0]["content"]
    )
    assert messages[-1] == {"role": "user", "content": "q"}
    assert plan.to_dict()["notes"] and plan.to_dict()["segments"][1]["turns"] == []


def test_comedy_reads_memory_saved_before_sittings_were_named_so():
    from rea_core.methods.comedy.strategy import ComedyStrategy

    old = {"session_start": 2, "sessions": [{"start": 0, "end": 1, "memories": ["User likes tea."]}]}
    session = ChatSession(strategy="comedy", memory=old)
    state = ComedyStrategy.state(session)
    assert state["sitting_start"] == 2 and state["sittings"] == old["sessions"]
    assert ComedyStrategy.memory_problem(None, old, n_turns=3) is None  # type: ignore[arg-type]
    assert "sitting_start" in ComedyStrategy.memory_problem(None, {"session_start": 9}, n_turns=3)  # type: ignore[arg-type]


def test_settings_saved_before_sittings_were_named_so_still_load():
    assert Settings.from_dict({"comedy": {"session_turns": 3}}).comedy.sitting_turns == 3  # a results file's section
    assert Settings.from_dict({"comedy_session_turns": 5}).comedy.sitting_turns == 5  # an earlier flat config
