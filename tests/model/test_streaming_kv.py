"""Streaming and KV prefix reuse on the packaged SmolLM2-135M: greedy replies are the same
with and without reuse, a slid window says it prefilled in full, the cache stays bounded, and a
stopped reply leaves the session exactly as it was."""

import threading
from dataclasses import replace

import pytest

from rea_core import RuntimeConfig, Settings, Thresholds, build_strategy
from rea_core.backends.hf import HFGenerator
from rea_core.backends.kv_cache import CacheLimits
from rea_core.loading import Models

TURNS = [
    "From now on, answer in lowercase.",
    "Name three colors of the rainbow.",
    "What is the capital of France?",
    "Tell me a fact about whales.",
    "Suggest a name for a coffee shop by the sea.",
    "How many legs does a spider have?",
    "And an insect?",
    "What did I ask you first?",
    "Give me a word that rhymes with cat.",
    "Summarize our chat in one sentence.",
]


def sibling(models, **kwargs) -> HFGenerator:
    """Another HFGenerator on the same weights (own context window / cache), under the same lock and adapters."""
    g = models.generator
    other = HFGenerator(g.model, g.tokenizer, name=g.name, **kwargs)
    other.lock = g.lock
    if g.adapters is not None:
        other.attach_adapters(g.adapters)
    return other


def run(strategy, turns):
    session = strategy.new_session()
    return [strategy.respond(session, t) for t in turns]


@pytest.mark.slow  # about 100 s for both strategies: the default run stays under 15 minutes
@pytest.mark.parametrize("name", ["vanilla", "rea"])
def test_greedy_replies_identical_with_and_without_kv_reuse(models, name):
    runtime = RuntimeConfig(max_new_tokens=16, kv_reuse=False)
    plain = run(build_strategy(name, models, runtime=runtime), TURNS)
    cached = run(build_strategy(name, models, runtime=replace(runtime, kv_reuse=True)), TURNS)
    assert [r.reply for r in cached] == [r.reply for r in plain]
    assert all(r.generation.reused_tokens == 0 for r in plain)
    reused = [r.generation.reused_tokens for r in cached]
    assert reused[0] == 0 and "full prefill" in cached[0].generation.cache_note
    assert sum(r > 0 for r in reused[1:]) >= 7, (
        reused
    )  # later turns reuse a prefix (system prompt, IM, earlier exchanges)
    assert all(r.generation.cache_bytes > 0 for r in cached)
    assert all(r.generation.ttft_s is not None and r.generation.ttft_s <= r.generation.wall_s for r in cached)


def test_slid_window_falls_back_to_full_prefill_and_says_so(models):
    small = Models(generator=sibling(models, context_window=120), embedder=models.embedder)
    vanilla = build_strategy("vanilla", small, runtime=RuntimeConfig(max_new_tokens=16, kv_reuse=True))
    results = run(vanilla, TURNS[:5])
    slid = [r for r in results if r.truncated_tokens]
    assert slid, "the conversation should outgrow a 120-token window"
    assert any("window slid" in r.generation.cache_note and r.generation.reused_tokens == 0 for r in slid)
    assert any("window slid" in vanilla_stats(r) for r in slid)  # the turn's stats line says so


def vanilla_stats(result) -> str:
    from rea_core.methods.base import stats_text, turn_summary

    return stats_text(turn_summary(result))


