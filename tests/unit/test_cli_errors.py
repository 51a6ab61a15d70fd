"""CLI behaviour that needs no model: errors come out as one line, never a traceback."""

import json

from typer.testing import CliRunner

from rea_core.cli.main import app

runner = CliRunner()


def test_help_lists_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("chat", "recognize", "replay"):
        assert command in result.output


def test_replay_malformed_jsonl_names_line_before_loading_any_model(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "a", "turns": [{"user": "hi"}]}) + "\n{broken\n")
    result = runner.invoke(app, ["replay", str(path), "--model", "/no/such/model"])
    assert result.exit_code == 2
    assert f"{path}:2" in result.output and "Traceback" not in result.output


def test_bad_thresholds_and_strategy(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps({"id": "a", "turns": [{"user": "hi"}]}) + "\n")
    result = runner.invoke(app, ["replay", str(path), "--tau-low", "0.9", "--tau-high", "0.2"])
    assert result.exit_code == 2 and "must not exceed" in result.output
    result = runner.invoke(app, ["replay", str(path), "--strategy", "nope"])
    assert result.exit_code == 2 and "choose from" in result.output


def test_unloadable_model_is_one_message(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps({"id": "a", "turns": [{"user": "hi"}]}) + "\n")
    result = runner.invoke(app, ["replay", str(path), "--model", str(tmp_path / "missing-model")])
    assert result.exit_code == 2
    assert "Could not load the generator" in result.output and "missing-model" in result.output
    assert "Traceback" not in result.output


def test_recognize_rules_only_and_empty_input():
    result = runner.invoke(app, ["recognize", "--rules-only", "--json", "From now on, answer in lowercase."])
    assert result.exit_code == 0
    assert json.loads(result.output)["label"] == "global"
    result = runner.invoke(app, ["recognize", "   "])
    assert result.exit_code == 2 and "empty" in result.output


def test_train_recognizer_from_a_label_file_reports_bad_input(tmp_path):
    missing = runner.invoke(app, ["train", "recognizer", "--labels", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "r.json")])
    assert missing.exit_code == 2 and "no such label-set file" in missing.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "Always answer in French.", "label": "global", "split": "later"}\n')
    result = runner.invoke(app, ["train", "recognizer", "--labels", str(bad), "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "bad.jsonl:1" in result.output and "split" in result.output
    assert not (tmp_path / "r.json").exists()
