"""SeCom and COMEDY on the packaged models: segment coverage, compression, COMEDY's
three-part memory, parse-failure fallback, session boundaries, save/load and undo.

Replayed turns (``reply=...``) keep these fast: the memory work (segmenting, compressing, Tasks
1 and 2) runs on the real backbone either way.
"""

from dataclasses import replace

import pytest

from rea_core import COMEDYConfig, RuntimeConfig, SeComConfig, build_strategy
from rea_core.methods.secom.compressor import PerplexityCompressor
from rea_core.methods.secom.segmenter import TopicSegmenter, validate_spans
from rea_core.session import ChatSession

TURNS = [
    ("I'm planning a trip to Kyoto in April with my sister Mei.", "April is cherry blossom season, so book early."),
    ("Which temples should we visit?", "Kiyomizu-dera and Fushimi Inari are classics."),
    ("Different topic: I adopted a kitten named Miso.", "Congratulations! How is Miso settling in?"),
    ("What should I feed her?", "A high-quality kitten food, several small meals a day."),
    ("Unrelated: how do I read a CSV file in Python?", "Use csv.reader from the csv module."),
    ("How do I skip the header row?", "Call next(reader) once before the loop."),
    ("Thanks! What was my sister's name again?", "Your sister is Mei."),
]


def replay(strategy, turns):
    session = strategy.new_session()
    for user, reply in turns:
        result = strategy.respond(session, user, reply=reply)
    return session, result


def test_secom_segments_cover_every_turn_once_in_order(models):
    secom = build_strategy(
        "secom", models, SeComConfig(segmenter="embedding", segment_window=3), runtime=RuntimeConfig(max_new_tokens=16)
    )
    session, _ = replay(secom, TURNS)
    units = secom.units(session)
    spans = [(u["start"], u["end"]) for u in units]
    assert validate_spans(spans, 0, len(TURNS) - 1) == spans  # closed segments + open tail, no gap, no overlap
    assert len(session.memory["segments"]) >= 2 and session.memory["open_from"] == units[-1]["start"]
    plan, decisions = secom.build_context(session, "What should the kitten eat?")
    memory = [s for s in plan.segments if s.kind.value == "memory"]
    assert [s.turns for s in memory] == [tuple(range(a, b + 1)) for a, b in spans]
    assert sum(s.resolution.value != "omit" for s in memory) == min(3, len(memory))  # top-N retrieved
    assert sorted(d.turn for d in decisions) == list(range(len(TURNS)))
    assert any("SeCom:" in n for n in plan.notes)
    dense = secom.with_config(replace(secom.config, retriever="dense"))  # the MiniLM retriever, same units
    plan_d, _ = dense.build_context(session, "What should the kitten eat?")
    picked = [s.turns for s in plan_d.segments if s.kind.value == "memory" and s.resolution.value != "omit"]
    assert len(picked) == min(3, len(memory)) and any(3 in t for t in picked) and "dense" in plan_d.notes[0]
    # an explicit session boundary closes the open tail
    note = secom.end_sitting(session)
    assert "session closed" in note and session.memory["open_from"] == len(TURNS)
    assert validate_spans([(s["start"], s["end"]) for s in session.memory["segments"]], 0, len(TURNS) - 1)


def test_llm_segmenter_parses_or_falls_back_with_a_note(models):
    result = TopicSegmenter(models.generator, models.embedder, mode="llm").segment(TURNS[:5], first=2)
    assert validate_spans(list(result.spans), 2, 6)
    assert result.method == "llm" or (result.method == "embedding" and "did not parse" in result.note)


def test_compressed_units_are_shorter_and_keep_named_entities(models):
    text = (
        "[user]: My sister Mei and I are flying to Kyoto on April "
        "3rd, and we booked the Hotel Granvia near the station.\n"
        "[agent]: That is a lovely plan! In early April the cherry "
        "blossoms at Maruyama Park and along the Philosopher's Path "
        "are usually at their best, so you should try to go there early in the morning before it gets very crowded."
    )
    out = PerplexityCompressor(models.generator, rate=0.75).compress(text)
    assert out.tokens < out.original_tokens and out.tokens <= 0.85 * out.original_tokens
    for entity in (
        "Mei",
        "Kyoto",
        "April",
        "3rd",
        "Hotel",
        "Granvia",
        "Maruyama",
        "Park",
        "Philosopher's",
        "Path",
        "[user]:",
        "[agent]:",
    ):
        assert entity in out.text


@pytest.mark.slow  # a default-run sibling covers the same path; kept in the slow group
def test_comedy_memory_has_three_parts_after_two_sittings(models):
    comedy = build_strategy(
        "comedy", models, COMEDYConfig(sitting_turns=2, memory_tokens=48), runtime=RuntimeConfig(max_new_tokens=16)
    )
    session, _ = replay(comedy, TURNS[:5])
    memory = session.memory
    assert [(s["start"], s["end"]) for s in memory["sittings"]] == [(0, 1), (2, 3)] and memory["sitting_start"] == 4
    assert all(s["memories"] for s in memory["sittings"])
    parts = memory["compressive"]
    assert all(isinstance(parts[k], str) and parts[k].strip() for k in ("user", "relationship", "events"))
    assert parts["sittings"] == 2 and parts["method"] in ("llm", "rule")
    plan, decisions = comedy.build_context(session, "What do you know about me?")
    block = [s for s in plan.segments if s.kind.value == "memory"]
    assert len(block) == 1 and "User Description:" in block[0].text and "Event Description:" in block[0].text
    assert [d.resolution.value for d in decisions] == ["omit"] * 4 + ["raw"]  # earlier sessions live in the memory


def test_comedy_parse_failure_falls_back_and_says_so(models):
    from app.views.prompt import render_prompt_view

    # 8 new tokens cannot hold "User Description: ...###Relationship Description: ...###Event Description: ..."
    comedy = build_strategy(
        "comedy", models, COMEDYConfig(sitting_turns=2, memory_tokens=8), runtime=RuntimeConfig(max_new_tokens=8)
    )
    session, _ = replay(comedy, TURNS[:2])
    assert session.memory["compressive"]["method"] == "rule"
    result = comedy.respond(session, "Do you remember my trip?")  # generated: the chat goes on
    assert result.reply and any("did not parse" in n for n in result.plan.notes)
    assert "did not parse" in render_prompt_view(result.plan, title="comedy")


def test_save_load_and_undo_keep_strategy_memory(models, tmp_path):
    for name, config in (
        ("secom", SeComConfig(segmenter="embedding", segment_window=2)),
        ("comedy", COMEDYConfig(sitting_turns=2, memory_tokens=16)),
    ):
        strategy = build_strategy(name, models, config)
        session, _ = replay(strategy, TURNS[:4])
        loaded = ChatSession.load(session.save(tmp_path / f"{name}.json"))
        assert loaded.strategy == name and loaded.memory == session.memory and loaded.memory
        plan_a, _ = strategy.build_context(session, "What was the kitten's name?")
        plan_b, _ = strategy.build_context(loaded, "What was the kitten's name?")
        assert plan_a.to_dict() == plan_b.to_dict()
        before = {k: v for k, v in session.memory.items() if k != "undo"}
        strategy.respond(session, TURNS[4][0], reply=TURNS[4][1])
        assert strategy.undo_last_turn(session) == TURNS[4][0]
        assert {k: v for k, v in session.memory.items() if k != "undo"} == before and session.n_turns == 4


def test_vanilla_ignores_session_boundaries(models):
    vanilla = build_strategy("vanilla", models)
    session = vanilla.new_session()
    assert vanilla.end_sitting(session) == "" and session.memory == {}
