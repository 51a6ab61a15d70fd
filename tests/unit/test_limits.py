"""Bounded work per request: limits from the environment, loaded conversations held to
the limits typed ones meet, the Inspect heatmap drawn in bounded memory, SeCom's cache per session."""

import json
import time
import tracemalloc

import numpy as np
import pytest

from rea_core import REAError, Settings, load_conversations
from rea_core.errors import DataFormatError
from rea_core.limits import Limits, LRUCache
from rea_core.memory.episodic import _encode_array
from rea_core.retrieval.trace import RetrievalTrace, TurnTrace
from rea_core.session import ChatSession
from rea_core.types import Decision, PromptPlan, Resolution


def test_limits_from_env_and_bad_values():
    limits = Settings.from_env({"REA_MAX_TURNS": "50", "REA_MAX_UPLOAD_MB": "0.5"}).limits
    assert limits.max_turns == 50 and limits.max_upload_bytes == 512 * 1024
    assert Settings.from_env({}).limits.max_turns == 1000
    with pytest.raises(REAError, match="REA_QUEUE_SIZE"):
        Settings.from_env({"REA_QUEUE_SIZE": "many"})
    with pytest.raises(REAError, match="REA_MAX_TURNS must be positive"):
        Settings.from_env({"REA_MAX_TURNS": "0"})
    assert {row[0] for row in Limits.table()} >= {
        "REA_MAX_UPLOAD_MB",
        "REA_MAX_TURNS",
        "REA_QUEUE_SIZE",
        "REA_HEATMAP_ROWS",
        "REA_TEMP_TTL_S",
    }


def test_oversize_file_refused_before_reading(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b" " * (600 * 1024))
    with pytest.raises(DataFormatError, match="REA_MAX_UPLOAD_MB"):
        Limits(max_upload_mb=0.5).check_file_size(path)


def _conversation_file(tmp_path, turns):
    path = tmp_path / "conv.jsonl"
    path.write_text(
        json.dumps({"id": "ok", "turns": [{"user": "hello"}]})
        + "\n"
        + json.dumps({"id": "long", "turns": turns})
        + "\n"
    )
    return path


def test_loaded_conversation_turns_and_chars_limited_naming_the_line(tmp_path):
    path = _conversation_file(tmp_path, [{"user": f"turn {i}", "assistant": "ok"} for i in range(800)])
    assert len(load_conversations(path, max_turns=800)[1].turns) == 800
    with pytest.raises(DataFormatError, match=r"conv\.jsonl:2: 800 turns, over the limit of 799"):
        load_conversations(path, max_turns=799)
    path = _conversation_file(tmp_path, [{"user": "hi", "assistant": "x" * 101}])
    with pytest.raises(
        DataFormatError, match=r"conv\.jsonl:2: turn 0 \"assistant\" has 101 characters, over the limit of 100"
    ):
        load_conversations(path, max_chars=100)


def _trace(n_turns: int) -> RetrievalTrace:
    """A real RetrievalTrace of ``n_turns`` turns, every earlier exchange scored (what an upload traces to)."""
    rng = np.random.default_rng(0)
    plan = PromptPlan(segments=())
    turns = []
    for t in range(n_turns):
        scores = rng.random(t)
        decisions = tuple(
            Decision(j, float(s), Resolution.RAW if s >= 0.7 else Resolution.OMIT) for j, s in enumerate(scores)
        )
        turns.append(
            TurnTrace(
                turn=t,
                user=f"question number {t} about the garden and the plants " * 2,
                reply="",
                generated=False,
                decisions=decisions,
                instructions=(),
                plan=plan,
                recognition=None,
            )
        )
    return RetrievalTrace(conversation_id="long", turns=tuple(turns))


def test_800_turn_heatmap_drawn_within_a_memory_bound():
    """Before: 800 turns took 27.7 s, 1.25 GB and 138 MB of JSON (n x n hover strings)."""
    from app.views.charts import trace_heatmap

    trace = _trace(800)
    tracemalloc.start()
    start = time.perf_counter()
    fig = trace_heatmap(trace, selected=799, rows=Limits().heatmap_rows)
    payload = fig.to_json()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(payload) < 2_000_000, f"{len(payload):,} bytes of figure JSON"
    assert peak < 60 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert seconds < 5
    z = fig.data[0].z
    assert len(z) == 60 and len(z[-1]) == 800  # a window of query turns, every earlier exchange
    assert fig.data[0].hovertext is None  # no per-cell strings
    assert "query turns 740-799 of 800" in fig.layout.title.text


def test_heatmap_window_around_selected_turn():
    from app.views.charts import heatmap_window

    assert heatmap_window(10, 3, 60) == (0, 10)
    assert heatmap_window(800, 0, 60) == (0, 60)
    assert heatmap_window(800, 400, 60) == (370, 430)
    assert heatmap_window(800, 799, 60) == (740, 800)


