"""The dual-LoRA latent codec on the real packaged backbone: gradients, artifacts, an REA turn with latents."""

import json
import logging

import numpy as np
import pytest
import torch

from rea_core import REAConfig, Resolution, RuntimeConfig, build_strategy
from rea_core.backends import load_generator
from rea_core.compression import AdapterMismatchError, latent_message, load_codec, save_codec, shipped_codec_dir
from rea_core.compression.codec import COMPRESS, GENERATE
from rea_core.reconstruction import render_messages
from rea_core.training.codec import Example, example_loss, make_optimizer, new_codec, preset, train
from rea_core.training.codec_data import Session
from rea_core.types import ReplyForm

SESSION = Session(
    "t-0",
    "test",
    "train",
    (
        {
            "user": "My sister Alice moved to Lisbon last spring for a job at a bakery.",
            "reply": "That sounds exciting! Lisbon is a lovely city, "
            "and a bakery job there must mean lots of pastéis de nata.",
        },
        {
            "user": "She says the rent is high but the weather is great.",
            "reply": "That is common in Lisbon: rents have risen a lot, "
            "but the mild sunny climate makes up for it for many people.",
        },
        {"user": "Where did I say she works?", "reply": "You said Alice works at a bakery in Lisbon."},
    ),
)


def fresh_codec(**overrides):
    """A codec on its own copy of the backbone (peft changes the model it wraps)."""
    return new_codec(load_generator("packaged"), preset("cpu", **overrides))


def lora_grads(codec, adapter, part):
    return [p.grad for n, p in codec.peft_model.named_parameters() if f"{part}.{adapter}." in n]


def test_generation_loss_trains_both_adapters_and_the_compression_tokens():
    codec = fresh_codec()
    optimizer = make_optimizer(codec, preset("cpu"))
    example = Example(
        messages=(
            {"role": "user", "content": SESSION.turns[0]["user"]},
            {"role": "assistant", "content": latent_message()},
            {"role": "user", "content": SESSION.turns[2]["user"]},
        ),
        latent_replies=(SESSION.turns[0]["reply"],),
        target=SESSION.turns[2]["reply"],
        kind="generate",
    )
    for step in range(2):  # lora_B starts at zero, so lora_A only gets a gradient from the second step on
        optimizer.zero_grad(set_to_none=True)
        example_loss(codec, example, max_target_tokens=32).backward()
        assert codec.compression_tokens.grad is not None and codec.compression_tokens.grad.abs().sum() > 0
        for adapter in (COMPRESS, GENERATE):  # the generate adapter ran last: compress must still get its gradient
            for part in ("lora_B",) + (("lora_A",) if step else ()):
                grads = lora_grads(codec, adapter, part)
                assert grads and all(g is not None for g in grads), (adapter, part)
                assert sum(float(g.abs().sum()) for g in grads) > 0, (adapter, part)
        optimizer.step()


@pytest.mark.slow  # moved to keep the default run under 15 minutes
def test_codec_save_load_round_trip_and_refusals(tmp_path, caplog):
    codec = fresh_codec()
    torch.manual_seed(0)
    for p in codec.trainable_parameters():  # lora_B starts at zero: make every tensor non-trivial before saving
        p.data.add_(0.01 * torch.randn_like(p))
    folder = save_codec(codec, tmp_path / "codec")
    other = load_codec(load_generator("packaged"), folder)
    for name, value in codec.state_dict().items():
        np.testing.assert_allclose(other.state_dict()[name].float().numpy(), value.float().numpy(), atol=2e-3)
    text = SESSION.turns[0]["reply"]
    np.testing.assert_allclose(other.compress(text), codec.compress(text), atol=5e-2)
    assert other.compress(text).shape == (8, 576)

    with pytest.raises(AdapterMismatchError, match="8 latent vectors per reply, but 16"):
        load_codec(load_generator("packaged"), folder, n_latent=16)
    meta = json.loads((folder / "codec.json").read_text())
    meta["spec"]["backbone"] = "Mistral-7B-Instruct-v0.2"
    (folder / "codec.json").write_text(json.dumps(meta))
    with pytest.raises(AdapterMismatchError, match="'Mistral-7B-Instruct-v0.2'.*'SmolLM2-135M-Instruct'"):
        load_codec(load_generator("packaged"), folder)

    with caplog.at_level(logging.WARNING):
        windows, cut = codec.reply_windows("word " * 400)
        codec.compress("word " * 400)
    assert len(windows) == codec.spec.max_chunks and cut > 0
    assert "not compressed" in caplog.text  # a cut reply is never silent


