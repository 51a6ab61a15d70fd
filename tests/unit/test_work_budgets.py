"""Work budgets without a model: the token cap, reply and trace budgets come from the environment
and reach only a served runtime; the model gate lets chats run while a trace waits between turns."""

import threading
import time

import pytest

from rea_core import REAError, RuntimeConfig, Settings
from rea_core.limits import Limits, ModelGate


def test_budgets_from_env_reach_only_a_served_runtime():
    settings = Settings.from_env(
        {"REA_MAX_MESSAGE_TOKENS": "300", "REA_REPLY_BUDGET_S": "2.5", "REA_TRACE_BUDGET_S": "40"}
    )
    limits = settings.limits
    assert (limits.max_message_tokens, limits.reply_budget_s, limits.trace_budget_s) == (300, 2.5, 40)
    assert settings.runtime.max_message_tokens is None and settings.runtime.reply_budget_s is None  # evaluations
    served = limits.serve(settings.runtime)
    assert (served.max_message_tokens, served.reply_budget_s) == (300, 2.5)
    assert served.max_message_chars == settings.runtime.max_message_chars  # the character cap stays
    defaults = Limits()
    assert (defaults.max_message_tokens, defaults.reply_budget_s, defaults.trace_budget_s) == (1024, 120, 300)
    for name in ("REA_MAX_MESSAGE_TOKENS", "REA_REPLY_BUDGET_S", "REA_TRACE_BUDGET_S"):
        with pytest.raises(REAError, match=f"{name} must be positive"):
            Settings.from_env({name: "0"})
    with pytest.raises(ValueError, match="reply_budget_s must be positive"):
        RuntimeConfig(reply_budget_s=0)


def test_a_trace_turn_waits_while_a_chat_runs_and_a_chat_never_waits():
    gate, log = ModelGate(grace_s=0.2), []
    chatting, chat_may_end = threading.Event(), threading.Event()

    def chat():
        with gate.chat():
            log.append("chat started")
            chatting.set()
            chat_may_end.wait(5)
            log.append("chat ended")

    def trace_turn():
        with gate.background() as waited:
            log.append(f"trace turn after {waited:.1f} s")

    chatter = threading.Thread(target=chat)
    chatter.start()
    assert chatting.wait(5) and gate.chats == 1
    tracer = threading.Thread(target=trace_turn)
    tracer.start()
    time.sleep(0.3)
    assert log == ["chat started"]  # the trace turn waits at the gate
    chat_may_end.set()
    chatter.join(5)
    tracer.join(5)
    assert log[:2] == ["chat started", "chat ended"] and log[2].startswith("trace turn after")
    assert float(log[2].split()[3]) >= 0.3 + 0.2 and gate.chats == 0  # the chat, then the grace

    # A background step already running does not hold a chat back.
    in_step, step_may_end, chat_done = threading.Event(), threading.Event(), threading.Event()

    def long_step():
        with gate.background():
            in_step.set()
            step_may_end.wait(5)

    stepper = threading.Thread(target=long_step)
    stepper.start()
    assert in_step.wait(5)
    threading.Thread(target=lambda: (gate.chat().__enter__(), chat_done.set())).start()
    assert chat_done.wait(1)  # entered at once, beside the running step
    step_may_end.set()
    stepper.join(5)


def test_an_error_in_a_gated_step_leaves_the_gate_open():
    gate = ModelGate(grace_s=0.05)
    with pytest.raises(RuntimeError):
        with gate.chat():
            raise RuntimeError("model call failed")
    assert gate.chats == 0
    with pytest.raises(RuntimeError):
        with gate.background():
            raise RuntimeError("trace turn failed")
    with gate.background() as waited:  # the next turn enters after the grace
        assert waited < 0.5
