"""SeCom and COMEDY answer a 10-turn conversation end to end on the packaged model, every reply
generated, with their default memory settings (zero-shot LLM segmenter, LLMLingua compression,
BM25; COMEDY sessions closing mid-conversation)."""

import pytest

from rea_core import COMEDYConfig, RuntimeConfig, SeComConfig, build_strategy

pytestmark = pytest.mark.slow

CONVERSATION = [
    "Hi! I'm planning a trip to Kyoto in April with my sister Mei.",
    "Which temples should we visit there?",
    "We also love cherry blossoms. Where are the best spots?",
    "Switching topics: I adopted a cat named Miso last week.",
    "What should I feed a young cat?",
    "How often should Miso see a vet?",
    "Back to work: I need a Python script to parse CSV files.",
    "How do I skip the header row?",
    "Thanks. What was my sister's name?",
    "And what is my cat called?",
]


@pytest.mark.parametrize(
    "name, config",
    [
        ("secom", SeComConfig(segment_window=4)),
        ("comedy", COMEDYConfig(sitting_turns=4, memory_tokens=64)),
    ],
)
def test_ten_turns_end_to_end(models, name, config):
    strategy = build_strategy(name, models, config, runtime=RuntimeConfig(max_new_tokens=24))
    session = strategy.new_session()
    results = [strategy.respond(session, text) for text in CONVERSATION]
    assert session.n_turns == 10 and all(r.generated and r.reply.strip() for r in results)
    assert all(r.prompt_tokens > 0 and r.truncated_tokens == 0 for r in results)
    last = results[-1].plan
    assert any(s.kind.value == "memory" for s in last.segments) and last.notes
    if name == "secom":
        assert session.memory["segments"]  # segments were closed and compressed along the way
    else:
        assert len(session.memory["sittings"]) == 2 and session.memory["sitting_start"] == 8
