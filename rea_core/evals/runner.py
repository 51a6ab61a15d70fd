"""Resumable evaluation runs: one JSONL line per finished conversation and arm, written whole.

An interrupted run keeps every conversation it finished; running the same command again skips
them and continues. Progress goes to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, Iterable, Sequence

from tqdm.auto import tqdm


class RecordStore:
    """``<out>/records.jsonl``: {"arm", "case_id", "records": [...]} per finished (arm, conversation)."""

    def __init__(self, out_dir: str | Path):
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.out_dir / "records.jsonl"
        self._done: dict[tuple[str, str], list[dict]] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a crash: that conversation is redone
                self._done[(row["arm"], row["case_id"])] = row["records"]

    def done(self, arm: str, case_id: str) -> bool:
        return (arm, case_id) in self._done

    def add(self, arm: str, case_id: str, records: list[dict]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"arm": arm, "case_id": case_id, "records": records}, ensure_ascii=False) + "\n")
            handle.flush()
        self._done[(arm, case_id)] = records

    def records(self, arm: str, case_ids: Iterable[str] | None = None) -> list[dict]:
        wanted = None if case_ids is None else set(case_ids)
        return [r for (a, c), recs in self._done.items() if a == arm and (wanted is None or c in wanted) for r in recs]


def run_arms(store: RecordStore, arms: Sequence[str], cases: Sequence, run_one: Callable[[str, object], list[dict]], *, label: str) -> None:
    """Run every (arm, case) not yet in ``store``, with a progress bar."""
    todo = [(arm, case) for arm in arms for case in cases if not store.done(arm, case.id)]
    skipped = len(arms) * len(cases) - len(todo)
    if skipped:
        print(f"{label}: resuming, {skipped} finished conversation runs kept", file=sys.stderr)
    for arm, case in tqdm(todo, desc=label, unit="conv", file=sys.stderr, disable=not todo):
        store.add(arm, case.id, run_one(arm, case))
