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

from ..conversations import jsonl_lines
from ..errors import REAError


class RecordStore:
    """``<out>/records.jsonl``: {"arm", "case_id", "records": [...]} per finished (arm, conversation).

    ``<out>/run.json`` keeps the settings of the run; resuming with other settings is refused, so
    one results file never mixes two configurations.
    """

    def __init__(self, out_dir: str | Path, settings: dict | None = None):
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.out_dir / "records.jsonl"
        if settings is not None:
            self._check_settings(json.loads(json.dumps(settings, default=str)))
        self._done: dict[tuple[str, str], list[dict]] = {}
        if self.path.exists():
            for line in jsonl_lines(self.path.read_text(encoding="utf-8")):  # a reply may hold U+2028
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a crash: that conversation is redone
                self._done[(row["arm"], row["case_id"])] = row["records"]

    def _check_settings(self, settings: dict) -> None:
        run = self.out_dir / "run.json"
        if run.exists():
            previous = json.loads(run.read_text(encoding="utf-8"))
            if previous != settings:
                changed = sorted(k for k in set(previous) | set(settings) if previous.get(k) != settings.get(k))
                raise REAError(
                    f"{self.out_dir} holds a run with other settings "
                    f"({', '.join(changed)}); use a new --out to start another run"
                )
        else:
            run.write_text(json.dumps(settings, indent=2), encoding="utf-8")

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


def run_arms(
    store: RecordStore,
    arms: Sequence[str],
    cases: Sequence,
    run_one: Callable[[str, object], list[dict]],
    *,
    label: str,
) -> None:
    """Run every (arm, case) not yet in ``store``, with a progress bar."""
    todo = [(arm, case) for arm in arms for case in cases if not store.done(arm, case.id)]
    skipped = len(arms) * len(cases) - len(todo)
    if skipped:
        print(f"{label}: resuming, {skipped} finished conversation runs kept", file=sys.stderr)
    for arm, case in tqdm(todo, desc=label, unit="conv", file=sys.stderr, disable=not todo):
        store.add(arm, case.id, run_one(arm, case))