def _saved_session(**exchange_fields) -> dict:
    session = ChatSession(strategy="rea")
    session.episodes.append("hello", "hi there")
    data = session.to_dict()
    data["episodes"]["exchanges"][0].update(exchange_fields)
    return data


def _check(data, **overrides):
    kwargs = dict(max_turns=10, max_chars=100, max_instructions=16, embed_dim=None, latent_shape=(8, 4, 16))
    kwargs.update(overrides)
    return ChatSession.from_dict(data).check_loaded(**kwargs)


def test_loaded_session_latents_of_wrong_shape_refused():
    good = _encode_array(np.zeros((8, 16), dtype=np.float32))
    assert _check(_saved_session(latents=good)).n_turns == 1
    for shape in [(7, 16), (8, 15), (40, 16), (8, 4, 16)]:
        bad = _encode_array(np.zeros(shape, dtype=np.float32))
        with pytest.raises(DataFormatError, match="turn 0: latents have shape"):
            _check(_saved_session(latents=bad))
    with pytest.raises(DataFormatError, match="no latent codec is loaded"):
        _check(_saved_session(latents=good), latent_shape=None)


def test_loaded_session_turns_chars_and_indices_limited():
    with pytest.raises(DataFormatError, match='turn 0: "reply" has 101 characters'):
        _check(_saved_session(reply="x" * 101))
    with pytest.raises(DataFormatError, match='turn 0: its "turn" field says 5'):
        _check(_saved_session(turn=5))
    with pytest.raises(DataFormatError, match="over the limit of 0"):
        _check(_saved_session(), max_turns=0)
    data = _saved_session()
    data["instructions"] = ["not an entry"]
    with pytest.raises(DataFormatError, match="incomplete or damaged"):
        ChatSession.from_dict(data)


def test_lru_cache_stays_bounded():
    cache = LRUCache(3)
    for i in range(10):
        cache.put(f"unit {i}", i)
    assert len(cache) == 3 and cache.get("unit 0") is None and cache.get("unit 9") == 9
    cache.get("unit 7")
    cache.put("unit 10", 10)
    assert cache.get("unit 7") == 7 and cache.get("unit 8") is None


def test_secom_cache_lives_in_the_session_and_is_not_saved():
    session = ChatSession(strategy="secom")
    session.scratch["secom_dense"] = LRUCache(2)
    assert "scratch" not in session.to_dict()
    assert ChatSession.from_dict(session.to_dict()).scratch == {}


def test_readme_limits_table_lists_every_limit():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("### Settings") : readme.index("## Evaluations")]
    for env, _, default in Limits.table():
        assert f"| `{env}` |" in table and f"| {default:g} |" in table, env


def test_duty_cycle_pauses_in_proportion_to_work():
    from rea_core.limits import DutyCycle

    slept: list[float] = []
    pace = DutyCycle(0.25, sleep=slept.append)
    time.sleep(0.02)
    pace(1, 10)
    assert 0.05 <= slept[0] < 0.5  # three times the ~20 ms of work
    DutyCycle(1.0, sleep=slept.append)(2, 10)
    assert len(slept) == 1  # a share of 1 never pauses
    with pytest.raises(REAError, match="REA_TRACE_SHARE must be positive and at most 1"):
        Settings.from_env({"REA_TRACE_SHARE": "1.5"})


def test_loaded_log_fields_are_escaped_and_manual_instructions_limited():
    from app.state import ColumnState
    from app.tabs.compare import handlers

    session = ChatSession(strategy="vanilla")
    session.episodes.append("hello", "hi there")
    session.log.append({"turn": 0, "prompt_tokens": "<img src=x onerror=alert(1)>", "decisions": {}})
    column = ColumnState(strategy="vanilla", session=session)
    reply = handlers.chat_messages(column)[1]["content"]
    assert "<img" not in reply and "&lt;img src=x onerror=alert(1)&gt;" in reply
    assert handlers.im_add(column, "x" * 101, max_chars=100).startswith("Not added: The message has 101 characters")
    assert len(session.instructions) == 0
    assert handlers.im_remove(column, float("nan")) == "Give a whole number."


def test_instructional_memory_edits_are_refused_for_a_strategy_without_it():
    """Vanilla's Add no longer answers "Added." under "This strategy keeps no Instructional Memory"."""
    from app.state import ColumnState
    from app.tabs.compare import handlers

    column = ColumnState(strategy="vanilla", session=ChatSession(strategy="vanilla"))
    said = handlers.im_add(column, "From now on, answer in French.", max_chars=100, uses_im=False)
    assert said == "Not added: vanilla keeps no Instructional Memory." and len(column.session.instructions) == 0
    assert handlers.im_remove(column, 0, uses_im=False).startswith("Nothing removed: vanilla keeps no")
