"""The edges of every loader a user's file reaches, no model needed.

* A turn over ``REA_MAX_MESSAGE_CHARS`` is refused by every ``rea`` command that reads a
  conversation file, in one ``error:`` line naming the limit, before any model loads (a
  120-million-character turn once ran for minutes in ``rea eval retrieval``). The model loaders are
  replaced by a tripwire, and the same file without its long turn reaches it.
* JSONL is split on "\\n" only: a line holding U+2028 or U+0085 (legal raw inside a JSON string,
  and written raw by every export here, ``ensure_ascii=False``) re-imports.
* ``json_depth`` streams: exact on brackets and escapes that straddle its windows, with a bounded
  peak of memory (the time and memory numbers: ``benchmarks/json_depth.py``).
"""

from __future__ import annotations

import json
import re
import tracemalloc

import pytest
from click.testing import CliRunner
from typer.main import get_command

import rea_core.backends
from rea_core.cli import conversation, evaluate, retrieval_cmd
from rea_core.cli.main import app as typer_app
from rea_core.errors import REAError
from rea_core.evals.retrieval import load_needed_jsonl
from rea_core.evals.runner import RecordStore
from rea_core.evals.state import make_state_suite
from rea_core.evals.suites import make_adherence_suite
from rea_core.runtime import DEFAULT_MAX_MESSAGE_CHARS
from rea_core.validation import MAX_JSON_DEPTH, json_depth, parse_json

runner = CliRunner()
app = get_command(typer_app)
HUGE = 3_000_000  # characters: far over the default cap, a few MB of JSON, parsed in milliseconds
SEPARATORS = "line\u2028separator, next\u0085line, paragraph\u2029end"


class ModelLoadReached(REAError):
    """Raised in place of a model load: the file passed every check."""


@pytest.fixture
def tripwire(monkeypatch):
    def load(*_args, **_kwargs):
        raise ModelLoadReached("reached the model load")

    for module in (evaluate, retrieval_cmd, conversation):
        monkeypatch.setattr(module, "load_pipeline", load)
    monkeypatch.setattr(rea_core.backends, "load_generator", load)  # the codec commands load it alone


def _conversation(text: str) -> dict:
    return {
        "id": "c",
        "turns": [
            {"user": text, "assistant": "What a lovely name."},
            {"user": "I work as a nurse.", "assistant": "That is demanding work."},
            {"user": "What is my cat called?", "needed": [0], "answer": "Miso"},
        ],
    }


