"""Prompt reuse on the packaged SmolLM2-135M: each reply's stats say how much of the prompt came from
the KV cache and where the rest began, a threshold move that changes nothing before the window keeps
the cache, and a prefix too small to pay for a continuation is prefilled in full."""

from dataclasses import replace

from rea_core import Reason, Resolution, RuntimeConfig, Thresholds, build_strategy
from rea_core.methods.base import stats_text, turn_summary
from rea_core.prompt_layout import stable_placements

HISTORY = [
    ("From now on, answer in lowercase.", "ok, i will answer in lowercase."),
    ("My sister Ana grows tomatoes and basil on her balcony.", "that sounds like a lovely balcony garden."),
    ("What is the capital of France?", "the capital of france is paris."),
    ("Tell me a fact about whales.", "blue whales are the largest animals that ever lived."),
    ("I am planning a trip to Lisbon in May.", "lisbon in may is warm and sunny, a good time to go."),
    ("How many legs does a spider have?", "a spider has eight legs."),
    ("Name a famous painter.", "vincent van gogh is a famous painter."),
]
NEXT = ["Any tips for my trip?", "What could Ana plant next to her tomatoes?"]


def chat(strategy):
    """A session with the history replayed and one generated turn, so the KV cache holds its prompt."""
    session = strategy.new_session()
    for user, reply in HISTORY:
        strategy.respond(session, user, reply=reply)
    strategy.respond(session, NEXT[0])
    return session


def test_a_threshold_move_that_changes_nothing_before_the_window_keeps_the_cache(models):
    rea = build_strategy("rea", models, runtime=RuntimeConfig(max_new_tokens=8, kv_reuse=True))
    lo, hi = rea.config.thresholds
    sessions = [chat(rea) for _ in range(3)]
    stable = stable_placements(rea.build_context(sessions[0], NEXT[1])[0])
    moves = [(lo + 0.01, hi), (lo, hi + 0.02), (lo - 0.01, hi), (lo, hi - 0.02)]
    quiet = [
        rea.with_thresholds(Thresholds(*m))
        for m in moves
        if stable_placements(rea.with_thresholds(Thresholds(*m)).build_context(sessions[1], NEXT[1])[0]) == stable
    ]
    assert quiet, "some small threshold move should leave the exchanges before the window as they were"
    same = rea.respond(sessions[0], NEXT[1])
    moved = quiet[0].respond(sessions[1], NEXT[1])
    assert same.generation.reused_tokens > 0
    assert moved.generation.reused_tokens == same.generation.reused_tokens and moved.plan == same.plan
    assert "KV reused" in stats_text(turn_summary(moved))

    # every exchange kept at tau_low 0: exchanges come in before the window and the stats say which
    everything = rea.with_thresholds(Thresholds(0.0, hi))
    opened = everything.respond(sessions[2], NEXT[1])
    assert opened.generation.reused_tokens < opened.prompt_tokens
    line = stats_text(turn_summary(opened))
    assert "first change: exchange" in line and "read anew:" in line, line


def test_stats_say_where_the_prompt_parts_from_the_last_one(models):
    vanilla = build_strategy("vanilla", models, runtime=RuntimeConfig(max_new_tokens=8, kv_reuse=True))
    session = vanilla.new_session()
    first = vanilla.respond(session, "Name a color.")
    assert first.reuse_note == ""  # nothing read before
    second = vanilla.respond(session, "And another one?")
    assert second.reuse_note == "the previous prompt and reply are shared whole; read anew: the query"
    assert second.generation.reused_tokens > 0 and "shared whole" in stats_text(turn_summary(second))
    vanilla.undo_last_turn(session)
    assert vanilla.respond(session, "And a third?").reuse_note == ""  # after an undo: said nothing, not wrong

    rea = build_strategy("rea", models, runtime=RuntimeConfig(max_new_tokens=8, kv_reuse=True))
    session = chat(rea)
    result = rea.respond(session, NEXT[1])
    assert result.reuse_note.startswith(("first change:", "the previous prompt")), result.reuse_note
    replayed = rea.respond(session, "Thanks!", reply="you are welcome.")
    assert replayed.reuse_note == ""  # a given reply reads no prompt


def test_a_prefix_too_small_to_pay_is_prefilled_in_full_and_says_so(models):
    g = models.generator
    key = "test-small-prefix"
    long_text = " ".join(f"item {i} is a blue stone." for i in range(110))
    g.generate([{"role": "user", "content": "A: " + long_text}], max_new_tokens=1, cache_key=key)
    gen = g.generate([{"role": "user", "content": "B: " + long_text}], max_new_tokens=1, cache_key=key)
    assert gen.reused_tokens == 0 and "too few to pay" in gen.cache_note, gen.cache_note
    again = g.generate([{"role": "user", "content": "B: " + long_text + " C"}], max_new_tokens=1, cache_key=key)
    assert again.reused_tokens > gen.prompt_tokens // 2  # a long shared prefix is reused
    g.prefix_cache.drop(key)


def test_a_chronological_layout_is_turn_order(models):
    rea = build_strategy("rea", models, runtime=RuntimeConfig(max_new_tokens=4, kv_reuse=False))
    chronological = rea.with_config(replace(rea.config, layout="chronological"))
    session = chronological.new_session()
    for user, reply in HISTORY:
        result = chronological.respond(session, user, reply=reply)
    plan, _ = chronological.build_context(session, NEXT[1])
    kept = [s.turn for s in plan.exchanges() if s.resolution.value != "omit"]
    assert kept == sorted(kept) and result.plan is not None


def test_the_window_first_opening_read_ahead_is_reused_whole_and_changes_no_reply(models):
    runtime = RuntimeConfig(max_new_tokens=8, kv_reuse=True)
    rea = build_strategy("rea", models, runtime=runtime)
    ahead = rea.with_config(replace(rea.config, layout="window-first"), runtime=runtime)
    cold = ahead.with_config(ahead.config, runtime=replace(runtime, kv_reuse=False))
    warm_session, cold_session = ahead.new_session(), cold.new_session()
    for user, reply in HISTORY:
        ahead.respond(warm_session, user, reply=reply)
        cold.respond(cold_session, user, reply=reply)
    assert cold.warm(cold_session) is None  # no KV reuse: nothing to read ahead
    for message in NEXT:
        thread = ahead.read_ahead(warm_session)  # what the app starts when a reply ends
        assert thread is not None  # not joined: the reply waits for it
        opening = ahead.next_opening(warm_session)
        result = ahead.respond(warm_session, message)
        plain = cold.respond(cold_session, message)
        assert result.reply == plain.reply and result.plan == plain.plan  # the same prompt, the same reply
        read = len(models.generator.template_ids([m for m, _ in opening], add_generation_prompt=False))
        assert result.generation.reused_tokens >= read, (result.generation.reused_tokens, read)
        assert result.reuse_note.startswith("the opening read ahead after the last reply is shared whole")
        roles = [m["role"] for m, _ in opening]
        assert roles[0] == "system" and roles[1:] == ["user", "assistant"] * (len(roles) // 2)
        band = [s for _, segs in opening for s in segs if s.reason is Reason.RECENT_BAND]
        assert len({s.turn for s in band}) == 1  # the band's exchange, read ahead with the window
        assert all(s.resolution is Resolution.COMPRESSED for s in band)
    models.generator.prefix_cache.drop(ahead.cache_key(warm_session))
