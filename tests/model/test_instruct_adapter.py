"""The packaged model as shipped: the instruction-following adapter merged in, repetition control on, a reply
cut at the token limit saying so; a missing or mismatched adapter is one clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from rea_core.backends import instruct_adapter
from rea_core.backends.decoding import DEFAULT_DECODING
from rea_core.errors import ModelLoadError


def test_the_packaged_model_answers_with_the_shipped_adapter_and_decoding(models):
    assert models.generator.adapter == instruct_adapter.ADAPTER_DIR
    assert models.generator.decoding == DEFAULT_DECODING
    size = (instruct_adapter.SHIPPED / "adapter_model.safetensors").stat().st_size
    assert size <= 20 * 2**20


def test_the_adapter_is_off_for_other_models_and_when_asked():
    assert instruct_adapter.resolve("packaged", "none") is None
    assert instruct_adapter.resolve("HuggingFaceTB/SmolLM2-360M-Instruct", "auto") is None
    assert instruct_adapter.resolve("packaged", "auto") == instruct_adapter.SHIPPED


def test_a_folder_without_an_adapter_is_refused_before_any_model_loads(tmp_path):
    with pytest.raises(ModelLoadError, match="--adapter none"):
        instruct_adapter.resolve("packaged", str(tmp_path))


def test_an_adapter_made_for_another_model_is_one_clear_error():
    from transformers import AutoModelForCausalLM

    from rea_core.backends.packaged import packaged_generator_dir

    backbone = AutoModelForCausalLM.from_pretrained(packaged_generator_dir())
    minilm_adapter = Path(instruct_adapter.SHIPPED).parent / "recognizer-english-minilm"  # a BERT LoRA
    with pytest.raises(ModelLoadError, match="does not fit this model"):
        instruct_adapter.merge(backbone, minilm_adapter)


def test_a_reply_cut_at_the_token_limit_says_so(models):
    from rea_core.loading import build_strategy
    from rea_core.methods.base import stats_text, turn_summary
    from rea_core.runtime import RuntimeConfig

    vanilla = build_strategy("vanilla", models, runtime=RuntimeConfig(max_new_tokens=4, kv_reuse=False))
    session = vanilla.new_session()
    result = vanilla.respond(session, "Tell me a long story about a dragon and a knight.")
    assert result.generation.cut_at_tokens == 4
    assert stats_text(turn_summary(result)).startswith("cut at 4 tokens | ")


def _play_example(models, title: str) -> tuple[dict, dict]:
    """The first-screen example ``title`` played as the app plays it: its live results and final sessions per
    column."""
    from app.tabs.compare.examples import EXAMPLES
    from rea_core.loading import build_from_settings
    from rea_core.settings import Settings

    settings = Settings.from_env()
    turns = dict(EXAMPLES)[title]
    live, sessions = {}, {}
    for name in ("rea", "vanilla"):
        strategy = build_from_settings(name, models, settings, served=True)
        sessions[name] = session = strategy.new_session()
        results = [(reply, strategy.respond(session, message, reply=reply)) for message, reply in turns]
        live[name] = [result for given, result in results if given is None]
    return live, sessions


@pytest.mark.slow  # three live replies per column after thirteen stored turns
def test_the_lowercase_example_shows_rea_keeping_its_instruction_and_vanilla_not(models):
    """The first screen's first example: REA answers all three live questions in lowercase, as asked thirteen
    turns earlier (IM holds it and decoding keeps it); vanilla, with no IM, answers none in lowercase; REA's
    prompts are at most 60% of vanilla's (what the README says the example shows)."""
    from app.tabs.compare.examples import EXAMPLES, LOWERCASE_INSTRUCTION
    from rea_core.evals.checks import Check

    title = EXAMPLES[0][0]
    live, sessions = _play_example(models, title)
    assert sessions["rea"].instructions.texts() == [LOWERCASE_INSTRUCTION]
    lowercase = Check("change_case:english_lowercase")
    assert [lowercase.passed(r.reply) for r in live["rea"]] == [True] * 3, [r.reply for r in live["rea"]]
    assert [lowercase.passed(r.reply) for r in live["vanilla"]] == [False] * 3, [r.reply for r in live["vanilla"]]
    for rea_result, vanilla_result in zip(live["rea"], live["vanilla"]):
        assert rea_result.generation.kept_rules == ("lowercase letters only",)
        assert rea_result.prompt_tokens <= 0.6 * vanilla_result.prompt_tokens


@pytest.mark.slow  # three live replies per column after thirteen stored turns
def test_the_letter_example_shows_rea_keeping_its_instruction_and_vanilla_losing_it(models):
    """The first screen's second example: REA starts all three live replies with R, as asked thirteen turns
    earlier (the model's own doing: no output rule covers it); vanilla, reading every non-compliant given
    reply, does so only on the first; REA's prompts are at most 60% of vanilla's (what the README says)."""
    from app.tabs.compare.examples import EXAMPLES, LETTER_INSTRUCTION
    from rea_core.evals.checks import Check

    live, sessions = _play_example(models, EXAMPLES[1][0])
    assert sessions["rea"].instructions.texts() == [LETTER_INSTRUCTION]
    starts_with_r = Check("startend:first_letter", {"letter": "r"})
    rea_kept = [starts_with_r.passed(result.reply) for result in live["rea"]]
    vanilla_kept = [starts_with_r.passed(result.reply) for result in live["vanilla"]]
    assert rea_kept == [True, True, True], [result.reply for result in live["rea"]]
    assert vanilla_kept == [True, False, False], [result.reply for result in live["vanilla"]]
    for rea_result, vanilla_result in zip(live["rea"], live["vanilla"]):
        assert rea_result.generation.kept_rules == ()
        assert rea_result.prompt_tokens <= 0.6 * vanilla_result.prompt_tokens


@pytest.mark.slow  # nine turns per column, two of them live
def test_the_h1_demo_shows_the_prompt_sizes_the_readme_states(models):
    """The paper's H.1 demo as the app plays it: REA's IM holds the instruction, both columns' last replies
    begin with R (its given replies comply, so vanilla copies them), and REA's last prompt is at most 70% of
    vanilla's (the README: 345 against 504 tokens)."""
    from rea_core import load_conversations
    from rea_core.evals.checks import Check
    from rea_core.loading import build_from_settings
    from rea_core.settings import Settings

    examples = Path(__file__).resolve().parents[2] / "examples" / "conversations.jsonl"
    (demo,) = [c for c in load_conversations(examples) if c.id == "h1-initial-letter"]
    settings = Settings.from_env()
    last = {}
    for name in ("rea", "vanilla"):
        strategy = build_from_settings(name, models, settings, served=True)
        session = strategy.new_session()
        for turn in demo.turns:
            last[name] = strategy.respond(session, turn.user, reply=turn.assistant)
        if name == "rea":
            assert len(session.instructions.texts()) == 1
            assert "letter r" in session.instructions.texts()[0]
    starts_with_r = Check("startend:first_letter", {"letter": "r"})
    assert starts_with_r.passed(last["rea"].reply) and starts_with_r.passed(last["vanilla"].reply)
    assert last["rea"].prompt_tokens <= 0.7 * last["vanilla"].prompt_tokens
