"""Per-session state under one memory cap and a time limit (app.session_state): the least recently
used session's value goes first and that session is told so, unused values are swept, and the sizes
the cap adds up are measured (checked against tracemalloc)."""

import time
import tracemalloc

import numpy as np
import pytest

from app.session_state import Handle, SessionStore, StateDropped, deep_size
from rea_core import REAError, Settings
from rea_core.limits import Limits
from rea_core.retrieval.trace import RetrievalTrace, TurnTrace
from rea_core.session import ChatSession
from rea_core.types import Decision, PromptPlan, Resolution


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_least_recently_used_sessions_value_goes_first_and_its_session_is_told():
    store = SessionStore(1000, ttl_s=900, clock=Clock())
    a = store.put("a", what="the file a.jsonl", nbytes=400)  # session A
    b = store.put("b", what="the file b.jsonl", nbytes=400)  # session B
    assert store.get(a) == "a"  # A used again: B is now the least recently used
    c = store.put("c", what="the trace of c", nbytes=400)  # session C needs room
    assert store.get(a) == "a" and store.get(c) == "c" and store.total_bytes == 800
    with pytest.raises(StateDropped, match=r"^The file b\.jsonl was dropped to free memory .*; load it again$"):
        store.get(b)
    assert isinstance(StateDropped("x"), REAError)  # the tabs show it as one line, like every REAError


def test_the_kv_prefix_cache_counts_toward_the_cap():
    kv = [0]
    store = SessionStore(1000, ttl_s=900, reserved=lambda: kv[0], clock=Clock())
    a = store.put("a", what="the file a", nbytes=300)
    b = store.put("b", what="the file b", nbytes=300)
    kv[0] = 500  # chats filled the KV cache: the next access makes room for it
    assert store.get(b) == "b"
    assert a not in store and store.total_bytes + kv[0] <= 1000
    with pytest.raises(StateDropped, match="more than the 0.0 MB this server keeps .*REA_SESSION_STATE_MB"):
        store.put("big", what="the file big", nbytes=600)  # larger than the room left: refused, not kept
    assert store.get(b) == "b"  # and nothing else was dropped for it


def test_unused_values_are_swept_after_the_time_limit():
    clock = Clock()
    store = SessionStore(10**6, ttl_s=900, clock=clock)
    old = store.put("old", what="the trace of x", nbytes=10)
    clock.now = 600
    kept = store.put("kept", what="the file y", nbytes=10)
    clock.now = 901  # old unused for 901 s, kept for 301 s
    assert store.sweep() == 1 and old not in store and kept in store
    with pytest.raises(StateDropped, match=r"The trace of x was dropped after 15 min unused .*; load it again"):
        store.get(old)
    clock.now = 1300
    assert store.get(kept) == "kept"  # read at 1300, 700 s after its put: still within the limit


def test_a_timer_sweeps_an_idle_server():
    store = SessionStore(10**6, ttl_s=0.1, sweep_every_s=0.05)
    handle = store.put("x", what="the file x", nbytes=10)
    deadline = time.monotonic() + 3
    while handle in store and time.monotonic() < deadline:
        time.sleep(0.05)  # no access: only the background sweep can drop it
    assert handle not in store


def test_replaced_and_released_values_are_freed_and_unknown_handles_explained():
    store = SessionStore(10**6, ttl_s=900)
    first = store.put([1] * 100, what="the file a")
    second = store.put([2] * 100, what="the file b", replaces=first)
    assert first not in store and len(store) == 1
    store.release(second)  # gr.State's delete_callback: the browser session ended
    store.release(None)  # a session that held nothing
    assert len(store) == 0 and store.total_bytes == 0
    with pytest.raises(StateDropped, match="no longer held by the server"):
        store.get(Handle("made-up", "the file z"))
    with pytest.raises(StateDropped, match="Nothing is loaded"):
        store.get({"key": "from a request"})
    assert store.get_or(second, {}) == {}


def _trace(n_turns: int) -> RetrievalTrace:
    """A RetrievalTrace shaped as an upload's: every earlier exchange scored at every turn."""
    rng = np.random.default_rng(0)
    turns = []
    for t in range(n_turns):
        decisions = tuple(
            Decision(j, float(s), Resolution.RAW if s >= 0.7 else Resolution.OMIT) for j, s in enumerate(rng.random(t))
        )
        user = f"question number {t} about the garden and the plants " * 2
        turns.append(TurnTrace(t, user, "", False, decisions, (), PromptPlan(segments=()), None))
    return RetrievalTrace(conversation_id="long", turns=tuple(turns))


def _session(n_turns: int) -> ChatSession:
    session = ChatSession(strategy="rea")
    for t in range(n_turns):
        session.episodes.append(f"message {t} " * 20, f"reply {t} " * 40)
    session.episodes.add_embeddings(np.ones((n_turns, 384), dtype=np.float32), [1] * n_turns)
    return session


@pytest.mark.parametrize("build", [lambda: _trace(200), lambda: _session(300)], ids=["trace", "chat session"])
def test_measured_sizes_track_tracemalloc(build):
    """The cap adds up deep_size; it must agree with what the value really allocated."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    value = build()
    allocated = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    measured = deep_size(value)
    # getsizeof counts every object; tracemalloc misses those Python takes from its free lists (floats,
    # tuples freed by earlier tests), so after a long test session it reads lower: a 1.5x band still
    # tells a measured size from a guess off by an order of magnitude.
    assert 0.8 < measured / allocated < 1.5, f"{measured:,} measured, {allocated:,} allocated"


def test_session_state_limits_from_the_environment():
    limits = Settings.from_env({"REA_SESSION_STATE_MB": "2048", "REA_SESSION_TTL_S": "60"}).limits
    assert limits.session_state_mb == 2048 and limits.session_state_ttl_s == 60
    assert Limits().session_state_ttl_s < Limits().temp_file_ttl_s  # traces go sooner than downloads
    with pytest.raises(REAError, match="REA_SESSION_STATE_MB .* must exceed REA_KV_CACHE_MB"):
        Settings.from_env({"REA_SESSION_STATE_MB": "256", "REA_KV_CACHE_MB": "512"})


def test_a_file_shaped_to_dodge_a_sample_is_measured_whole():
    """1,000 turns, the big ones where a 64-item stride (turns 0, 15, 31, ...) does not look: every
    turn is measured, so the size is at least what the big turns hold."""
    sampled = {i * 1000 // 64 for i in range(64)}
    big = [i for i in range(1000) if i not in sampled][:40]
    turns = [("hi", "x" * 400_000 if i in big else "ok") for i in range(1000)]
    assert deep_size(turns) >= 40 * 400_000


def test_measuring_builds_no_attribute_dicts():
    """Measuring a trace must not grow it: ``vars(obj)`` would build a dict on every instance it meets."""
    trace = _trace(60)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    deep_size(trace)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < deep_size(trace) / 10, f"measuring allocated {grown:,} bytes that stay"
