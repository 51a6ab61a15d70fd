"""A seeded fuzz of the app's load handlers on the real packaged models: Compare's "Load
conversation" (saved files with REA, SeCom and COMEDY columns, junk strategy memory included) and
Inspect's file picker (conversation JSONL, LoCoMo JSON, saved chats).

Each malformed file (``tests/malformed.py``) must be refused with one line naming the file by its
name alone: no folder, no Python exception text. Then the same session still works: through the
running app, a refused load leaves the conversation intact and the next event answers.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from gradio_client import Client, handle_file
from malformed import malform

from app.state import AppEngine
from app.tabs.compare import handlers
from app.tabs.inspect import handlers as ih
from rea_core import REAError, RuntimeConfig, Settings, Thresholds

SEED = 24
CASES = 60  # per loader; no model call, a few ms each
PYTHON_DETAIL = re.compile(r"Traceback|Error:|Error\(|object is not|has no attribute|NoneType|\bdict\b|\blist\b\(")

SECOM_MEMORY = {
    "segments": [
        {
            "start": 0,
            "end": 0,
            "segmenter": "embedding",
            "compressed": {"text": "cat named Miso", "tokens": 4, "original_tokens": 9, "method": "none"},
        }
    ],
    "open_from": 1,
    "notes": [],
}
COMEDY_MEMORY = {
    "sitting_start": 1,
    "sittings": [{"start": 0, "end": 0, "memories": ["User has a cat named Miso."], "method": "rule", "note": ""}],
    "compressive": {
        "user": "Has a cat named Miso.",
        "relationship": "Friendly.",
        "events": "Adopted a cat.",
        "method": "rule",
        "note": "",
        "sittings": 1,
        "through_turn": 0,
    },
}
JUNK_MEMORY = [  # each refused by the strategy's own check (Strategy.check_memory)
    {"segments": "x"},
    {"segments": [{"start": 0, "end": 9}], "open_from": 1},
    {"open_from": 99},
    {"segments": [dict(SECOM_MEMORY["segments"][0], compressed=5)], "open_from": 1},
    {"notes": [1, 2]},
    {"undo": 5},
    {"undo": {"turn": 0, "state": {"open_from": "x"}}},
]
JUNK_COMEDY = [
    {"sitting_start": -1},
    {"sittings": {"a": 1}},
    {"compressive": "x"},
    {**COMEDY_MEMORY, "compressive": {**COMEDY_MEMORY["compressive"], "user": 5}},
    {**COMEDY_MEMORY, "sittings": [{"start": 0, "end": 0, "memories": "not a list"}]},
]


@pytest.fixture(scope="module")
def engine(models, tmp_path_factory):
    return AppEngine(
        models=models,
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)),
        database_url=f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'a.db'}",
    )


def _saved(engine, strategy: str, memory: dict) -> dict:
    """A real saved file of one column with two stored exchanges (given replies: no generation)."""
    column = engine.new_column(strategy)
    for text, reply in (("I adopted a cat named Miso.", "Lovely."), ("I work as a nurse.", "Demanding work.")):
        handlers.respond_column(engine, column, text, Thresholds(0.5, 0.7), reply=reply)
    assert column.error == ""
    if memory is not None:
        column.session.memory = json.loads(json.dumps(memory))
    with open(handlers.save_columns(engine, [column]), encoding="utf-8") as handle:
        return json.load(handle)


def _visitor_line(message: str, name: str, folder: str) -> None:
    assert message.startswith(name), message
    assert "\n" not in message and folder not in message and not PYTHON_DETAIL.search(message), message


@pytest.fixture(scope="module")
def saved_files(engine):
    return {
        "rea": _saved(engine, "rea", None),
        "secom": _saved(engine, "secom", SECOM_MEMORY),
        "comedy": _saved(engine, "comedy", COMEDY_MEMORY),
    }


def test_compare_load_refuses_malformed_saved_files(engine, saved_files, tmp_path):
    for valid in saved_files.values():  # the harness: each valid file loads
        path = tmp_path / "valid.json"
        path.write_text(json.dumps(valid), encoding="utf-8")
        assert len(handlers.load_columns(engine, str(path))) == 1
    required = [
        ("format",),
        ("columns",),
        ("columns", 0, "strategy"),
        ("columns", 0, "episodes"),
        ("columns", 0, "episodes", "exchanges", 0, "user"),
        ("columns", 0, "episodes", "exchanges", 0, "turn"),
        ("columns", 0, "instructions"),
    ]
    rng = random.Random(f"{SEED}:compare")
    path = tmp_path / "saved.json"
    for case in range(CASES):
        strategy = rng.choice(list(saved_files))
        kind, data = malform(rng, saved_files[strategy], required, lines=False)
        path.write_bytes(data)
        with pytest.raises(REAError) as refused:
            handlers.load_columns(engine, str(path))
        _visitor_line(str(refused.value), path.name, str(tmp_path))
    for strategy, junk in [("secom", m) for m in JUNK_MEMORY] + [("comedy", m) for m in JUNK_COMEDY]:
        data = json.loads(json.dumps(saved_files[strategy]))
        data["columns"][0]["memory"] = {**data["columns"][0]["memory"], **junk}
        path.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(REAError, match=f"{strategy} memory") as refused:
            handlers.load_columns(engine, str(path))
        _visitor_line(str(refused.value), path.name, str(tmp_path))


def test_inspect_load_refuses_malformed_files(engine, saved_files, tmp_path):
    conversation = {"id": "c", "turns": [{"user": "I adopted a cat named Miso.", "assistant": "Lovely."}]}
    locomo = {
        "sample_id": "conv-1",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Miso."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely!"},
        ],
        "qa": [{"question": "What is the cat called?", "answer": "Miso", "evidence": ["D1:1"], "category": 4}],
    }
    formats = [
        ("conv.jsonl", conversation, [("id",), ("turns",), ("turns", 0, "user")], True),
        ("locomo.json", locomo, [("session_1", 0, "dia_id"), ("session_1", 1, "speaker"), ("qa",)], False),
        ("chat.json", saved_files["rea"], [("columns",), ("columns", 0, "episodes")], False),
    ]
    for name, valid, _, _ in formats:  # the harness: each valid file loads
        (tmp_path / name).write_text(json.dumps(valid) + "\n", encoding="utf-8")
        assert ih.read_file(engine, tmp_path / name).conversations
    rng = random.Random(f"{SEED}:inspect")
    for case in range(CASES):
        name, valid, required, lines = rng.choice(formats)
        kind, data = malform(rng, valid, required, lines=lines)
        if kind == "top_level" and name == "locomo.json":
            continue  # a top-level value that is not LoCoMo is read as a saved chat; covered by chat.json
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(REAError, match="") as refused:
            ih.read_file(engine, path)
            pytest.fail(f"case {case}: {name} ({kind}) accepted: {data[:200]!r}")
        _visitor_line(str(refused.value), name, str(tmp_path))


def test_refused_loads_leave_the_session_working(app_url, saved_files, tmp_path):
    """Through the running app: after each refused file the session's conversation is intact and
    the next event answers (a lone surrogate once broke every later event of its session)."""
    client = Client(app_url, verbose=False)
    from test_app_client import CHAT0, texts

    good = tmp_path / "good.json"
    good.write_text(json.dumps(saved_files["rea"]), encoding="utf-8")
    out = client.predict(handle_file(str(good)), 0.5, 0.7, api_name="/load_conversation")
    assert "Loaded good.json: REA " in out[-1], out[-1]  # this session now holds a conversation (no generation)
    rng = random.Random(f"{SEED}:client")
    valid = saved_files["secom"]
    cases = [malform(rng, valid, [("columns",)], lines=False)[1] for _ in range(2)]
    surrogate = json.loads(json.dumps(valid))
    surrogate["columns"][0]["episodes"]["exchanges"][0]["user"] += "\ud800"
    junk = json.loads(json.dumps(valid))
    junk["columns"][0]["memory"] = {"segments": "junk"}
    cases += [json.dumps(surrogate).encode(), json.dumps(junk).encode()]
    for i, data in enumerate(cases):
        path = tmp_path / f"bad-{i}.json"
        path.write_bytes(data)
        out = client.predict(handle_file(str(path)), 0.5, 0.7, api_name="/load_conversation")
        assert f"Not loaded: bad-{i}.json" in out[-1] and "/tmp" not in out[-1], out[-1]
        views = client.predict(0.5, 0.7, api_name="/set_thresholds")  # the next event of the same session
        shown = texts(views[CHAT0])
        assert shown[0] == "I adopted a cat named Miso." and shown[1].startswith("Lovely."), shown
