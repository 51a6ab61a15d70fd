"""Benchmark: where REA's answers lose against the evidence alone, by where the evidence stands.

Reads a finished ``rea eval qa`` run with the arms none, oracle and rea (its ``records.jsonl``),
re-plans each of its questions with REA's own planner (scores only, no generation) and prints the
NLL gap share (none -> oracle) of REA's prompt per group of questions: by how far the evidence
nearest the question stands from it (1 = the last exchange before the question), and by whether
that evidence is raw or compressed. Also the share of REA's loss against the oracle that falls on
questions whose evidence is in the prompt.

Run: .venv/bin/python benchmarks/qa_evidence_position.py --run runs/qa-tune-order --data TUNE_DIR --limit 120
(``--data`` and ``--limit`` as given to ``rea eval qa``, ``--format locomo``.)
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rea_core.evals.cases import load_locomo  # noqa: E402
from rea_core.evals.qa.inputs import prepare_cases  # noqa: E402
from rea_core.evals.qa.metrics import gap_share  # noqa: E402
from rea_core.evals.qa.prompts import QAContext, REAPlanner  # noqa: E402
from rea_core.evals.runner import RecordStore  # noqa: E402
from rea_core.loading import load_models  # noqa: E402
from rea_core.prompt_layout import is_kept_exchange  # noqa: E402
from rea_core.settings import Settings  # noqa: E402

ARMS = ("none", "oracle", "rea")


def arm_records(run: Path) -> dict[tuple, dict]:
    """(case, question, answer) -> {arm: record} for the questions every arm of ``ARMS`` answered."""
    store = RecordStore(run)
    by_question: dict[tuple, dict] = defaultdict(dict)
    for arm in ARMS:
        for r in store.records(arm):
            by_question[(r["case_id"], r["question"], r["answer"])][arm] = r
    return {k: v for k, v in by_question.items() if set(ARMS) <= set(v)}


def evidence_places(data: str, limit: int | None) -> dict[tuple, tuple[int, str] | None]:
    """(case, question, answer) -> (distance from the question, resolution) of the evidence exchange
    nearest the question in REA's prompt; None when no evidence is kept."""
    ctx = QAContext(models=load_models(codec="none"), settings=Settings.from_env(), max_new_tokens=0)
    places = {}
    for case in prepare_cases(load_locomo(data), ["rea"], limit):
        planner = REAPlanner(case, ctx)
        for q in case.queries:
            plan, _ = planner.plan(q)
            kept = [s for s in plan.segments if is_kept_exchange(s)]
            shown = [(len(kept) - i, s.resolution.value) for i, s in enumerate(kept) if s.turn in q.needed]
            places[(case.id, q.text, q.answer)] = min(shown) if shown else None
    return places


def group_share(rows: list[dict]) -> float | None:
    share = gap_share(*(sum(r[arm]["nll"] for r in rows) for arm in ("none", "rea", "oracle")))
    return None if share is None else round(share, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a finished `rea eval qa` run (arms none,oracle,rea)")
    parser.add_argument("--data", required=True, help="the LoCoMo file or folder it read")
    parser.add_argument("--limit", type=int, default=None, help="the --limit it ran with")
    args = parser.parse_args()
    records = arm_records(args.run)
    places = evidence_places(args.data, args.limit)
    groups: dict[str, list[dict]] = defaultdict(list)
    missing = "evidence not all in the prompt"
    for key, rows in records.items():
        place = places.get(key)
        if place is None or rows["rea"]["evidence_shown"] < 1:
            groups[missing].append(rows)
            continue
        distance, resolution = place
        band = "1 (last)" if distance == 1 else "2-3" if distance <= 3 else "4-10" if distance <= 10 else "> 10"
        groups[f"evidence nearest the question at distance {band}"].append(rows)
        groups[f"that evidence {resolution}"].append(rows)

    def loss(rows) -> float:  # REA's NLL above the evidence alone
        return sum(r["rea"]["nll"] - r["oracle"]["nll"] for r in rows)

    total = loss(records.values())
    print(json.dumps({"questions": len(records), "gap_share": group_share(list(records.values()))}))
    for name in sorted(groups):
        rows = groups[name]
        print(json.dumps({"group": name, "questions": len(rows), "gap_share": group_share(rows)}))
    shown = (total - loss(groups[missing])) / total
    print(json.dumps({"loss_vs_oracle_on_questions_with_all_evidence_shown": round(shown, 3)}))


if __name__ == "__main__":
    main()
