"""Pure parts of latent compression: metrics, data filters, latent scoring layout. No model."""

import numpy as np
import pytest

from rea_core.errors import DataFormatError
from rea_core.evals.codec import gap_recovered, probe_turns, rouge_l_f1, summarize
from rea_core.retrieval.scoring import latent_units, max_pairwise_cosine
from rea_core.training.codec_data import MAX_TURNS, clean_runs, read_sessions, split_of


def words(text):
    return len(text.split())


def test_rouge_l():
    assert rouge_l_f1("the cat sat on the mat", "the cat sat on the mat") == 1.0
    assert rouge_l_f1("", "anything") == 0.0 and rouge_l_f1("dog", "cat") == 0.0
    # LCS "the cat the mat" = 4 of 6 reference tokens and 5 prediction tokens
    assert rouge_l_f1("the cat on the mat", "the cat sat down the mat") == pytest.approx(
        2 * (4 / 5) * (4 / 6) / (4 / 5 + 4 / 6)
    )


def test_gap_recovered():
    assert gap_recovered(3.0, 2.0, 1.0) == pytest.approx(0.5)
    assert gap_recovered(3.0, 3.5, 1.0) == pytest.approx(-0.25)  # worse than omitting
    assert gap_recovered(2.0, 1.0, 2.0) is None  # no gap to recover


def test_probe_turns_spread_and_include_last():
    assert probe_turns(2, 2) == [1]
    assert probe_turns(10, 2) == [1, 9]
    assert probe_turns(10, 3)[-1] == 9 and len(probe_turns(10, 3)) == 3


def test_clean_runs_apply_a3_filters():
    good = (
        "please tell me something interesting about whales today",
        "whales are mammals that breathe air and sing long songs",
    )
    code = ("fix this", "```python\nprint(1)\n```")
    short = ("hi", "hello")
    runs = list(clean_runs([good, good, good, code, good, good, short, good, good, good, good], words, 2000))
    assert [len(r) for r in runs] == [3, 4]  # broken by the code block and the short turn; 2-turn run dropped
    long_run = list(clean_runs([good] * (MAX_TURNS + 4), words, 2000))
    assert [len(r) for r in long_run] == [MAX_TURNS, 4]


def test_split_is_stable():
    assert split_of("sharegpt-1.0", 0.05) == split_of("sharegpt-1.0", 0.05)
    shares = [split_of(f"s{i}", 0.2) == "heldout" for i in range(2000)]
    assert 0.15 < np.mean(shares) < 0.25


def test_read_sessions_names_the_bad_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"id": "a", "turns": [{"user": "u", "reply": "r"}, {"user": "u2", "reply": "r2"}]}\n'
        '{"id": "b", "turns": [{"user": "x"}]}\n'
    )
    with pytest.raises(DataFormatError, match=r"s.jsonl:2: not a codec training session"):
        read_sessions(path)


def test_latent_units_layout_and_scoring():
    rng = np.random.default_rng(0)
    blocks = [[rng.standard_normal((8, 16)), rng.standard_normal((8, 16))] for _ in range(3)]
    units, starts = latent_units(blocks)
    assert units.shape == (48, 16) and starts.tolist() == [0, 16, 32]
    np.testing.assert_allclose(np.linalg.norm(units, axis=1), 1.0, rtol=1e-5)
    query = blocks[1][1][:2] / np.linalg.norm(blocks[1][1][:2], axis=1, keepdims=True)
    scores = max_pairwise_cosine(query.astype(np.float32), units, starts)
    assert int(np.argmax(scores)) == 1 and scores[1] == pytest.approx(1.0, abs=1e-5)


def test_summarize_scorers_against_oracle():
    rows = [
        {
            "nll_raw": 1.0,
            "nll_latent": 2.0,
            "nll_text": 2.5,
            "nll_extractive": 2.2,
            "nll_user": 2.5,
            "nll_omit": 3.0,
            "nll_raw_base": 1.0,
            "nll_omit_base": 3.0,
            "tokens_raw": 100,
            "tokens_latent": 20,
            "tokens_text": 40,
            "tokens_extractive": 30,
            "tokens_user": 10,
            "tokens_omit": 0,
        }
    ]
    retrieval = [
        {"candidates": [0, 1, 2], "nll_gain": [0.1, 0.5, 0.0], "minilm": [0.2, 0.9, 0.1], "latent": [0.9, 0.1, 0.2]}
    ]
    r = summarize(rows, [], retrieval)
    assert r["gap_recovered"]["latent"] == pytest.approx(0.5) and r["target_met"]
    assert r["reply_gap_recovered"]["latent"] == pytest.approx(1 / 3) and r["reply_gap_recovered"][
        "text"
    ] == pytest.approx(0.0)
    assert r["scorers"]["minilm"]["top1_agreement"] == 1.0 and r["scorers"]["latent"]["top1_agreement"] == 0.0
    assert r["scorers"]["chance_top1"] == pytest.approx(1 / 3)


