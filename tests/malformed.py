"""Seeded mutations that make a valid data file malformed for sure: the fuzz tests of every loader
(``test_cli_load_fuzz``, ``test_app_load_fuzz``) draw from these, so each case must be refused.

Each mutation is chosen so that no loader may accept it: any string holding a lone surrogate or
NUL, nesting past the depth cap, numbers JSON cannot carry, a cut-off document, an empty file, a
wrong top-level type, or a field the format requires (``required``: paths into the document)
deleted or given another type.
"""

from __future__ import annotations

import copy
import json
import random

KINDS = (
    "truncated",
    "surrogate",
    "nul",
    "deep",
    "huge_int",
    "huge_float",
    "nan",
    "empty",
    "top_level",
    "missing",
    "type_swap",
)
_HUGE = "@@HUGE@@"
WRONG = (5, "x", [], {"k": 1}, 1.5, True)  # None is left out: "missing" covers an absent value


def _leaves(doc, path=()):
    """(path, value) of every scalar in ``doc``."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, (*path, i))
    else:
        yield path, doc


def _set(doc, path, value):
    if not path:
        return value
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def _wrong_for(value, rng: random.Random):
    same = type(value)
    return copy.deepcopy(rng.choice([w for w in WRONG if type(w) is not same]))


def malform(rng: random.Random, valid, required: list[tuple], *, lines: bool = True) -> tuple[str, bytes]:
    """One malformed file made from ``valid`` (a JSONL line when ``lines``, else a whole JSON file):
    returns (the mutation's kind, the file's bytes)."""
    kind = rng.choice(KINDS)
    doc = copy.deepcopy(valid)
    if kind == "empty":
        return kind, rng.choice([b"", b"\n", b"\n  \n"])
    if kind == "truncated":
        full = json.dumps(doc)
        return kind, full[: rng.randrange(1, len(full) - 1)].encode()
    if kind == "top_level":
        return kind, json.dumps(rng.choice([5, "text", None, True, 1.5, [] if not lines else [doc]])).encode()
    if kind in ("surrogate", "nul"):
        strings = [p for p, v in _leaves(doc) if isinstance(v, str)]
        path = rng.choice(strings)
        bad = rng.choice(["\ud800", "\udfff", "\udc80x"]) if kind == "surrogate" else "\x00"
        text = json.dumps(_set(doc, path, _get(doc, path) + bad))  # ensure_ascii: written as a \u escape
        return kind, text.encode()
    if kind == "missing":
        path = rng.choice(required)
        parent = _get(doc, path[:-1])
        del parent[path[-1]]
        return kind, json.dumps(doc).encode()
    if kind == "type_swap":
        path = rng.choice(required)
        return kind, json.dumps(_set(doc, path, _wrong_for(_get(doc, path), rng))).encode()
    path = rng.choice([p for p, _ in _leaves(doc)])
    if kind == "deep":
        depth = rng.choice([80, 1_000, 100_000])
        text = json.dumps(_set(doc, path, _HUGE)).replace(f'"{_HUGE}"', "[" * depth + "]" * depth)
    else:
        number = {"huge_int": "1" + "0" * 5_000, "huge_float": "1e400", "nan": rng.choice(["NaN", "-Infinity"])}[kind]
        text = json.dumps(_set(doc, path, _HUGE)).replace(f'"{_HUGE}"', number)
    return kind, text.encode()


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc
