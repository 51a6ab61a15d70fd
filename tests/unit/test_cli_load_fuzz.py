"""A seeded fuzz of every ``rea`` command that reads a user's file, run in-process with CliRunner.

Each malformed file (``tests/malformed.py``: cut-off JSON, lone surrogates, NUL, deep nesting,
numbers JSON cannot carry, an empty file, a wrong top-level type, a required field missing or of
another type) must end in exit status 2 and one ``error:`` line, before any model loads: the
model loader is replaced by a tripwire here, and the same harness shows each valid file reaching
it, so a refusal is the loader's and no model is needed. A refused import leaves the database as
it was, and an empty import is an error.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from malformed import malform
from typer.main import get_command

from rea_core.cli import conversation, evaluate, retrieval_cmd
from rea_core.cli.main import app as typer_app
from rea_core.errors import REAError

SEED = 24
CASES = 80  # per command; a few ms each, no model
runner = CliRunner()
app = get_command(typer_app)  # built once: typer rebuilds it on every CliRunner call (0.1-0.3 s)

CONVERSATION = {
    "id": "c",
    "turns": [
        {"user": "I adopted a cat named Miso.", "assistant": "What a lovely name."},
        {"user": "I work as a nurse.", "assistant": "That is demanding work."},
        {"user": "What is my cat called?", "needed": [0], "answer": "Miso"},
    ],
}
CONVERSATION_REQUIRED = [("id",), ("turns",), ("turns", 0, "user"), ("turns", 2, "user")]
LOCOMO = {
    "sample_id": "conv-1",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely!"},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "I work as a nurse."},
        {"speaker": "Ben", "dia_id": "D1:4", "text": "Demanding work."},
    ],
    "qa": [{"question": "What is Ana's cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 4}],
}
LOCOMO_REQUIRED = [("qa",), ("session_1",), ("qa", 0, "evidence"), ("session_1", 0, "dia_id")]
ROW = {
    "text": "From now on, answer in French.",
    "source": "fuzz",
    "labels": [{"annotator": "bob", "label": "global"}],
}
ROW_REQUIRED = [("text",), ("labels", 0, "annotator"), ("labels", 0, "label")]

# (name, valid document, required paths, one JSON document per line, argv for the file and a run folder)
TARGETS = [
    ("replay", CONVERSATION, CONVERSATION_REQUIRED, True, lambda f, o: ["replay", f]),
    (
        "eval retrieval",
        CONVERSATION,
        [*CONVERSATION_REQUIRED, ("turns", 2, "needed")],
        True,
        lambda f, o: ["eval", "retrieval", "--data", f, "--out", o],
    ),
    (
        "eval qa",
        CONVERSATION,
        [*CONVERSATION_REQUIRED, ("turns", 2, "answer")],
        True,
        lambda f, o: ["eval", "qa", "--data", f, "--out", o],
    ),
    (
        "eval retrieval (locomo)",
        LOCOMO,
        LOCOMO_REQUIRED,
        False,
        lambda f, o: ["eval", "retrieval", "--data", f, "--format", "locomo", "--out", o],
    ),
    (
        "eval qa (locomo)",
        LOCOMO,
        LOCOMO_REQUIRED,
        False,
        lambda f, o: ["eval", "qa", "--data", f, "--format", "locomo", "--out", o],
    ),
]


class ModelLoadReached(REAError):
    """Raised by the tripwire in place of a model load: the file passed every check."""


@pytest.fixture
def tripwire(monkeypatch):
    def load_pipeline(*_args, **_kwargs):
        raise ModelLoadReached("reached the model load")

    for module in (evaluate, retrieval_cmd, conversation):
        monkeypatch.setattr(module, "load_pipeline", load_pipeline)


def _one_error_line(result, case: str) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, f"{case}: exit {result.exit_code}\n{result.output}"
    assert len(lines) == 1 and lines[0].startswith("error: "), f"{case}:\n{result.output}"
    assert "Traceback" not in result.output and "reached the model load" not in lines[0], f"{case}: {lines[0]}"
    return lines[0]


def _write(rng: random.Random, path, valid, required, lines: bool) -> str:
    kind, data = malform(rng, valid, required, lines=lines)
    # A bad line after a good one is refused as well (a missing "needed" only leaves a line without queries).
    if lines and kind not in ("empty", "missing") and rng.random() < 0.3:
        data = json.dumps({**valid, "id": "first"}).encode() + b"\n" + data
    path.write_bytes(data)
    return kind


@pytest.mark.parametrize("name, valid, required, lines, argv", TARGETS, ids=[t[0] for t in TARGETS])
def test_malformed_files_refused_before_any_model(tmp_path, tripwire, name, valid, required, lines, argv):
    path, out = tmp_path / ("data.jsonl" if lines else "data.json"), str(tmp_path / "run")
    path.write_text(json.dumps(valid) + "\n", encoding="utf-8")
    control = runner.invoke(app, argv(str(path), out))
    assert "reached the model load" in control.output, control.output  # the valid file gets through
    rng = random.Random(f"{SEED}:{name}")
    kinds = set()
    for case in range(CASES):
        kind = _write(rng, path, valid, required, lines)
        kinds.add(kind)
        _one_error_line(runner.invoke(app, argv(str(path), out)), f"{name} case {case} ({kind})")
    assert len(kinds) >= 8  # the cases cover most mutations


def test_out_refused_before_any_model(tmp_path, tripwire):
    data = tmp_path / "ok.jsonl"
    data.write_text(json.dumps(CONVERSATION) + "\n", encoding="utf-8")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for out, expected in ((a_file, "exists and is not a folder"), (a_file / "below", "is not a folder")):
        for command in (["eval", "retrieval"], ["eval", "qa"], ["eval", "adherence"]):
            line = _one_error_line(
                runner.invoke(app, [*command, "--data", str(data), "--out", str(out)]), f"{command} --out {out}"
            )
            assert expected in line, line
    line = _one_error_line(runner.invoke(app, ["data", "make-state", "--out", str(tmp_path)]), "make-state")
    assert "is a folder" in line


def test_import_fuzz_refuses_and_writes_nothing(tmp_path):
    db = f"sqlite:///{tmp_path / 'labels.db'}"
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["annotations", "import", str(path), "--db", db]).exit_code == 0  # the control
    before = runner.invoke(app, ["annotations", "stats", "--db", db]).output
    rng = random.Random(f"{SEED}:import")
    for case in range(CASES):
        _write(rng, path, {**ROW, "text": f"Row {case}: answer in French."}, ROW_REQUIRED, True)
        line = _one_error_line(runner.invoke(app, ["annotations", "import", str(path), "--db", db]), f"case {case}")
        assert "nothing was imported" in line
    for annotator in ("bo\x01b", "a\x00", "\x1b[31mred", "tab\tname"):  # a control character in a name
        path.write_text(json.dumps({"text": "Hello there.", "label": "global"}) + "\n", encoding="utf-8")
        line = _one_error_line(
            runner.invoke(app, ["annotations", "import", str(path), "--annotator", annotator, "--db", db]), annotator
        )
        assert "annotator" in line
    assert runner.invoke(app, ["annotations", "stats", "--db", db]).output == before  # nothing was added


def test_store_commands_on_junk(tmp_path):
    rng = random.Random(f"{SEED}:db")
    junk = tmp_path / "junk.db"
    for case, content in enumerate([b"not a database " * 300, rng.randbytes(8192), b'{"id": 1}\n' * 50]):
        junk.write_bytes(content)
        _one_error_line(runner.invoke(app, ["annotations", "stats", "--db", f"sqlite:///{junk}"]), f"junk {case}")
    db = f"sqlite:///{tmp_path / 'ok.db'}"
    for version in ("²", "٣", "3.0", "1e3", " 3", "", "x\x00", "\ud800"):
        _one_error_line(runner.invoke(app, ["train", "use", version, "--db", db]), f"train use {version!r}")