def _locomo(text: str) -> dict:
    return {
        "sample_id": "conv-1",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": text},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely!"},
        ],
        "qa": [{"question": "What is Ana's cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 4}],
    }


def _adherence(text: str) -> dict:
    case = make_adherence_suite(n=1, turns=8, seed=0)[0]
    case["turns"][1]["user"] = text
    return case


def _state(text: str) -> dict:
    case = make_state_suite(n=1, seed=0)[0]
    case["turns"][0]["user"] = text
    return case


def _gold(text: str) -> dict:
    turns = [{"user": text, "assistant": "Lovely."}, {"user": "Now, taxes.", "assistant": "Sure."}]
    return {"id": "g", "turns": turns, "boundaries": [1]}


def _codec(split: str):
    def session(text: str) -> dict:
        return {
            "id": "s",
            "split": split,
            "turns": [{"user": text, "reply": "Nice."}, {"user": "Hi.", "reply": "Hi!"}],
        }

    return session


# (command, a document holding ``text`` in one turn, JSON Lines (else one JSON file), argv for the file and --out)
TARGETS = [
    ("eval retrieval", _conversation, True, lambda f, o: ["eval", "retrieval", "--data", f, "--out", o]),
    ("eval qa", _conversation, True, lambda f, o: ["eval", "qa", "--data", f, "--out", o]),
    (
        "eval retrieval (locomo)",
        _locomo,
        False,
        lambda f, o: ["eval", "retrieval", "--data", f, "--format", "locomo", "--out", o],
    ),
    ("eval qa (locomo)", _locomo, False, lambda f, o: ["eval", "qa", "--data", f, "--format", "locomo", "--out", o]),
    ("eval adherence", _adherence, True, lambda f, o: ["eval", "adherence", "--data", f, "--out", o]),
    ("eval ablations", _adherence, True, lambda f, o: ["eval", "ablations", "--data", f, "--out", o]),
    ("eval sweep", _adherence, True, lambda f, o: ["eval", "sweep", "--data", f, "--out", o]),
    ("eval state", _state, True, lambda f, o: ["eval", "state", "--data", f, "--out", o]),
    ("eval segmentation", _gold, True, lambda f, o: ["eval", "segmentation", "--data", f, "--out", o]),
    ("replay", _conversation, True, lambda f, o: ["replay", f]),
    ("train compressor", _codec("train"), True, lambda f, o: ["train", "compressor", "--data", f, "--out", o]),
    ("eval compression", _codec("heldout"), True, lambda f, o: ["eval", "compression", "--data", f, "--out", o]),
]


def _one_error_line(result, case: str) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, f"{case}: exit {result.exit_code}\n{result.output[:2000]}"
    assert len(lines) == 1 and lines[0].startswith("error: "), f"{case}:\n{result.output[:2000]}"
    assert "reached the model load" not in lines[0], f"{case}: {lines[0]}"
    return lines[0]


@pytest.mark.parametrize("name, make, lines, argv", TARGETS, ids=[t[0] for t in TARGETS])
def test_a_huge_turn_is_refused_with_the_limit_before_any_model(tmp_path, tripwire, name, make, lines, argv):
    path, out = tmp_path / ("data.jsonl" if lines else "data.json"), str(tmp_path / "run")
    path.write_text(json.dumps(make("I adopted a cat named Miso.")) + "\n", encoding="utf-8")
    control = runner.invoke(app, argv(str(path), out))
    assert "reached the model load" in control.output, control.output  # the same file, one short turn: no refusal
    path.write_text(json.dumps(make("x" * HUGE)) + "\n", encoding="utf-8")
    line = _one_error_line(runner.invoke(app, argv(str(path), out)), name)
    over = rf"has {HUGE // 1000:,},0\d\d characters"  # LoCoMo counts the "Ana: " of its turn too
    assert re.search(rf"{over}, over the limit of {DEFAULT_MAX_MESSAGE_CHARS:,} \(REA_MAX_MESSAGE_CHARS\)", line), line
    # The setting is the limit: 200 characters pass the default and not a cap of 100.
    path.write_text(json.dumps(make("y" * 200)) + "\n", encoding="utf-8")
    assert "reached the model load" in runner.invoke(app, argv(str(path), out)).output
    capped = runner.invoke(app, argv(str(path), out), env={"REA_MAX_MESSAGE_CHARS": "100"})
    line = _one_error_line(capped, name)
    assert re.search(r"has 20\d characters, over the limit of 100 \(REA_MAX_MESSAGE_CHARS\)", line), line


def test_a_huge_question_or_answer_is_refused_too(tmp_path, tripwire):
    path, out = tmp_path / "data.json", str(tmp_path / "run")
    for field in ("question", "answer"):
        data = _locomo("I adopted a cat named Miso.")
        data["qa"][0][field] = "z" * HUGE
        path.write_text(json.dumps(data), encoding="utf-8")
        line = _one_error_line(
            runner.invoke(app, ["eval", "qa", "--data", str(path), "--format", "locomo", "--out", out]), field
        )
        assert f'LoCoMo conversation 0: conv-1: the {field} of "qa" 0 has {HUGE:,} characters' in line
    path = tmp_path / "data.jsonl"
    data = _conversation("I adopted a cat named Miso.")
    data["turns"][2]["answer"] = "z" * HUGE
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    line = _one_error_line(runner.invoke(app, ["eval", "qa", "--data", str(path), "--out", out]), "jsonl answer")
    assert f'data.jsonl:1: turn 2 "answer" has {HUGE:,} characters' in line


# -- JSONL lines -----------------------------------------------------------------------------------


def test_marks_export_with_unicode_separators_reimports(tmp_path):
    from annotations import create_db_engine, export_failure_marks_jsonl, session_factory, upgrade
    from annotations.marks import add_failure_mark

    url = f"sqlite:///{tmp_path / 'marks.db'}"
    upgrade(url)
    Session = session_factory(create_db_engine(url))
    turns = [
        {"user": f"I adopted a cat named Miso. {SEPARATORS}", "assistant": f"Lovely. {SEPARATORS}"},
        {"user": "I work as a nurse.", "assistant": "Demanding work."},
        {"user": f"What is my cat called? {SEPARATORS}", "assistant": "Miso."},
    ]
    with Session() as db:
        add_failure_mark(
            db,
            annotator="ana",
            conversation_id="cafe\u2028id",
            query_turn=2,
            exchange_turn=0,
            query_text=turns[2]["user"],
            exchange_user=turns[0]["user"],
            exchange_reply=turns[0]["assistant"],
            score=0.1,
            tau_low=0.5,
            tau_high=0.7,
            source="test.jsonl",
            context=json.dumps(turns),
        )
        out = tmp_path / "marks.jsonl"
        assert export_failure_marks_jsonl(db, out) == 1
    assert "\u2028" in out.read_text(encoding="utf-8")  # written raw (ensure_ascii=False), as a reader meets it
    (case,) = load_needed_jsonl(out)  # the input of rea eval retrieval and of Inspect
    assert case.id == "cafe\u2028id" and case.exchanges[0] == (turns[0]["user"], turns[0]["assistant"])
    assert case.queries[0].text == turns[2]["user"] and case.queries[0].needed == (0,)


def test_label_export_with_unicode_separators_reimports(tmp_path):
    first, second = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    rows, exported = tmp_path / "rows.jsonl", tmp_path / "export.jsonl"
    text = f"From now on, answer in French. {SEPARATORS}"
    rows.write_text(json.dumps({"text": text, "label": "global"}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["annotations", "import", str(rows), "--annotator", "ana", "--db", first]).exit_code == 0
    result = runner.invoke(app, ["annotations", "export", "--out", str(exported), "--db", first])
    assert result.exit_code == 0, result.output
    assert "\u2028" in exported.read_text(encoding="utf-8")
    result = runner.invoke(app, ["annotations", "import", str(exported), "--db", second])
    assert result.exit_code == 0, result.output
    again = tmp_path / "again.jsonl"
    assert runner.invoke(app, ["annotations", "export", "--out", str(again), "--db", second]).exit_code == 0
    (row,) = [json.loads(line) for line in again.read_text(encoding="utf-8").split("\n") if line]
    assert row["text"] == text and [x["label"] for x in row["labels"]] == ["global"]


def test_conversation_files_and_run_records_split_on_newlines_only(tmp_path):
    from rea_core import load_conversations

    path = tmp_path / "conv.jsonl"
    lines = [
        json.dumps(_conversation(f"Miso {SEPARATORS}"), ensure_ascii=False),
        json.dumps({**_conversation("x"), "id": "d"}),
    ]
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))  # CRLF as well
    first, second = load_conversations(path)
    assert first.turns[0].user == f"Miso {SEPARATORS}" and second.id == "d"
    records = RecordStore(tmp_path / "run")
    records.add("rea", "c", [{"reply": f"Sure. {SEPARATORS}"}])
    resumed = RecordStore(tmp_path / "run")  # a resumed run keeps the conversation, not redone
    assert resumed.done("rea", "c")


