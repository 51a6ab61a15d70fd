"""Conversational query rewriting (retrieval/rewrite.py): the prompt, the output cleaner, the
fallback when the generator fails, and its settings. No model: the server test is in tests/model."""

from __future__ import annotations

import json
import logging

import pytest
from typer.testing import CliRunner

from rea_core import REAConfig, Settings
from rea_core.cli.main import app
from rea_core.errors import ServingError
from rea_core.memory.episodic import Exchange
from rea_core.retrieval.rewrite import MAX_REWRITE_CHARS, Rewrite, clean_rewrite, rewrite_messages, rewrite_query

EXCHANGES = [Exchange(turn=i, user=f"user message {i}", reply=f"assistant reply {i}") for i in range(5)]


class FailingServer:
    """A generator whose every call fails, as a down or broken model server's does."""

    name, context_window = "failing", 2048

    def __init__(self, exc: Exception):
        self.exc, self.calls = exc, 0

    def generate(self, messages, *, max_new_tokens, max_prompt_tokens=None, cache_key=None):
        self.calls += 1
        raise self.exc


def test_messages_hold_the_instruction_the_last_turns_exchanges_and_the_query():
    system, user = rewrite_messages(EXCHANGES, "  make it shorter  ", turns=3)
    assert system["role"] == "system" and "standalone" in system["content"] and "Output only" in system["content"]
    text = user["content"]
    assert user["role"] == "user" and text.rstrip().endswith("Standalone version:")
    assert "Last message: make it shorter\n" in text
    for i in range(5):
        assert (f"user message {i}" in text) == (i >= 2) and (f"assistant reply {i}" in text) == (i >= 2)
    assert text.index("user message 2") < text.index("user message 3") < text.index("user message 4")  # oldest first
    assert "user message" not in rewrite_messages(EXCHANGES, "q", turns=0)[1]["content"]


def test_long_messages_are_clipped_in_the_prompt():
    long = [Exchange(turn=0, user="a poem please", reply="word " * 1000)]
    content = rewrite_messages(long, "shorter?")[1]["content"]
    assert len(content) < 1000 and "word word" in content and " ..." in content


@pytest.mark.parametrize(
    "output, expected",
    [
        ("Make the sea poem shorter.", "Make the sea poem shorter."),
        ('"Make the sea poem shorter."', "Make the sea poem shorter."),
        ("Rewritten: Make the sea poem shorter.\nHere is why ...", "Make the sea poem shorter."),
        (
            '**Standalone question:** "Which coffee shop name suits a 24-year-old?"',
            "Which coffee shop name suits a 24-year-old?",
        ),
        ("Standalone version:\n\n  How often should I repot the fig?", "How often should I repot the fig?"),
        ("```\nTranslate the recipe into Japanese.\n```", "Translate the recipe into Japanese."),
        (
            "Query-based retrieval: how does it work?",
            "Query-based retrieval: how does it work?",
        ),  # a word, not a label
        ("Tell me about 'Tide' and 'Grind'", "Tell me about 'Tide' and 'Grind'"),  # inner quotes stay
    ],
)
def test_output_is_cleaned_to_the_first_line_without_labels_or_quotes(output, expected):
    assert clean_rewrite(output) == expected


@pytest.mark.parametrize("output", ["", "   \n\n ", '""', "Rewritten:", "```\n```", "x" * (MAX_REWRITE_CHARS + 1)])
def test_empty_or_overlong_output_is_rejected(output):
    assert clean_rewrite(output) is None


@pytest.mark.parametrize(
    "exc",
    [
        ServingError("cannot reach the model server"),
        ConnectionRefusedError("refused"),
        TimeoutError("no answer in 60 s"),
    ],
)
def test_a_failing_generator_falls_back_to_the_original_query(exc, caplog):
    server = FailingServer(exc)
    with caplog.at_level(logging.WARNING, logger="rea_core.retrieval.rewrite"):
        result = rewrite_query(server, EXCHANGES, "make it shorter", turns=3)
    assert server.calls == 1
    assert result == Rewrite(
        original="make it shorter", text="make it shorter", rewritten=False, error=result.error, seconds=result.seconds
    )
    assert type(exc).__name__ in result.error and str(exc) in result.error and result.seconds >= 0
    assert "query rewrite failed" in caplog.text


def test_nothing_to_resolve_makes_no_model_call():
    server = FailingServer(ServingError("must not be called"))
    for exchanges, query, turns in (
        ([], "make it shorter", 3),
        (EXCHANGES, "make it shorter", 0),
        (EXCHANGES, "long " * 400, 3),
    ):
        result = rewrite_query(server, exchanges, query, turns=turns)
        assert (
            not result.rewritten and result.error is None and result.text == result.original and result.seconds == 0.0
        )
    assert server.calls == 0


def test_settings_default_off_validate_and_come_from_the_environment(monkeypatch):
    cfg = REAConfig()
    assert cfg.query_rewrite is False and cfg.rewrite_turns == 3
    assert Settings.from_dict(Settings(rea=cfg).to_dict()).rea == cfg
    with pytest.raises(ValueError, match="rewrite_turns"):
        REAConfig(rewrite_turns=0)
    monkeypatch.setenv("REA_QUERY_REWRITE", "true")
    monkeypatch.setenv("REA_REWRITE_TURNS", "5")
    assert Settings.from_env().rea.query_rewrite is True and Settings.from_env().rea.rewrite_turns == 5
    assert (
        Settings.from_env(rea={"query_rewrite": False}).rea.query_rewrite is False
    )  # --no-query-rewrite beats the environment
    for raw, value in (("1", True), ("0", False), ("FALSE", False), ("on", True)):
        monkeypatch.setenv("REA_QUERY_REWRITE", raw)
        assert Settings.from_env().rea.query_rewrite is value
    monkeypatch.setenv("REA_QUERY_REWRITE", "maybe")
    with pytest.raises(ValueError, match="REA_QUERY_REWRITE"):
        Settings.from_env()


def test_cli_takes_the_flag_and_reports_a_bad_environment_value_before_loading_a_model(tmp_path, monkeypatch):
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps({"id": "a", "turns": [{"user": "hi"}]}) + "\n")
    runner = CliRunner()
    assert "--query-rewrite" in runner.invoke(app, ["chat", "--help"]).output
    monkeypatch.setenv("REA_QUERY_REWRITE", "maybe")
    result = runner.invoke(app, ["replay", str(path), "--query-rewrite", "--model", str(tmp_path / "missing-model")])
    assert (
        result.exit_code == 2
        and "REA_QUERY_REWRITE must be 1 or 0" in result.output
        and "Traceback" not in result.output
    )