@pytest.mark.slow  # three training runs on fresh backbones; the default run trains through test_generation_loss_…
def test_training_checkpoints_and_resumes(tmp_path):
    cfg = preset("cpu", batch_size=2, epochs=10, max_steps=2, autoencode_steps=1, save_every=1)
    generator = load_generator("packaged")
    first = train(generator, [SESSION], cfg, tmp_path, progress=False)
    assert first["steps"] == 2 and (tmp_path / "checkpoint" / "state.json").is_file()
    assert (tmp_path / "report.html").is_file() and len((tmp_path / "log.jsonl").read_text().splitlines()) == 2
    again = train(
        load_generator("packaged"),
        [SESSION],
        preset("cpu", batch_size=2, epochs=10, max_steps=3, autoencode_steps=1, save_every=1),
        tmp_path,
        progress=False,
    )
    assert (
        again["steps"] == 3 and len((tmp_path / "log.jsonl").read_text().splitlines()) == 3
    )  # resumed, not restarted
    load_codec(load_generator("packaged"), tmp_path / "codec")
    with pytest.raises(ValueError, match="other settings.*lr"):
        train(
            load_generator("packaged"),
            [SESSION],
            preset("cpu", lr=1e-3, batch_size=2, epochs=10, max_steps=4, autoencode_steps=1),
            tmp_path,
            progress=False,
        )


def test_shipped_codec_gives_rea_turns_with_8_latent_positions(models):
    assert shipped_codec_dir(models.generator.name) is not None, (
        "the packaged backbone's codec must ship in rea_core/adapters/"
    )
    assert models.codec is not None and models.codec.spec.n_latent == 8
    rea = build_strategy(
        "rea",
        models,
        REAConfig(tau_low=0.0, tau_high=1.0, recent_raw=0, recent_compressed=0, reply_form="latent"),
        runtime=RuntimeConfig(max_new_tokens=16),
    )  # every exchange compressed, as latents
    session = rea.new_session()
    for turn in SESSION.turns[:2]:
        rea.respond(session, turn["user"], reply=turn["reply"])
    result = rea.respond(session, SESSION.turns[2]["user"])
    segments = result.plan.exchanges()
    assert [d.resolution for d in result.decisions] == [Resolution.COMPRESSED] * 2
    assert all(s.reply_form is ReplyForm.LATENT and s.latent_vectors == 8 for s in segments)
    blocks = [ex.latents for ex in session.episodes.exchanges[:2]]
    hybrid = models.codec.hybrid_input(render_messages(result.plan), blocks)
    assert [e - s for s, e in hybrid.latent_spans] == [8, 8]
    assert result.prompt_tokens == hybrid.length and isinstance(result.reply, str)

    rea.flush(session)  # the newest reply was compressed in the background
    assert all(ex.latents is not None and ex.latents.shape == (8, 576) for ex in session.episodes.exchanges)
    reloaded = type(session).from_json(session.to_json())
    np.testing.assert_array_equal(reloaded.episodes.exchanges[2].latents, session.episodes.exchanges[2].latents)

    vanilla = build_strategy("vanilla", models, runtime=RuntimeConfig(max_new_tokens=8))  # same backbone, adapters off
    plain = load_generator("packaged")
    msgs = [{"role": "user", "content": "Name a color."}]
    assert vanilla.generator.generate(msgs, max_new_tokens=8).text == plain.generate(msgs, max_new_tokens=8).text
    from rea_core.methods.secom.compressor import PerplexityCompressor  # SeCom's scoring also sees the plain backbone

    text = SESSION.turns[0]["reply"]
    shared, own = (
        PerplexityCompressor(models.generator)._token_information(text),
        PerplexityCompressor(plain)._token_information(text),
    )
    np.testing.assert_allclose(shared[1], own[1], atol=1e-3)


def test_latent_scorer_scores_every_exchange(models):
    rea = build_strategy("rea", models, REAConfig(scorer="latent"), runtime=RuntimeConfig(max_new_tokens=8))
    session = rea.new_session()
    for turn in SESSION.turns[:2]:
        rea.respond(session, turn["user"], reply=turn["reply"])
    rea.flush(session)
    assert all(ex.user_latents is not None for ex in session.episodes.exchanges)
    scores = rea.score(session, "Where does Alice work?")
    assert scores.shape == (2,) and np.all(np.abs(scores) <= 1.0 + 1e-6)
