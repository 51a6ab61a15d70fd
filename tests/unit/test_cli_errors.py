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
    missing = runner.invoke(
        app, ["train", "recognizer", "--labels", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "r.json")]
    )
    assert missing.exit_code == 2 and "no such label-set file" in missing.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "Always answer in French.", "label": "global", "split": "later"}\n')
    result = runner.invoke(app, ["train", "recognizer", "--labels", str(bad), "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "bad.jsonl:1" in result.output and "split" in result.output
    assert not (tmp_path / "r.json").exists()


# -- every bad input is one "error:" line and exit status 2 ------------------------------

import pytest  # noqa: E402


def _one_error_line(result, *expected: str):
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for text in expected:
        assert text in lines[0], lines[0]


@pytest.fixture
def db_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cli.db'}"


@pytest.mark.parametrize(
    "content, expected",
    [
        ('{"text": "hi", "labels": 5}', "'labels' must be a list"),
        ('{"text": "hi", "adjudicated": "global", "adjudicator": {"x": 1}}', "must be a string, not dict"),
        ('{"text": "hi", "context": "' + "x" * 20_001 + '"}', "'context' is longer than 20,000"),
        ('{"text": "a\\u0000b"}', "NUL character"),
        ('{"text": "hi", "labels": [{"annotator": "' + "n" * 101 + '", "label": "task"}]}', "longer than 100"),
        ('{"text": 1' + "0" * 5000 + "}", "not usable JSON"),
        ("[" * 100_000, "nested 100000 levels deep"),
        ('{"text": "hi \\ud800"}', "lone surrogate"),
    ],
)
def test_import_bad_jsonl_rows(tmp_path, db_url, content, expected):
    path = tmp_path / "rows.jsonl"
    path.write_text(content + "\n", encoding="utf-8")
    _one_error_line(
        runner.invoke(app, ["annotations", "import", str(path), "--db", db_url]),
        "rows.jsonl:1",
        expected,
        "nothing was imported",
    )


def test_import_csv_field_over_the_csv_limit(tmp_path, db_url):
    path = tmp_path / "rows.csv"
    path.write_text("text\nshort\n" + "x" * 140_000 + "\n", encoding="utf-8")
    _one_error_line(
        runner.invoke(app, ["annotations", "import", str(path), "--db", db_url]), "rows.csv:3", "not readable CSV"
    )


def test_import_a_folder_and_a_non_utf8_file(tmp_path, db_url):
    folder = tmp_path / "rows.jsonl"
    folder.mkdir()
    _one_error_line(runner.invoke(app, ["annotations", "import", str(folder), "--db", db_url]), "is a folder")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"text": "caf\xe9"}\n'.encode("latin-1"))
    _one_error_line(runner.invoke(app, ["annotations", "import", str(latin), "--db", db_url]), "not UTF-8")


@pytest.mark.parametrize(
    "url, expected", [("notaurl", "is not a URL"), ("mysql://u:pw@localhost/db", "'mysql' is not supported")]
)
def test_bad_database_urls(url, expected):
    for command in (["annotations", "stats"], ["db", "upgrade"], ["train", "versions"]):
        result = runner.invoke(app, [*command, "--db", url])
        _one_error_line(result, expected)
        assert "pw" not in result.output


def test_export_to_a_missing_folder(tmp_path, db_url):
    out = tmp_path / "nonexistent" / "x.csv"
    _one_error_line(
        runner.invoke(app, ["annotations", "export", "--format", "csv", "--out", str(out), "--db", db_url]),
        "cannot write",
        "nothing was written",
    )
    assert not out.parent.exists()


def test_replay_refuses_two_strategies_and_limit_zero_before_loading(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps({"id": "a", "turns": [{"user": "hi"}]}) + "\n")
    # --model points nowhere: reaching the model load would give a different error
    _one_error_line(
        runner.invoke(app, ["replay", str(path), "--strategy", "rea,vanilla", "--model", "/no/such/model"]),
        "one strategy",
    )
    _one_error_line(
        runner.invoke(app, ["replay", str(path), "--limit", "0", "--model", "/no/such/model"]),
        "--limit must be at least 1",
    )


def test_replay_refuses_more_turns_than_the_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("REA_MAX_TURNS", "3")
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"id": "a", "turns": [{"user": f"hi {i}"} for i in range(4)]}) + "\n")
    _one_error_line(
        runner.invoke(app, ["replay", str(path), "--model", "/no/such/model"]),
        "long.jsonl:1: 4 turns, over the limit of 3",
    )


def test_app_with_a_malformed_limit_stops_before_loading_models():
    result = runner.invoke(app, ["app", "--model", "/no/such/model"], env={"REA_MAX_TURNS": "lots"})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1] == "error: REA_MAX_TURNS='lots' is not a whole number"
