"""A bounded, seeded fuzz of every reader a visitor's file reaches: the conversation
loader (Inspect, ``rea replay``), saved Compare sessions, and the annotation import reader with the
import itself. Each case must end in the reader's own clear error, never another exception, and
a refused import must leave the database as it was."""

from __future__ import annotations

import json
import random

import pytest

from annotations import StoreError, create_db_engine, session_factory, upgrade
from annotations import store_items as si
from annotations.io import ImportFormatError, read_rows
from annotations.models import Item
from rea_core import load_conversations
from rea_core.errors import DataFormatError
from rea_core.session import ChatSession

CASES = 200
SEED = 14


def _value(rng: random.Random, depth: int = 0):
    """A random JSON value: wrong types, huge and odd strings, big numbers, nesting."""
    kinds = ["int", "float", "str", "bool", "null", "huge", "nul", "bigint"] + (["list", "dict"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.randint(-5, 5)
    if kind == "float":
        return rng.choice([0.5, -1e308, float("1e400") if rng.random() < 0.1 else 3.25])
    if kind == "str":
        return rng.choice(["", " ", "global", "task", "hi", "=1+1", "\u202e\ud7ff", "from now on, answer in French"])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "huge":
        return "x" * rng.choice([20_001, 40_000, 140_000])
    if kind == "nul":
        return "a\x00b"
    if kind == "bigint":
        return 10**20
    if kind == "list":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {
        rng.choice(["text", "user", "turns", "id", "labels", "label", "x"]): _value(rng, depth + 1)
        for _ in range(rng.randint(0, 3))
    }


def _mutate(rng: random.Random, doc):
    """Replace one field somewhere in ``doc`` by a random value (a wrong type, usually)."""
    if isinstance(doc, dict) and doc:
        key = rng.choice(list(doc))
        if rng.random() < 0.5 and isinstance(doc[key], (dict, list)) and doc[key]:
            _mutate(rng, doc[key])
        else:
            doc[key] = _value(rng)
    elif isinstance(doc, list) and doc:
        i = rng.randrange(len(doc))
        if rng.random() < 0.5 and isinstance(doc[i], (dict, list)):
            _mutate(rng, doc[i])
        else:
            doc[i] = _value(rng)
    return doc


def _line_bytes(rng: random.Random, valid: dict) -> bytes:
    """One file line: the valid document mutated, truncated, made non-UTF-8 or deeply nested."""
    choice = rng.random()
    if choice < 0.5:
        text = json.dumps(_mutate(rng, json.loads(json.dumps(valid))))
    elif choice < 0.65:
        full = json.dumps(valid)
        text = full[: rng.randrange(1, len(full))]  # truncated JSON
    elif choice < 0.75:
        text = json.dumps(_value(rng))
    elif choice < 0.85:
        return json.dumps(valid).encode()[:-2] + rng.choice([b"\xff\xfe", b"\xc3", b"\x80"]) + b'"}'  # not UTF-8
    elif choice < 0.92:
        text = "[" * rng.choice([10, 5_000, 50_000])
    else:
        text = json.dumps(valid).replace("}", ', "n": 1' + "0" * 5000 + "}", 1)  # a 5,001-digit number
    return text.encode("utf-8", "surrogatepass")


VALID_CONVERSATION = {
    "id": "c",
    "turns": [{"user": "From now on, answer in French.", "assistant": "D'accord."}, {"user": "And now?"}],
}
VALID_ROW = {
    "text": "Answer in French from now on.",
    "source": "s",
    "context": "ctx",
    "labels": [{"annotator": "bob", "label": "global"}],
    "adjudicated": "global",
    "adjudicator": "alice",
}


def test_conversation_loader_fuzz(tmp_path):
    rng = random.Random(SEED)
    path = tmp_path / "conv.jsonl"
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(CASES):
        path.write_bytes(b"\n".join(_line_bytes(rng, VALID_CONVERSATION) for _ in range(rng.randint(1, 3))))
        try:
            conversations = load_conversations(path, max_chars=32_000, max_turns=2000)
        except DataFormatError as exc:
            assert str(exc) and "Traceback" not in str(exc)
            outcomes["refused"] += 1
        else:
            assert all(
                isinstance(t.user, str) and t.user.strip() and len(t.user) <= 32_000
                for c in conversations
                for t in c.turns
            )
            outcomes["ok"] += 1
    assert outcomes["refused"] > CASES // 2 and outcomes["ok"] > 0


def test_saved_session_fuzz():
    rng = random.Random(SEED)
    valid = ChatSession(strategy="rea")
    valid.episodes.append("hello", "hi there")
    valid.episodes.append("and then?", "then this")
    base = valid.to_dict()
    refused = 0
    for _ in range(CASES):
        data = _mutate(rng, json.loads(json.dumps(base)))
        try:
            ChatSession.from_dict(data).check_loaded(
                max_turns=2000, max_chars=32_000, max_instructions=16, embed_dim=None, latent_shape=None
            )
        except DataFormatError:
            refused += 1
    assert refused > CASES // 4


@pytest.fixture
def store(tmp_path):
    engine = create_db_engine(f"sqlite:///{tmp_path / 'fuzz.db'}")
    upgrade(engine)
    yield session_factory(engine)
    engine.dispose()


def test_import_reader_fuzz_never_writes_half_a_file(tmp_path, store):
    rng = random.Random(SEED)
    imported = refused = 0
    for case in range(CASES):
        suffix = rng.choice([".jsonl", ".jsonl", ".csv"])
        path = tmp_path / f"rows{suffix}"
        if suffix == ".jsonl":
            path.write_bytes(b"\n".join(_line_bytes(rng, VALID_ROW) for _ in range(rng.randint(1, 3))))
        else:
            cells = [
                str(_value(rng))[: rng.choice([10, 200_000])].replace("\x00", rng.choice(["\x00", ""]))
                for _ in range(2)
            ]
            path.write_text(
                "text,labels\n" + "\n".join(f'"{c}"' if rng.random() < 0.5 else c for c in cells) + "\n",
                encoding="utf-8",
                errors="surrogatepass",
            )
        with store() as db:
            before = db.query(Item).count()
        try:
            rows = read_rows(path, annotator=rng.choice([None, "alice"]))
            with store() as db:
                si.import_rows(db, rows, source=path.name, annotator="alice")
            imported += 1
        except (ImportFormatError, StoreError) as exc:
            assert str(exc)
            with store() as db:
                assert db.query(Item).count() == before, f"case {case}: a refused file changed the store"
            refused += 1
    assert refused > CASES // 2 and imported > 0
