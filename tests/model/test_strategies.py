"""REA and vanilla on the real packaged models: bad input, replay, recognizer stage 2, sessions."""

from dataclasses import replace

import numpy as np
import pytest

from rea_core import ChatSession, REAConfig, Resolution, RuntimeConfig, Thresholds, build_strategy
from rea_core.errors import InputError
from rea_core.types import SegmentKind

HISTORY = [
    ("From now on, answer in lowercase.", "ok, i will answer in lowercase."),
    (
        "I have a fiddle-leaf fig and a snake plant at home.",
        "Nice! Fiddle-leaf figs like bright indirect light; snake plants tolerate shade.",
    ),
    ("What's the best way to learn Spanish?", "Practice daily, speak with native speakers and use spaced repetition."),
]


@pytest.fixture()
def rea(models):
    return build_strategy("rea", models, runtime=RuntimeConfig(max_new_tokens=24))


@pytest.fixture()
def vanilla(models):
    return build_strategy("vanilla", models, runtime=RuntimeConfig(max_new_tokens=24))


def replay(strategy, session):
    return [strategy.respond(session, user, reply=reply) for user, reply in HISTORY]


@pytest.mark.parametrize("bad", ["", "   \n", "x" * 32_001])
def test_bad_messages_store_nothing(rea, bad):
    session = rea.new_session()
    replay(rea, session)
    before = session.to_dict()
    with pytest.raises(InputError):
        rea.respond(session, bad)
    assert session.to_dict() == before


def test_message_limit_is_configurable(models):
    strat = build_strategy("rea", models, runtime=RuntimeConfig(max_message_chars=10))
    with pytest.raises(InputError, match="over the limit of 10"):
        strat.respond(strat.new_session(), "x" * 11)


def test_replay_stores_given_replies_and_decides_every_exchange(rea):
    session = rea.new_session()
    results = replay(rea, session)
    assert [r.generated for r in results] == [False] * 3
    assert session.instructions.texts() == ["From now on, answer in lowercase."]
    assert results[0].recognition.stage == "rules" and results[0].recognition.is_global
    assert [len(r.decisions) for r in results] == [0, 1, 2]
    assert session.episodes.n_embedded == 3  # embedded when stored


def test_generated_turn_plan_starts_with_instructions(rea):
    session = rea.new_session()
    replay(rea, session)
    result = rea.respond(session, "How often should I water my plants?")
    assert result.generated and result.reply and result.new_tokens > 0
    kinds = [s.kind for s in result.plan.segments]
    assert kinds[:2] == [SegmentKind.SYSTEM, SegmentKind.INSTRUCTIONS]
    assert kinds[-1] is SegmentKind.QUERY and len(result.plan.exchanges()) == 3
    plant = result.decisions[1]
    assert plant.score == max(d.score for d in result.decisions)  # the plant exchange is the most related
    assert result.timings.total_s >= result.timings.generate_s > 0


def test_scores_follow_hcr_thresholds(rea, models):
    session = rea.new_session()
    replay(rea, session)
    scores = rea.score(session, "Tell me more about my fiddle-leaf fig and snake plant.")
    lo = float(scores.max()) - 1e-6
    exchanges = session.episodes.exchanges
    rea = rea.with_config(
        replace(rea.config, recent_raw=0, recent_compressed=0, referent_top_k=0)
    )  # thresholds alone: no window, no likely referents
    _, decisions = rea.replan("q", exchanges, [], scores, Thresholds(lo, lo))
    assert [d.resolution for d in decisions].count(Resolution.RAW) == 1
    _, decisions = rea.replan("q", exchanges, [], scores, Thresholds(1.0, 1.0))
    assert all(d.resolution is Resolution.OMIT for d in decisions)


