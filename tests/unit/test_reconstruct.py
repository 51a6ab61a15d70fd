from rea_core import Decision, Resolution
from rea_core.memory.episodic import Exchange
from rea_core.reconstruction import build_prompt_plan, render_messages
from rea_core.types import ReplyForm, SegmentKind


def count_words(text):
    return len(text.split())


EXCHANGES = [
    Exchange(0, "From now on, answer in lowercase.", "ok, i will."),
    Exchange(1, "Tell me about the Moon.", " ".join(["word"] * 50)),
    Exchange(2, "And the Sun?", "The Sun is a star."),
]
DECISIONS = [
    Decision(0, 0.1, Resolution.OMIT),
    Decision(1, 0.6, Resolution.COMPRESSED),
    Decision(2, 0.9, Resolution.RAW),
]


def plan():
    return build_prompt_plan(
        query="How far is it?",
        exchanges=EXCHANGES,
        decisions=DECISIONS,
        instructions=["From now on, answer in lowercase."],
        count_tokens=count_words,
        system_prompt="You are helpful.",
        text_compress_words=5,
    )


def test_segments_in_paper_order_with_token_counts():
    p = plan()
    kinds = [s.kind for s in p.segments]
    assert kinds == [SegmentKind.SYSTEM, SegmentKind.INSTRUCTIONS] + [SegmentKind.EXCHANGE] * 3 + [SegmentKind.QUERY]
    assert "1. From now on, answer in lowercase." in p.instructions.text
    omitted, compressed, raw = p.exchanges()
    assert omitted.tokens == 0 and omitted.reply == "" and omitted.turn == 0
    assert compressed.reply_form is ReplyForm.TEXT_COMPRESSED and compressed.reply == "word word word word word […]"
    assert compressed.source_reply == EXCHANGES[1].reply
    assert raw.reply_form is ReplyForm.RAW and raw.reply == "The Sun is a star."
    assert p.total_tokens == sum(s.tokens for s in p.segments)
    assert compressed.tokens == count_words(EXCHANGES[1].user) + 6


def test_render_skips_omitted_and_puts_instructions_in_system():
    msgs = render_messages(plan())
    assert msgs[0]["role"] == "system" and "answer in lowercase" in msgs[0]["content"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert msgs[1]["content"] == "Tell me about the Moon." and msgs[-1]["content"] == "How far is it?"


def test_no_system_no_instructions():
    p = build_prompt_plan(query="hi", exchanges=[], decisions=[], instructions=[], count_tokens=count_words)
    assert render_messages(p) == [{"role": "user", "content": "hi"}]


def test_compressed_exchange_with_latents_becomes_a_latent_slot():
    import numpy as np

    from rea_core.reconstruction import LATENT_REPLY, latent_turns

    exchanges = [
        Exchange(0, "Tell me about the Moon.", "It orbits Earth.", latents=np.zeros((8, 4), np.float32)),
        Exchange(1, "And Mars?", "Red planet."),
    ]  # not compressed yet: text stand-in
    decisions = [Decision(0, 0.6, Resolution.COMPRESSED), Decision(1, 0.6, Resolution.COMPRESSED)]
    p = build_prompt_plan(
        query="Which is closer?",
        exchanges=exchanges,
        decisions=decisions,
        instructions=[],
        count_tokens=count_words,
        use_latents=True,
    )
    latent, fallback = p.exchanges()
    assert latent.reply_form is ReplyForm.LATENT and latent.latent_vectors == 8 and latent.reply == ""
    assert latent.tokens == count_words("Tell me about the Moon.") + count_words("<latent></latent>") + 8
    assert fallback.reply_form is ReplyForm.TEXT_COMPRESSED
    msgs = render_messages(p)
    assert msgs[1] == {"role": "assistant", "content": LATENT_REPLY}
    assert latent_turns(p) == [0]
    off = build_prompt_plan(
        query="q", exchanges=exchanges, decisions=decisions, instructions=[], count_tokens=count_words
    )
    assert [s.reply_form for s in off.exchanges()] == [ReplyForm.TEXT_COMPRESSED] * 2  # codec switched off


def test_im_restated_next_to_the_query_and_extractive_compression():
    moon = Exchange(
        1,
        "Tell me about the Moon.",
        "The Moon is bright. It is 384,400 km away from Earth. Tides follow it. " + " ".join(["word"] * 30),
    )
    p = build_prompt_plan(
        query="How far away is the Moon from Earth?",
        exchanges=[EXCHANGES[0], moon, EXCHANGES[2]],
        decisions=DECISIONS,
        instructions=["From now on, answer in lowercase."],
        count_tokens=count_words,
        system_prompt="You are helpful.",
        text_compress_words=8,
        text_compression="extractive",
        im_placement="query",
    )
    messages = render_messages(p)
    assert "From now on, answer in lowercase." in messages[0]["content"]  # still the system prefix
    assert (
        messages[-1]["content"].endswith("How far is it?") is False
        and "answer in lowercase" in messages[-1]["content"]
    )
    assert messages[-1]["content"].endswith("How far away is the Moon from Earth?")
    compressed = next(s for s in p.exchanges() if s.resolution is Resolution.COMPRESSED)
    assert "384,400 km away from Earth" in compressed.reply and "bright" not in compressed.reply
    assert p.query == "How far away is the Moon from Earth?"