def test_make_codec_sessions_command_filters_and_splits(tmp_path):
    from typer.testing import CliRunner

    from rea_core.cli.main import app

    out = tmp_path / "sessions.jsonl"
    result = CliRunner().invoke(
        app, ["data", "make-codec-sessions", "--out", str(out), "--limit-per-source", "20", "--heldout-share", "0.3"]
    )
    assert result.exit_code == 0, result.output
    sessions = read_sessions(out)
    assert {s.source for s in sessions} == {"sharegpt", "chitchat"} and len(sessions) == 40
    assert all(3 <= len(s.turns) <= MAX_TURNS for s in sessions)
    assert all(
        "```" not in t["user"] + t["reply"] and len((t["user"] + " " + t["reply"]).split()) >= 10
        for s in sessions
        for t in s.turns
    )
    assert {s.split for s in sessions} == {"train", "heldout"}


def test_train_compressor_refuses_unknown_preset(tmp_path):
    from typer.testing import CliRunner

    from rea_core.cli.main import app

    data = tmp_path / "s.jsonl"
    data.write_text('{"id": "a", "turns": [{"user": "u", "reply": "r"}, {"user": "u2", "reply": "r2"}]}\n')
    result = CliRunner().invoke(
        app, ["train", "compressor", "--data", str(data), "--out", str(tmp_path / "run"), "--preset", "tpu"]
    )
    assert result.exit_code == 2 and "unknown preset 'tpu'" in result.output


def test_choose_form_follows_the_measurements_record():
    from rea_core.compression.forms import choose_form, measurements_record

    record = {
        "format": "rea-codec-measurements",
        "forms": {"latent-encode": {"gap_share": 0.34}, "text": {"gap_share": 0.77}, "extractive": {"gap_share": 0.8}},
    }
    text = choose_form(record, writer_key="encode")
    assert (text.form, text.measure, text.gap_share) == ("text", "text", 0.77) and "latent: 0.340" in text.reason
    assert choose_form(record, writer_key="encode", text_form="extractive").form == "text"
    record["forms"]["latent-optimize-generate"] = {"gap_share": 0.77}  # a tie goes to the latents (fewer positions)
    assert choose_form(record, writer_key="optimize-generate").form == "latent"
    assert choose_form(record, writer_key="optimize-none").form == "text"  # never measured: not chosen
    assert choose_form(record, writer_key="encode", forced="latent").form == "latent"
    assert choose_form(record, writer_key="optimize-generate", forced="text").form == "text"
    assert choose_form(None, writer_key="encode").form == "latent"  # no record: the codec, as before
    with pytest.raises(ValueError, match="text_form"):
        choose_form(record, writer_key="encode", text_form="middle")
    results = {
        "probes": 4,
        "gap_recovered": {"latent": 0.2, "text": 0.7},
        "reply_gap_recovered": {"latent": -0.1, "text": 0.6},
        "mean_tokens": {"latent": 30.0, "text": 50.0},
    }
    made = measurements_record(results, forms={"latent": "latent-encode", "text": "text"}, source="test")
    assert (
        choose_form(made, writer_key="encode").measure == "text"
        and made["forms"]["latent-encode"]["beyond_user"] == -0.1
    )
    with pytest.raises(ValueError, match="no gap share"):
        measurements_record(results, forms={"optimized": "latent-optimize-generate"}, source="test")


def test_summarize_takes_each_latent_form_against_its_own_reader():
    rows = [
        {
            "nll_raw": 1.0,
            "nll_omit": 3.0,
            "nll_user": 2.5,
            "nll_latent": 2.0,
            "nll_optimized_plain": 1.5,
            "nll_raw@plain": 0.5,
            "nll_omit@plain": 2.5,
            "nll_user@plain": 2.0,
            **{f"tokens_{f}": 10 for f in ("raw", "omit", "user", "latent", "optimized_plain")},
        }
    ]
    r = summarize(rows, [], [], forms=("raw", "omit", "user", "latent", "optimized_plain"), readers=("plain",))
    assert r["gap_recovered"]["latent"] == pytest.approx(0.5)
    assert r["gap_recovered"]["optimized_plain"] == pytest.approx(0.5) and r["reply_gap_recovered"][
        "optimized_plain"
    ] == pytest.approx(1 / 3)