def test_ablation_switches(models):
    no_im = build_strategy("rea", models, REAConfig(use_im=False, use_hcr=False))
    session = no_im.new_session()
    results = replay(no_im, session)
    assert len(session.instructions) == 0 and results[-1].recognition is None
    assert all(d.resolution is Resolution.COMPRESSED for d in results[-1].decisions)
    assert results[-1].plan.instructions is None


def test_vanilla_keeps_everything_raw(vanilla):
    session = vanilla.new_session()
    results = replay(vanilla, session)
    assert all(d.resolution is Resolution.RAW and d.score is None for d in results[-1].decisions)
    assert session.episodes.n_embedded == 0  # vanilla needs no embeddings


def test_revocation_removes_instruction(rea):
    session = rea.new_session()
    replay(rea, session)
    result = rea.respond(session, "You can stop answering in lowercase now.", reply="OK, back to normal.")
    assert result.recognition.label == "revoke" and session.instructions.texts() == []


def test_a_bare_instruction_is_read_in_im_and_not_repeated_until_it_is_revoked(rea):
    from rea_core import Reason
    from rea_core.reconstruction import render_messages

    session = rea.new_session()
    replay(rea, session)
    result = rea.respond(session, "And my fig?", reply="It likes bright indirect light.")
    held = result.decisions[0]
    assert held.resolution is Resolution.OMIT and held.reason is Reason.IN_IM  # in the window's place
    assert all(d.resolution is not Resolution.OMIT for d in result.decisions[1:])
    texts = [m["content"] for m in render_messages(result.plan)]
    assert sum("answer in lowercase" in t for t in texts) == 1  # once, in the IM prefix of the system message
    assert "answer in lowercase" in texts[0]
    result = rea.respond(session, "You can stop answering in lowercase now.", reply="OK, back to normal.")
    assert session.instructions.texts() == []
    assert result.decisions[0].reason is not Reason.IN_IM  # out of IM: an exchange like any other again


def test_trained_stage_two_is_the_default_and_the_llm_stays_available(rea, models):
    # Issue 16 changed the default stage 2 from the few-shot LLM to the shipped trained classifier.
    rec = rea.recognizer.recognize("Always answer in French.")
    assert rec.stage == "trained" and rec.label == "global" and rec.score >= rea.recognizer.trained.threshold
    llm = build_strategy("rea", models, REAConfig(recognizer_stage2="llm"), runtime=RuntimeConfig(max_new_tokens=24))
    rec = llm.recognizer.recognize("Always answer in French.")
    assert rec.stage == "classifier" and 0.0 <= rec.score <= 1.0 and rec.label in ("global", "other")


def test_session_json_round_trip_without_reembedding(rea, tmp_path):
    session = rea.new_session()
    replay(rea, session)
    path = session.save(tmp_path / "s.json")
    again = ChatSession.load(path)
    saved, loaded = session.to_dict(), again.to_dict()
    assert loaded.pop("session_id") != saved.pop("session_id")  # a load gets a fresh, server-made id
    assert loaded == saved
    np.testing.assert_array_equal(again.episodes.unit_index()[0], session.episodes.unit_index()[0])
    query = "How are my plants doing?"
    np.testing.assert_allclose(rea.score(again, query), rea.score(session, query))
    result = rea.respond(again, query, reply="fine")
    assert result.turn == 3 and again.instructions.texts() == session.instructions.texts()


def test_damaged_session_file_is_a_clear_error(tmp_path):
    from rea_core.errors import DataFormatError

    path = tmp_path / "s.json"
    path.write_text('{"format": "rea-session", "strategy": "rea"}')
    with pytest.raises(DataFormatError, match="incomplete or damaged"):
        ChatSession.load(path)
    path.write_text("{nope")
    with pytest.raises(DataFormatError, match="not valid JSON"):
        ChatSession.load(path)