# -- json_depth -------------------------------------------------------------------------------------


def _depth_of(value) -> int:
    """The nesting of a decoded value, iteratively (the reference json_depth must match)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d + 1)
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


TRICKY = [
    '"["',
    '"[{"',
    "[]",
    '["]"]',
    '{"a": "}}}{{{"}',
    r'["\"[[[", [[]]]',
    r'["\\", [[["x"]]]]',
    r'["\\\"[[[\\", {"k": [1]}]',
    r'{"\\\\": "\\\\\"[", "b": [[{}]]}',
    "[" * 70 + "]" * 70,
    '["ünï[cödé", ["猫[の]", {"€": "\u2028[\u0085"}]]',
    '"' + "\\\\" * 5 + '"',
    "[" + ", ".join(['"\\\\"'] * 9) + ", [[]]]",
]


@pytest.mark.parametrize("text", TRICKY)
def test_json_depth_is_exact_at_every_window_edge(text):
    want = _depth_of(json.loads(text))
    for chunk in (*range(1, 10), 16, 64, 1 << 18):  # every bracket, quote and backslash lands on an edge
        assert json_depth(text, chunk_chars=chunk) == want, (text, chunk)


def test_json_depth_refuses_what_json_would_recurse_into():
    deep = '{"a": "' + "[" * 10 + '", "b": ' + "[" * 100 + "]" * 100 + "}"
    assert json_depth(deep, chunk_chars=7) == 101  # the brackets of the string do not count
    with pytest.raises(REAError, match=f"nested 101 levels deep, over the limit of {MAX_JSON_DEPTH}"):
        parse_json(deep, where="x.json")
    assert json_depth('"' + "[" * 100_000) == 0  # an open string: json.loads stops at it


def test_json_depth_memory_is_bounded_on_a_large_file():
    unit = json.dumps([[0], {"a": ']\\"[ \\ '}, [[[]]]])  # dense in brackets, a string holding some
    text = "[" + ",".join([unit] * (20_000_000 // len(unit))) + "]"
    tracemalloc.start()
    try:
        assert json_depth(text) == 5
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.1f} MB"  # a regex pass that blanked strings first held 154 MB
