"""Work budgets on the real packaged models: the per-message token cap refuses before any prefill
(library and the app's Send), the reply budget cuts decoding (the reply so far kept and marked; none
stored when the budget ends before the first word), the trace budget ends a trace with the turns so
far, and a chat turn completes while a long trace waits between its turns."""

import threading
import time
from dataclasses import replace

import pytest

from app.state import AppEngine
from app.tabs.compare import handlers
from app.views.memory import stats_line
from rea_core import RuntimeConfig, Settings, Thresholds, build_strategy
from rea_core.conversations import Conversation, Turn
from rea_core.errors import InputError, ServingError
from rea_core.limits import Limits
from rea_core.retrieval.trace import trace_conversation

LONG = "Here is a page of my garden diary, with roses, tomatoes and a fig tree. " * 12  # about 200 tokens


def test_token_cap_refuses_before_any_model_call_and_stores_nothing(models):
    vanilla = build_strategy("vanilla", models, runtime=RuntimeConfig(max_new_tokens=4, max_message_tokens=50))
    session = vanilla.new_session()
    tokens = models.generator.count_tokens(LONG)
    with pytest.raises(InputError) as refused:
        vanilla.respond(session, LONG)
    assert str(refused.value) == (
        f"The message has {tokens:,} tokens, over the limit of 50 (REA_MAX_MESSAGE_TOKENS); "
        "nothing was sent or stored."
    )
    assert session.n_turns == 0 and session.log == []
    assert vanilla.respond(session, LONG, reply="Lovely.").turn == 0  # a given reply (replay) prefills nothing


def test_app_send_refuses_a_message_over_the_token_cap(models):
    engine = AppEngine(models=models, settings=Settings(limits=Limits(max_message_tokens=50)))
    assert engine.runtime.max_message_tokens == 50 and engine.strategy("rea").runtime.reply_budget_s == 120
    assert handlers.check_message(engine, "Hello there.") == "Hello there."
    with pytest.raises(InputError, match=r"tokens, over the limit of 50 \(REA_MAX_MESSAGE_TOKENS\)"):
        handlers.check_message(engine, LONG)


def test_reply_budget_keeps_the_reply_so_far_or_stores_nothing_before_the_first_word(models, base_generator):
    from rea_core.loading import Models

    ask = "Count from 1 to 300, separated by commas."
    runtime = RuntimeConfig(max_new_tokens=400, reply_budget_s=2.0)
    # the base model decoding greedily counts on for hundreds of tokens (the shipped one stops after a few)
    vanilla = build_strategy("vanilla", Models(generator=base_generator, embedder=models.embedder), runtime=runtime)
    session = vanilla.new_session()
    started = time.perf_counter()
    result = vanilla.respond(session, ask)
    gen = result.generation
    assert gen.out_of_time and 0 < gen.new_tokens < 400 and time.perf_counter() - started < 2.0 + 5
    assert session.n_turns == 1 and session.log[-1]["out_of_time"] is True
    assert "cut at the reply's time budget (REA_REPLY_BUDGET_S)" in stats_line(session.log[-1])

    rushed = vanilla.with_config(runtime=replace(runtime, reply_budget_s=1e-6))
    with pytest.raises(ServingError, match=r"time budget of 1e-06 s \(REA_REPLY_BUDGET_S\) ran out before its first"):
        rushed.respond(session, "And now from 300 down to 1.")
    assert session.n_turns == 1 and len(session.log) == 1  # nothing of the turn stored
    again = vanilla.with_config(runtime=replace(runtime, max_new_tokens=2)).respond(
        session, "And now from 300 down to 1."
    )
    assert again.generation.reused_tokens > 0  # the prefill the budget cut short was kept for the next try


def _conversation(turns: int) -> Conversation:
    return Conversation(
        id="long",
        turns=tuple(
            Turn(user=f"Tell me about topic {i}, the garden and the sea.", assistant=f"Topic {i}: plants need water.")
            for i in range(turns)
        ),
    )


def test_trace_budget_ends_the_trace_with_the_turns_so_far(models):
    rea = build_strategy("rea", models)
    result = trace_conversation(rea, _conversation(6), budget_s=1e-9)
    assert len(result.turns) == 1
    assert result.note == "traced 1 of 6 turns: the trace's time budget of 1e-09 s (REA_TRACE_BUDGET_S) ran out"
    assert trace_conversation(rea, _conversation(2), budget_s=60).note == ""


def test_a_chat_turn_completes_while_a_long_trace_waits_between_its_turns(models):
    engine = AppEngine(models=models, settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)))
    done, failed = [0], []

    def on_turn(n, _total):
        done[0] = n

    def trace():
        try:
            trace_conversation(
                engine.strategy("rea"), _conversation(10), on_turn=on_turn, turn_gate=engine.gate.background
            )
        except Exception as exc:  # reported below
            failed.append(exc)

    tracer = threading.Thread(target=trace, daemon=True)
    tracer.start()
    while done[0] < 2 and tracer.is_alive():
        time.sleep(0.05)
    column = engine.new_column("vanilla")
    before = done[0]
    for _ in handlers.stream_columns(engine, [column], "Name a color.", Thresholds(0.2, 0.36), threading.Event()):
        pass
    during = done[0] - before
    assert column.error == "" and column.session.n_turns == 1
    assert tracer.is_alive() and during <= 1  # the trace paused: at most the turn already running finished
    tracer.join(120)
    assert not failed and done[0] == 10  # and it went on to the end after the chat