def test_redecide_uses_cached_scores_and_undo_restores(rea):
    rea = rea.with_config(
        replace(rea.config, recent_raw=0, recent_compressed=0, referent_top_k=0)
    )  # thresholds alone decide here
    session = rea.new_session()
    replay(rea, session)
    last = rea.respond(session, "How often should I water the fiddle-leaf fig?", reply="About once a week.")
    plan, decisions = rea.redecide(session, last, Thresholds(0.0, 0.0))
    assert [d.score for d in decisions] == last.scores
    assert len(plan.exchanges()) == 3
    # everything raw but the bare instruction of turn 0, which IM reads verbatim
    assert [d.resolution for d in decisions] == [Resolution.OMIT, Resolution.RAW, Resolution.RAW]
    plan, decisions = rea.redecide(session, last, Thresholds(1.0, 1.0))
    assert all(d.resolution is Resolution.OMIT for d in decisions)
    assert plan.segments[-1].text == "How often should I water the fiddle-leaf fig?"
    assert rea.undo_last_turn(session) == "How often should I water the fiddle-leaf fig?"
    assert session.n_turns == 3 and session.episodes.n_embedded == 3 and len(session.log) == 3
    assert session.instructions.texts() == ["From now on, answer in lowercase."]
    stricter = rea.with_thresholds(Thresholds(0.9, 0.95))
    assert (
        stricter.generator is rea.generator
        and stricter.config.tau_low == 0.9
        and rea.config.tau_low == REAConfig().tau_low
    )  # unchanged


def test_other_thresholds_are_the_same_strategy_deciding_differently(rea, vanilla):
    """A slider move re-decides on the strategy as built: the same models, recognizer and codec, the
    session's memory untouched; a strategy that decides without thresholds is itself at any."""
    session = rea.new_session()
    replay(rea, session)
    last = rea.respond(session, "How often should I water the fiddle-leaf fig?", reply="About once a week.")
    before = session.to_dict()
    everything = Thresholds(0.0, 0.0)
    kept = rea.with_thresholds(everything)
    shared = ("generator", "embedder", "recognizer", "codec", "runtime")
    assert kept.config.thresholds == everything and rea.config == REAConfig()
    assert all(getattr(kept, part) is getattr(rea, part) for part in shared)
    assert kept.redecide(session, last, everything) == rea.redecide(session, last, everything)
    assert session.to_dict() == before
    assert rea.with_thresholds(rea.config.thresholds) is rea and vanilla.with_thresholds(everything) is vanilla
    text = rea.with_reply_form("text")
    assert text.config.reply_form == "text" and all(getattr(text, part) is getattr(rea, part) for part in shared)


def test_trace_finds_the_h3_style_omission(rea, examples_dir):
    """The bundled H.3 example: "How often should I water them?" needs the houseplants of turn 0, and
    REA at its shipped defaults (thresholds, window, referents) omits that exchange: a failure to mark."""
    from rea_core import load_conversations
    from rea_core.retrieval.trace import trace_conversation

    (conv,) = [
        c for c in load_conversations(examples_dir / "conversations.jsonl") if c.id == "h3-pronoun-needs-omitted-turn"
    ]
    assert rea.config == REAConfig()  # the shipped defaults
    trace = trace_conversation(rea, conv)
    last = trace.turns[-1]
    assert last.user == "How often should I water them?" and not last.generated and last.reply == ""
    assert "fiddle-leaf fig" in trace.turns[0].user
    assert 0 in last.omitted_turns()  # the plant exchange "them" refers to: below tau_low, not a referent
    n = len(conv.turns)
    m = trace.score_matrix()
    assert m.shape == (n, n) and np.isnan(m[0]).all() and not np.isnan(m[n - 1, : n - 1]).any()


SHORT_H3 = (
    (
        "I have three houseplants: a fiddle-leaf fig, a snake plant and a pothos.",
        "Nice collection! The fiddle-leaf fig likes bright indirect light, the snake plant tolerates low light, "
        "and the pothos is very forgiving.",
    ),
    (
        "What's the best way to learn Spanish quickly?",
        "Daily practice with spaced repetition, short conversations with native speakers, and listening to "
        "podcasts at your level.",
    ),
    (
        "Any podcasts you would recommend?",
        "Coffee Break Spanish and Notes in Spanish are popular for beginners and intermediate learners.",
    ),
    ("How often should I water them?", None),
)


