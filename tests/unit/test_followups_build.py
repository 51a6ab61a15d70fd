"""The follow-up benchmark (benchmarks/make_followups.py, docs/followups.md): the build is
deterministic and matches the shipped files, the split is by family, and every row is well formed."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import make_backrefs  # noqa: E402
import make_followups  # noqa: E402

from rea_core.evals.retrieval import load_needed_jsonl  # noqa: E402


@pytest.fixture(scope="module")
def built():
    corpora = make_backrefs.load_corpora()
    first = make_followups.build(corpora)
    second = make_followups.build(corpora)
    return first, second


def test_build_is_deterministic_and_matches_the_shipped_files(built):
    first, second = built
    for name in make_followups.FILES:
        text = make_followups.render(first[name])
        assert text == make_followups.render(second[name]), name
        shipped = (make_followups.OUT_DIR / f"{name}.jsonl").read_text(encoding="utf-8")
        assert text == shipped, f"{name}.jsonl is out of date: rerun benchmarks/make_followups.py"


def test_split_is_by_family_with_enough_cases(built):
    files, _ = built
    make_followups.validate(files)
    splits = collections.defaultdict(set)
    for name, rows in files.items():
        for row in rows:
            assert name == f"{row['split']}-{row['variant']}"
            splits[row["family"]].add(row["split"])
    assert all(len(s) == 1 for s in splits.values()), splits
    assert {s for v in splits.values() for s in v} == {"dev", "test"}
    shorts = files["dev-short"] + files["test-short"]
    assert len(shorts) >= 200 and len({r["family"] for r in shorts}) >= 10
    counts = collections.Counter(r["family"] for r in shorts)
    assert max(counts.values()) - min(counts.values()) <= 2, counts


def test_long_variant_is_the_short_case_after_30_more_exchanges(built):
    files, _ = built
    for split in ("dev", "test"):
        shorts = {r["case"]: r for r in files[f"{split}-short"]}
        longs = files[f"{split}-long"]
        assert set(shorts) == {r["case"] for r in longs}
        for row in longs:
            short = shorts[row["case"]]
            prefix = len(row["turns"]) - len(short["turns"])
            assert prefix >= 30 and prefix == row["prefix"]
            assert row["turns"][prefix:-1] == short["turns"][:-1]
            assert row["turns"][-1]["needed"] == [n + prefix for n in short["turns"][-1]["needed"]]
            assert row["origins"][prefix:] == short["origins"] and len(set(row["origins"])) == len(row["origins"])


def test_shipped_files_load_with_valid_needed_indices():
    for name in make_followups.FILES:
        path = make_followups.OUT_DIR / f"{name}.jsonl"
        cases = load_needed_jsonl(path)
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(cases) == len(rows) >= 90
        for case, row in zip(cases, rows):
            (query,) = case.queries
            assert query.position == len(row["turns"]) - 1 == len(case.exchanges) - 1
            assert all(0 <= n < query.position for n in query.needed)
            assert query.position - min(query.needed) == row["distance"]
