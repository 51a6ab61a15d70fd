"""Bounded work per request on the real packaged models: Compare's "Load conversation"
holds a file to the limits a typed conversation meets and refuses one whose catch-up work
(embeddings, latents) would hold the shared models for long; Inspect's trace runs no codec; SeCom's
retrieval cache lives in the session and stays bounded."""

import json
from dataclasses import replace

import numpy as np
import pytest

from app.state import AppEngine
from app.tabs.compare import handlers
from rea_core import RuntimeConfig, SeComConfig, Settings, Thresholds
from rea_core.errors import DataFormatError
from rea_core.limits import Limits
from rea_core.memory.episodic import _encode_array


@pytest.fixture(scope="module")
def engine(models, tmp_path_factory):
    return AppEngine(
        models=models,
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=8), limits=Limits(max_turns=100, max_catch_up=64)),
        database_url=f"sqlite:///{tmp_path_factory.mktemp('load') / 'a.db'}",
    )


def _saved(engine, tmp_path, turns: int) -> dict:
    column = engine.new_column("rea")
    for i in range(turns):
        handlers.respond_column(
            engine,
            column,
            f"Tell me about topic number {i}.",
            Thresholds(0.5, 0.7),
            reply=f"Topic {i} is interesting.",
        )
    assert column.error == ""
    path = handlers.save_columns(engine, [column])
    return json.loads(open(path, encoding="utf-8").read())


def _load(engine, tmp_path, data) -> list:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return handlers.load_columns(engine, str(path))


def test_saved_conversation_loads(engine, tmp_path):
    (column,) = _load(engine, tmp_path, _saved(engine, tmp_path, 3))
    assert column.session.n_turns == 3 and engine.strategy("rea").catch_up_cost(column.session) == 0


def test_file_without_its_embeddings_is_refused_past_the_catch_up_limit(engine, tmp_path):
    data = _saved(engine, tmp_path, 2)
    episodes = data["columns"][0]["episodes"]
    episodes["index"] = None
    episodes["exchanges"] = [
        dict(episodes["exchanges"][0], turn=i, user=f"question {i}") for i in range(70)
    ]  # latents kept: 70 embeddings missing
    with pytest.raises(DataFormatError, match="column 1: the file lacks 70 embeddings or latents"):
        _load(engine, tmp_path, data)


def test_file_saved_in_another_unit_mode_counts_its_reembedding(engine, tmp_path):
    """A session embedded in the first release's units is re-embedded whole under the hybrid scorer."""
    from rea_core import ChatSession

    data = _saved(engine, tmp_path, 3)
    session = ChatSession.from_dict(data["columns"][0])
    rea = engine.strategy("rea")
    assert session.episodes.unit_mode == rea.config.unit_mode and rea.catch_up_cost(session) == 0
    session.episodes.use_unit_mode("units")
    session.episodes.ensure_embedded(rea.embedder)
    assert rea.catch_up_cost(session) >= 3


def test_file_over_the_turn_limit_and_wrong_latents_refused(engine, tmp_path):
    data = _saved(engine, tmp_path, 2)
    exchanges = data["columns"][0]["episodes"]["exchanges"]
    data["columns"][0]["episodes"]["exchanges"] = [dict(exchanges[0], turn=i) for i in range(101)]
    with pytest.raises(DataFormatError, match="column 1: the session has 101 turns, over the limit of 100"):
        _load(engine, tmp_path, data)
    data = _saved(engine, tmp_path, 2)
    if engine.latent_shape() is None:
        pytest.skip("no latent codec for this backbone")
    data["columns"][0]["episodes"]["exchanges"][1]["latents"] = _encode_array(np.ones((3, 5), dtype=np.float32))
    with pytest.raises(DataFormatError, match=r"column 1: turn 1: latents have shape \(3, 5\)"):
        _load(engine, tmp_path, data)


def test_trace_of_given_replies_runs_no_codec_and_keeps_its_decisions(engine):
    """Inspect's trace of an upload: latents would cost one codec pass per exchange under the shared
    generator lock and change no MiniLM decision, so none are computed; decisions stay the same."""
    from rea_core.conversations import Conversation, Turn
    from rea_core.retrieval.trace import trace_conversation
    from rea_core.types import ReplyForm

    conv = Conversation(
        id="c",
        turns=tuple(
            Turn(user=f"Tell me about topic {i}, the garden.", assistant=f"Topic {i}: plants need water.")
            for i in range(5)
        ),
    )
    strategy = engine.strategy("rea", Thresholds(0.0, 1.0))
    strategy = strategy.with_config(
        replace(strategy.config, recent_raw=0, recent_compressed=0)
    )  # every earlier exchange compressed
    fast = trace_conversation(strategy, conv)
    forms = {s.reply_form for t in fast.turns for s in t.plan.segments if s.turn is not None}
    assert forms == {ReplyForm.TEXT_COMPRESSED}
    if engine.latent_shape() is not None:
        # the shipped measurements choose text on this backbone (compression/forms.py): ask for latents explicitly
        latent = strategy.with_config(replace(strategy.config, reply_form="latent"))
        full = trace_conversation(latent, conv, latents=True)
        assert ReplyForm.LATENT in {s.reply_form for t in full.turns for s in t.plan.segments if s.turn is not None}
        assert [d for t in full.turns for d in t.decisions] == [d for t in fast.turns for d in t.decisions]


def test_secom_dense_cache_is_per_session_and_bounded(models):
    from rea_core import build_strategy

    secom = build_strategy(
        "secom",
        models,
        SeComConfig(retriever="dense", cache_entries=2, segmenter="embedding", compressor="none", segment_window=2),
        runtime=RuntimeConfig(max_new_tokens=8),
    )
    first, second = secom.new_session(), secom.new_session()
    for i in range(6):
        secom.respond(first, f"Fact {i}: my cat number {i} likes fish.", reply=f"Noted fact {i}.")
    secom.respond(second, "Hello there.", reply="Hi.")
    secom.respond(second, "What do you know?", reply="Little.")
    cache = first.scratch["secom_dense"]
    assert 0 < len(cache) <= 2
    assert second.scratch.get("secom_dense") is not cache  # one session's units never reach another's cache
    assert "scratch" not in first.to_dict()
