"""Optimized latents on the packaged backbone and its shipped codec: the fit lowers the
reply's NLL below the user-only control, fitted latents travel with a saved session, REA's default
compressed form follows the measurements shipped with the codec, and the app's form control
switches what the prompt view shows."""

import json
import shutil
import threading

import numpy as np
import pytest

from app.state import AppEngine
from app.tabs.compare import handlers
from rea_core import REAConfig, RuntimeConfig, Settings, Thresholds, build_strategy
from rea_core.backends import load_generator
from rea_core.compression import load_codec, shipped_codec_dir
from rea_core.compression.background import LATENT_META
from rea_core.compression.optimize import (
    RECALL_REQUEST,
    OptimizeConfig,
    OptimizeWriter,
    fit_prompt,
    optimize_latents,
    reply_nll,
)
from rea_core.memory.episodic import Exchange
from rea_core.session import ChatSession
from rea_core.types import ReplyForm

USER = "My sister Alice moved to Lisbon last spring for a job at a bakery."
REPLY = "That sounds exciting! Lisbon is a lovely city, and a bakery job there must mean lots of pastries."
TURNS = [
    (USER, REPLY),
    (
        "She says the rent is high but the weather is great.",
        "Rents in Lisbon have risen a lot, but the mild climate makes up for it.",
    ),
]
OPTIMIZE = dict(
    codec_mode="optimize",
    latent_fit=OptimizeConfig(max_steps=3),
    reply_form="latent",
    tau_low=0.0,
    tau_high=1.0,
    recent_raw=0,
    recent_compressed=0,
)


def test_optimized_latents_lower_the_reply_nll_below_the_user_only_control(models):
    cfg = OptimizeConfig(max_steps=15)
    start = optimize_latents(models.codec, USER, REPLY, OptimizeConfig(max_steps=0))
    fit = optimize_latents(models.codec, USER, REPLY, cfg)
    assert fit.latents.shape == (8, 576) and fit.steps <= 15 and fit.stopped_by in ("budget", "accuracy")
    control = reply_nll(models.codec, USER, REPLY, None, cfg)
    fitted = reply_nll(models.codec, USER, REPLY, fit.latents, cfg)
    assert abs(fitted - fit.nll) < 1e-3  # the reported NLL is the one of the returned latents
    assert fitted < control, (fitted, control)
    assert fitted < reply_nll(
        models.codec, USER, REPLY, start.latents, cfg
    )  # the fit, not the slice-mean start, does it


@pytest.mark.slow  # a second fit; the default run fits latents in the test above
def test_recall_layout_fits_latents_read_one_turn_later(models):
    cfg = OptimizeConfig(max_steps=10, layout="recall")
    prompt = fit_prompt(models.codec, USER, cfg)
    assert prompt.index("</latent><|im_end|>") < prompt.index(RECALL_REQUEST) and prompt.endswith(
        "assistant\n"
    )  # closed turn, then the request
    assert cfg.key == "optimize-generate-recall" and OptimizeConfig().key == "optimize-generate"
    with pytest.raises(ValueError, match="layout must be one of reply, recall"):
        OptimizeConfig(layout="later")
    start = optimize_latents(models.codec, USER, REPLY, OptimizeConfig(max_steps=0, layout="recall"))
    fit = optimize_latents(models.codec, USER, REPLY, cfg)
    assert fit.nll < start.nll and abs(reply_nll(models.codec, USER, REPLY, fit.latents, cfg) - fit.nll) < 1e-3


