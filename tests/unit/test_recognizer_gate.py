"""Stage 1's recall-safe gate: no global instruction is stopped without a model."""

import json
from pathlib import Path

import pytest

from rea_core.recognizer import OTHER, REVOKE, rule_stage
from rea_core.recognizer.gate import gate_cues

ROOT = Path(__file__).resolve().parents[2]

# Standing instructions the old cue list stopped at stage 1 (first the six reported misses), and
# others without any "from now on"-style marker: each must reach stage 2 or be accepted.
GLOBALS = [
    "Keep a formal tone with me throughout our conversation.",
    "Every response should start with a one-line summary in bold.",
    "All dates you write should use the YYYY-MM-DD format.",
    "Whatever I ask next, reply like a pirate would.",
    "For everything that follows, assume I live in Canada.",
    "Please sign off each message with '- your assistant'.",
    "I'm vegetarian, so keep that in mind for any recipes you suggest.",
    "Talk to me in Portuguese, I'm trying to practice.",
    "Be more concise.",
    "My pronouns are they/them.",
    "Call me Sam.",
    "Skip the pleasantries.",
    "Any code you show me should be in TypeScript.",
    "Give times in CET, I'm in Berlin.",
    "Use a numbered list whenever you give me steps.",
    "Stop using commas in your replies from this point on.",  # a new rule, not a revocation
]

# Inputs stage 1 may stop: plain questions, greetings, thanks, plain tasks on given content.
SURE_ORDINARY = [
    "What is the capital of France?",
    "Who painted the Mona Lisa?",
    "Good morning!",
    "Thanks, that was helpful!",
    "Ok cool, sounds good.",
    "Summarize the plot of Hamlet.",
    "How does a heat pump work?",
]


@pytest.mark.parametrize("text", GLOBALS)
def test_gate_passes_every_global(text):
    label, cues = rule_stage(text)
    assert label not in (OTHER, REVOKE), f"stage 1 stopped a global instruction: {text!r}"
    assert cues


@pytest.mark.parametrize("text", SURE_ORDINARY)
def test_gate_stops_inputs_it_is_sure_about(text):
    assert rule_stage(text) == (OTHER, ()) and gate_cues(text) == ()


def test_gate_names_the_families_that_fired():
    assert set(gate_cues("Keep a formal tone with me throughout our conversation.")) >= {"scope", "tone_persona"}
    assert "user_facts" in gate_cues("For everything that follows, assume I live in Canada.")
    assert "open_close" in gate_cues("Please sign off each message with '- your assistant'.")


@pytest.mark.parametrize(
    "path",
    [
        "rea_core/data/recognizer_validation.jsonl",
        "examples/annotations/recognizer_train_labels.jsonl",
        "rea_core/data/recognizer_fresh_test.jsonl",
        "rea_core/data/recognizer_train.jsonl",
    ],
)
def test_gate_pass_rate_of_globals_on_every_labeled_set(path):
    rows = [json.loads(line) for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if line.strip()]
    globals_ = [r["text"] for r in rows if r["label"] == "global"]
    stopped = [t for t in globals_ if rule_stage(t)[0] in (OTHER, REVOKE)]
    assert globals_ and 1 - len(stopped) / len(globals_) >= 0.98, stopped


@pytest.mark.parametrize(
    "text, expected",
    [
        ("actually, use capitals again", True),
        ("Go back to writing in English.", True),
        ("Actually, reply in English again.", True),
        ("Write it again but shorter.", False),
        ("Can you say that again?", False),
        ("Use capitals.", False),
    ],
)
def test_replacement_needs_a_cue_and_a_directive_and_is_not_a_redo(text, expected):
    from rea_core.recognizer import is_replacement

    assert is_replacement(text) is expected
