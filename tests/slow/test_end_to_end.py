"""End to end on the packaged model: a global instruction survives 20 ordinary turns in REA,
while vanilla's prompt keeps growing with every reply."""

import os
import subprocess
import sys

import pytest

from rea_core import RuntimeConfig, build_strategy
from rea_core.types import SegmentKind

pytestmark = pytest.mark.slow

INSTRUCTION = "From now on, begin each response with the letter r and keep every answer under 200 words."
ORDINARY = [
    "What is the capital of France?",
    "Name a fruit that is yellow.",
    "How many legs does a spider have?",
    "What is 12 times 12?",
    "Give me a synonym for happy.",
    "What color is the sky on a clear day?",
    "Which planet is known as the red planet?",
    "What do bees make?",
    "Name an ocean.",
    "What is the boiling point of water in Celsius?",
    "Who wrote Romeo and Juliet?",
    "What is the largest mammal?",
    "How many days are in a week?",
    "What language is spoken in Brazil?",
    "Name a musical instrument with strings.",
    "What is frozen water called?",
    "What gas do plants absorb?",
    "How many continents are there?",
    "What is the opposite of cold?",
    "Name a bird that cannot fly.",
]


def test_instruction_survives_twenty_turns_and_rea_prompt_stays_short(models):
    runtime = RuntimeConfig(max_new_tokens=48)
    rea, vanilla = build_strategy("rea", models, runtime=runtime), build_strategy("vanilla", models, runtime=runtime)
    s_rea, s_van = rea.new_session(), vanilla.new_session()
    first = rea.respond(s_rea, INSTRUCTION)
    assert first.recognition.is_global
    vanilla.respond(s_van, INSTRUCTION)
    for text in ORDINARY:
        r_rea = rea.respond(s_rea, text)
        r_van = vanilla.respond(s_van, text)
        assert r_rea.reply and r_van.reply
    assert s_rea.n_turns == s_van.n_turns == 21
    # REA: the plan still opens with the instruction, verbatim, right after the system message.
    segs = r_rea.plan.segments
    assert [s.kind for s in segs[:2]] == [SegmentKind.SYSTEM, SegmentKind.INSTRUCTIONS]
    assert INSTRUCTION in segs[1].text
    assert len(r_rea.decisions) == 20
    # Vanilla carries all 20 earlier exchanges raw; REA only what HCR selected.
    assert r_van.prompt_tokens > 2 * r_rea.prompt_tokens, (r_van.prompt_tokens, r_rea.prompt_tokens)
    assert len(r_van.plan.exchanges()) == 20


def test_interactive_chat_answers_with_both_strategies():
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, "-m", "rea_core.cli.main", "chat", "--max-new-tokens", "16"],
        input="From now on, answer in lowercase.\n\n/im\nWhat is the capital of Italy?\n/quit\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("[rea] ") >= 2 and proc.stdout.count("[vanilla] ") >= 2
    assert "Instructional Memory: ['From now on, answer in lowercase.']" in proc.stdout
    assert "error: The message is empty" in proc.stderr  # the blank line is refused, the chat goes on