def test_optimized_latents_save_and_load_with_the_session(models):
    rea = build_strategy("rea", models, REAConfig(**OPTIMIZE), runtime=RuntimeConfig(max_new_tokens=8))
    assert rea.uses_latents and rea.latent_writer.key == "optimize-generate"
    session = rea.new_session()
    for user, reply in TURNS:
        rea.respond(session, user, reply=reply)
    rea.flush(session)  # a save waits for the whole budget
    for ex in session.episodes.exchanges:
        record = ex.meta[LATENT_META]
        assert (
            ex.latents.shape == (8, 576)
            and record["by"] == "optimize-generate"
            and record["stopped_by"] in ("budget", "accuracy")
        )
    loaded = ChatSession.from_json(session.to_json()).check_loaded(
        max_turns=10, max_chars=2000, max_instructions=16, latent_shape=(8, 1, 576)
    )
    for a, b in zip(session.episodes.exchanges, loaded.episodes.exchanges):
        np.testing.assert_array_equal(a.latents, b.latents)
        assert a.meta == b.meta
    assert rea.catch_up_cost(loaded) == 0  # nothing to refit
    encode = build_strategy(
        "rea", models, REAConfig(**{**OPTIMIZE, "codec_mode": "encode"}), runtime=RuntimeConfig(max_new_tokens=8)
    )
    assert encode.catch_up_cost(loaded) == 2  # the encoder's latents are another thing: rewritten, not reused

    # The next turn never waits for a whole fit: a stopped job returns its start, marked unfinished, and
    # continues later.
    writer = OptimizeWriter(models.codec, OptimizeConfig(max_steps=3))
    ex = Exchange(turn=0, user=USER, reply=REPLY)
    stop = threading.Event()
    stop.set()
    ex.latents, ex.meta[LATENT_META] = writer.write(ex, stop)
    assert (
        ex.meta[LATENT_META]["steps"] == 0 and ex.meta[LATENT_META]["stopped_by"] == "interrupted" and writer.needs(ex)
    )
    ex.latents, ex.meta[LATENT_META] = writer.write(ex, threading.Event())
    assert ex.meta[LATENT_META]["stopped_by"] in ("budget", "accuracy") and not writer.needs(ex)


def test_default_form_follows_the_recorded_measurements(models, tmp_path):
    shipped = models.codec.measurements
    assert shipped is not None, "the packaged codec ships measurements.json"
    best = max(("latent-encode", "text"), key=lambda k: shipped["forms"][k]["gap_share"])
    rea = build_strategy(
        "rea",
        models,
        REAConfig(tau_low=0.0, tau_high=1.0, recent_raw=0, recent_compressed=0),
        runtime=RuntimeConfig(max_new_tokens=8),
    )
    assert rea.reply_form.measure == best and rea.uses_latents == (best == "latent-encode")

    folder = tmp_path / "codec"  # the same codec with the opposite record
    shutil.copytree(shipped_codec_dir(models.generator.name), folder)
    flipped = json.loads((folder / "measurements.json").read_text())
    flipped["forms"]["latent-encode"]["gap_share"], flipped["forms"]["text"]["gap_share"] = 0.9, 0.1
    (folder / "measurements.json").write_text(json.dumps(flipped))
    generator = load_generator("packaged")
    codec = load_codec(generator, folder)
    other = build_strategy(
        "rea",
        models.__class__(generator=generator, embedder=models.embedder, codec=codec),
        REAConfig(tau_low=0.0, tau_high=1.0, recent_raw=0, recent_compressed=0),
        runtime=RuntimeConfig(max_new_tokens=8),
    )
    assert other.reply_form.form == "latent" and other.reply_form.gap_share == 0.9
    session = other.new_session()
    for user, reply in TURNS:
        other.respond(session, user, reply=reply)
    result = other.respond(session, "Where does Alice work?")
    assert [s.reply_form for s in result.plan.exchanges()] == [ReplyForm.LATENT] * 2


def test_app_form_control_switches_the_form_and_the_chip_says_it(models):
    engine = AppEngine(
        models=models,
        settings=Settings(
            rea=REAConfig(tau_low=0.0, tau_high=1.0, recent_raw=0, recent_compressed=0),
            runtime=RuntimeConfig(max_new_tokens=8),
        ),
    )
    column = engine.new_column("rea")
    for user, reply in TURNS:
        handlers.respond_column(engine, column, user, Thresholds(0.0, 1.0), reply=reply)
    for form, chip, reply_form in (
        ("latent", "8 latent vectors", ReplyForm.LATENT),
        ("text", "text-compressed", ReplyForm.TEXT_COMPRESSED),
    ):
        handlers.set_reply_form([column], form)
        handlers.respond_column(engine, column, "Where does Alice work?", Thresholds(0.0, 1.0), reply="At a bakery.")
        assert column.error == ""
        assert {s.reply_form for s in column.last.plan.exchanges()} == {reply_form}
        view = handlers.column_views(engine, column, Thresholds(0.0, 1.0))[0]
        assert '<span class="rea-chip"' in view and f">{chip}</span>" in view
        assert ("8 latent vectors" in view) == (form == "latent")
