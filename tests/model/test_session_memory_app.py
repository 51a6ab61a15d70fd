"""The memory cap through the launched app: two browser sessions (gradio_client) load files into
Inspect under a cap that holds one; the least recently used session's file goes, and its next event
says so instead of failing."""

import json
import socket

import pytest
from gradio_client import Client

from app.main import launch
from app.session_state import deep_size
from app.state import AppEngine
from app.tabs.inspect import handlers as ih
from rea_core import Settings
from rea_core.limits import Limits


@pytest.fixture(scope="module")
def small_app(models, tmp_path_factory):
    """The app with room for one loaded example file besides what the KV prefix cache holds now."""
    probe = AppEngine(models=models)
    one_file = deep_size(ih.read_file(probe, probe.examples_dir / "conversations.jsonl"))
    cap_mb = (probe.kv_cache_bytes() + 1.5 * one_file) / 2**20
    limits = Limits(session_state_mb=cap_mb, kv_cache_mb=cap_mb / 2)  # kv_cache_mb: validation only here
    engine = AppEngine(
        models=models,
        settings=Settings(limits=limits),
        database_url=f"sqlite:///{tmp_path_factory.mktemp('memory') / 'app.db'}",
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    yield f"http://127.0.0.1:{port}/", engine
    demo.close()


def test_the_least_recently_used_session_is_told_its_file_was_dropped(small_app):
    url, engine = small_app
    first, second = Client(url, verbose=False), Client(url, verbose=False)
    assert "2 conversation(s)" in json.dumps(first.predict("conversations.jsonl", api_name="/inspect_example"))
    assert "2 conversation(s)" in json.dumps(second.predict("conversations.jsonl", api_name="/inspect_example"))
    assert len(engine.session_state) == 1  # the second file pushed the first out

    out = json.dumps(first.predict("h3-pronoun-needs-omitted-turn", 0.5, 0.7, api_name="/trace"))
    assert "The file conversations.jsonl was dropped to free memory" in out and "load it again" in out
    assert "Traceback" not in out and "Error" not in out

    # Loading it again works (and now the second session's file is the least recently used).
    assert "2 conversation(s)" in json.dumps(first.predict("conversations.jsonl", api_name="/inspect_example"))
    assert "dropped to free memory" in json.dumps(
        second.predict("h3-pronoun-needs-omitted-turn", 0.5, 0.7, api_name="/trace")
    )


def test_a_loaded_compare_conversation_counts_under_the_cap_and_is_emptied_when_dropped(models):
    """Compare's loaded conversations stay in the browser session's columns but count under the cap:
    the least recently used is emptied (its memory freed) and says why; an active one is kept."""
    import gc

    from app.tabs.compare import handlers as ch
    from app.tabs.compare.layout import ensure_columns

    probe = AppEngine(models=models)
    column = probe.new_column("vanilla")
    for i in range(40):
        column.session.episodes.append(f"question {i} about the garden " * 10, f"answer {i} on soil " * 30)
    path = ch.save_columns(probe, [column])
    one = deep_size(ch.load_columns(probe, path)[0].session)
    cap_mb = (probe.kv_cache_bytes() + 1.5 * one) / 2**20
    engine = AppEngine(
        models=models, settings=Settings(limits=Limits(session_state_mb=cap_mb, kv_cache_mb=cap_mb / 2))
    )

    (first,) = ch.load_columns(engine, path)
    assert len(first.session.episodes) == 40 and len(engine.session_state) == 1
    (second,) = ch.load_columns(engine, path)  # over the cap: the first, least recently used, is emptied
    assert len(engine.session_state) == 1
    assert len(first.session.episodes) == 0 and first.lease is None
    assert "was dropped to free memory" in first.error and "load it again" in first.error
    assert len(second.session.episodes) == 40 and not second.error
    ensure_columns(engine, [second])  # every Compare event touches its loaded conversation
    assert second.lease in engine.session_state

    del second  # the column goes (reset, another load): its share is released
    gc.collect()
    assert len(engine.session_state) == 0
