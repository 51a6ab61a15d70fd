"""The hard recognizer set (issue 26) loads, is large enough, and keeps its halves apart by family."""

import json
from collections import Counter

import pytest

from annotations.seed import hard_set_rows, seed_rows
from rea_core.errors import DataFormatError
from rea_core.recognizer.default import load_label_set
from rea_core.recognizer.hard_set import LANGS, hard_set_path, load_hard_set


def test_loads_through_the_label_set_reader_and_is_large_enough():
    assert len(load_label_set(hard_set_path())) >= 300
    assert len(load_hard_set()) >= 300


def test_every_family_is_in_one_half_and_both_halves_are_used():
    halves = {}
    for r in load_hard_set():
        halves.setdefault(r.family, set()).add(r.split)
    assert all(len(s) == 1 for s in halves.values())
    assert {h for s in halves.values() for h in s} == {"dev", "test"}


def test_every_language_has_twenty_globals_and_instructions_are_verbatim():
    rows = load_hard_set()
    per_lang = Counter(r.lang for r in rows if r.label == "global")
    assert all(per_lang[lang] >= 20 for lang in LANGS), per_lang
    assert all(r.instruction and r.instruction in r.text for r in rows if r.label == "global")
    mixed = [r for r in rows if r.kind == "mixed"]
    assert mixed and all(r.instruction != r.text for r in mixed)


def test_a_family_in_both_halves_is_refused(tmp_path):
    row = {"text": "Always answer in French.", "label": "global", "lang": "en", "kind": "plain", "family": "f"}
    path = tmp_path / "hard.jsonl"
    path.write_text("\n".join(json.dumps(row | {"instruction": row["text"], "split": s}) for s in ("dev", "test")))
    with pytest.raises(DataFormatError, match="both"):
        load_hard_set(path)


def test_a_text_in_both_halves_is_refused(tmp_path):
    row = {"text": "Always answer in French.", "label": "global", "lang": "en", "kind": "plain"}
    path = tmp_path / "hard.jsonl"
    lines = [row | {"instruction": row["text"], "split": s, "family": f"f-{s}"} for s in ("dev", "test")]
    path.write_text("\n".join(json.dumps(r) for r in lines))
    with pytest.raises(DataFormatError, match="same text"):
        load_hard_set(path)


def test_the_studio_seed_carries_the_dev_half_only():
    dev = {r.text for r in load_hard_set() if r.split == "dev"}
    test = {r.text for r in load_hard_set() if r.split == "test"}
    rows = hard_set_rows()
    assert {r.text for r in rows} <= dev and {r.text for r in hard_set_rows(per_group=None)} == dev
    assert {r.source for r in rows} == {f"hard-set:{r.kind}:{r.lang}" for r in load_hard_set() if r.split == "dev"}
    assert all(r.source.startswith("hard-set:") and r.labels for r in rows)
    assert not test & {r.text for r in seed_rows(ifbench_prompts=0, chitchat=0)}