def test_follow_up_awareness_keeps_a_short_chats_referent(rea):
    """Among a few exchanges the referent is kept (the first release omitted it: MiniLM scores below 0.5
    and no working-memory window)."""
    from rea_core.conversations import Conversation, Turn
    from rea_core.retrieval.trace import trace_conversation

    conv = Conversation(id="short-h3", turns=tuple(Turn(user=u, assistant=a) for u, a in SHORT_H3))
    first_release = rea.with_config(
        replace(
            rea.config,
            scorer="minilm",
            tau_low=0.5,
            tau_high=0.7,
            recent_raw=0,
            recent_compressed=0,
            referent_top_k=0,
            follow_up_prior=0.0,
        )
    )
    assert 0 in trace_conversation(first_release, conv).turns[-1].omitted_turns()
    assert 0 not in trace_conversation(rea, conv).turns[-1].omitted_turns()


def test_a_traced_bare_instruction_stays_held_in_im_when_inspect_redecides(rea, examples_dir):
    from rea_core import Reason, load_conversations
    from rea_core.retrieval.trace import redecide_turn, trace_conversation

    (conv,) = [c for c in load_conversations(examples_dir / "conversations.jsonl") if c.id == "h1-initial-letter"]
    trace = trace_conversation(rea, conv)
    last = len(trace.turns) - 1
    assert trace.turns[last].decisions[0].reason is Reason.IN_IM  # turn 0 is the bare instruction
    everything = Thresholds(0.0, 0.0)
    _, decisions = redecide_turn(rea, trace, last, everything)
    assert decisions == trace_conversation(rea.with_thresholds(everything), conv).turns[last].decisions
    assert decisions[0].resolution is Resolution.OMIT and decisions[0].reason is Reason.IN_IM
    assert all(d.resolution is Resolution.RAW for d in decisions[1:])


def test_a_traced_turn_redecided_at_other_thresholds_matches_a_trace_at_them(rea, examples_dir):
    """Inspect's live sliders: ``redecide_turn`` decides from the recorded scores, with no model call,
    what a fresh trace at the new thresholds decides."""
    from rea_core import load_conversations
    from rea_core.retrieval.trace import redecide_turn, trace_conversation

    (conv,) = [c for c in load_conversations(examples_dir / "conversations.jsonl") if c.id.startswith("h3-")]
    trace = trace_conversation(rea, conv)
    last = len(trace.turns) - 1
    lo, hi = rea.config.tau_low, rea.config.tau_high
    same = redecide_turn(rea, trace, last, Thresholds(lo, hi))
    assert same == (trace.turns[last].plan, trace.turns[last].decisions)  # as traced: the traced plan
    plan, decisions = redecide_turn(rea, trace, last, Thresholds(0.05, hi))
    again = trace_conversation(rea.with_thresholds(Thresholds(0.05, hi)), conv).turns[last]
    assert decisions == again.decisions
    # the same blocks; their order follows the prompt the session read the turn before (the traced one
    # here, a trace at 0.05 throughout there), so only the layout may differ
    assert sorted(plan.segments, key=repr) == sorted(again.plan.segments, key=repr)
    assert decisions[0].resolution is Resolution.COMPRESSED  # the houseplants come back at tau_low 0.05
    chronological = rea.with_config(replace(rea.config, layout="chronological"))
    trace = trace_conversation(chronological, conv)
    plan, decisions = redecide_turn(chronological, trace, last, Thresholds(0.05, hi))
    again = trace_conversation(chronological.with_thresholds(Thresholds(0.05, hi)), conv).turns[last]
    assert (plan, decisions) == (again.plan, again.decisions)  # in turn order, exactly a trace at 0.05