def test_cache_is_bounded_by_sessions_and_bytes(models):
    g = sibling(models, cache_limits=CacheLimits(max_sessions=2, max_bytes=64 * 2**20))
    vanilla = build_strategy(
        "vanilla",
        Models(generator=g, embedder=models.embedder),
        runtime=RuntimeConfig(max_new_tokens=4, kv_reuse=True),
    )
    sessions = [vanilla.new_session() for _ in range(3)]
    for i, s in enumerate(sessions):
        vanilla.respond(s, f"Say the number {i}.")
    usage = g.prefix_cache.usage()
    assert len(usage) == 2 and vanilla.cache_key(sessions[0]) not in usage  # least recently used evicted
    assert set(usage) == {vanilla.cache_key(s) for s in sessions[1:]}  # one entry per session, keyed by session
    one = max(usage.values())
    tight = sibling(models, cache_limits=CacheLimits(max_sessions=8, max_bytes=one + one // 2))
    v2 = build_strategy(
        "vanilla",
        Models(generator=tight, embedder=models.embedder),
        runtime=RuntimeConfig(max_new_tokens=4, kv_reuse=True),
    )
    for i in range(3):
        v2.respond(v2.new_session(), f"Say the number {i}.")
    assert sum(tight.prefix_cache.usage().values()) <= one + one // 2 and len(tight.prefix_cache) == 1


@pytest.mark.parametrize("name", ["vanilla", "rea"])
def test_stream_pieces_make_the_reply_and_a_stopped_reply_changes_nothing(models, name):
    strategy = build_strategy(name, models, runtime=RuntimeConfig(max_new_tokens=32, kv_reuse=True))
    session = strategy.new_session()
    pieces = []
    for item in strategy.respond_stream(session, "From now on, answer in lowercase."):
        if isinstance(item, str):
            pieces.append(item)
        else:
            result = item
    assert len(pieces) > 1 and "".join(pieces).strip() == result.reply
    strategy.flush(session)  # REA's background latent compression of turn 0 finishes first
    before = session.to_dict()
    stream = strategy.respond_stream(session, "Tell me a long story about a dragon and a castle.")
    first = next(stream)
    assert isinstance(first, str) and first
    stream.close()  # the Stop button
    assert session.to_dict() == before
    again = strategy.respond(session, "Tell me a long story about a dragon and a castle.")  # the session still works
    assert session.n_turns == 2 and again.reply


def test_app_streams_both_columns_and_stop_keeps_the_conversation(models):
    import threading

    from app.state import AppEngine
    from app.tabs.compare import handlers

    engine = AppEngine(models=models, settings=Settings(runtime=RuntimeConfig(max_new_tokens=48, kv_reuse=True)))
    columns = [engine.new_column("rea"), engine.new_column("vanilla")]
    snapshots = list(
        handlers.stream_columns(engine, columns, "Name three colors.", Thresholds(0.2, 0.36), threading.Event())
    )
    assert any(p[0] for p in snapshots[:-1]) and any(p[1] for p in snapshots[:-1])  # partial replies before the end
    assert all(c.session.n_turns == 1 and not c.error for c in columns)
    for c in columns:
        engine.strategy(c.strategy).flush(c.session)
    before = [c.session.to_dict() for c in columns]
    stop = threading.Event()
    for partial in handlers.stream_columns(
        engine, columns, "Tell me a long story about a dragon.", Thresholds(0.2, 0.36), stop
    ):
        if any(partial):
            stop.set()  # what the Stop button does
    assert [c.session.to_dict() for c in columns] == before
    assert all(c.error.startswith("Stopped") for c in columns)


def test_the_app_reads_reas_next_opening_ahead_under_the_window_first_layout(models):
    from app.state import AppEngine
    from app.tabs.compare import handlers
    from rea_core import REAConfig

    settings = Settings(rea=REAConfig(layout="window-first"), runtime=RuntimeConfig(max_new_tokens=16, kv_reuse=True))
    engine = AppEngine(models=models, settings=settings)
    columns = [engine.new_column("rea"), engine.new_column("vanilla")]
    thresholds = Thresholds(0.2, 0.36)
    for message in ("Name three colors.", "What is the capital of France?", "And of Spain?"):
        list(handlers.stream_columns(engine, columns, message, thresholds, threading.Event()))
        assert not any(c.error for c in columns)
    rea = columns[0].last
    # the opening (system, IM, the raw window) was read while the page showed the replies
    assert rea.reuse_note.startswith("the opening read ahead after the last reply is shared whole"), rea.reuse_note
    assert rea.generation.reused_tokens > 0
    assert rea.plan.notes and rea.plan.notes[0].startswith("order: the window first")
    cache = models.generator.prefix_cache
    for c in columns:
        key = engine.strategy(c.strategy).cache_key(c.session)
        cache.take(key)  # waits for the read-ahead this turn started
        cache.release(key)
        cache.drop(key)
