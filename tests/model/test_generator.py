"""The packaged SmolLM2-135M-Instruct behind the Generator interface (real weights)."""

import math

import pytest

from rea_core.backends import load_generator
from rea_core.errors import ModelLoadError

MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]


def test_generates_and_reports_costs(models):
    g = models.generator
    gen = g.generate(MESSAGES, max_new_tokens=16)
    assert gen.text and 0 < gen.new_tokens <= 16 and gen.wall_s > 0
    assert gen.prompt_tokens == g.prompt_tokens(MESSAGES) and gen.truncated_tokens == 0
    assert "paris" in gen.text.lower()  # greedy decoding on a real model


def test_greedy_is_deterministic(models):
    a = models.generator.generate(MESSAGES, max_new_tokens=12)
    b = models.generator.generate(MESSAGES, max_new_tokens=12)
    assert a.text == b.text


def test_left_truncation_drops_oldest_tokens(models):
    g = models.generator
    full = g.prompt_tokens(MESSAGES)
    gen = g.generate(MESSAGES, max_new_tokens=4, max_prompt_tokens=full - 5)
    assert gen.truncated_tokens == 5 and gen.prompt_tokens == full - 5


def test_choice_logprobs(models):
    lp = models.generator.choice_logprobs(
        [{"role": "user", "content": "Is water wet? Answer yes or no."}], ["yes", "no"]
    )
    assert len(lp) == 2 and all(math.isfinite(x) and x < 0 for x in lp)


def test_embedder_is_unit_norm_and_semantic(models):
    v = models.embedder.encode(
        ["How do I water a fiddle-leaf fig?", "Houseplant care tips", "The stock market fell today."]
    )
    assert v.shape == (3, 384)
    assert abs(float((v[0] ** 2).sum()) - 1.0) < 1e-4
    assert v[0] @ v[1] > v[0] @ v[2]


def test_unloadable_model_names_it_and_what_to_do(tmp_path):
    with pytest.raises(ModelLoadError, match="not-a-model.*--model"):
        load_generator(str(tmp_path / "not-a-model"))
