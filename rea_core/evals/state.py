"""State tracking (REA paper, Appendix E, Table 10): Joint Goal Accuracy on Code, Math and Actions.

Conditions: *Full* (every constraint in one turn, vanilla), *Shared* (the same constraints spread
across turns between distractors, vanilla) and *REA* (Shared, through REA). The final turn asks for
the resulting state and is generated; JGA is exact match of the final answer.

File format: the conversation JSONL plus ``"answer": str``, ``"flavor": "code" | "math" | "actions"``
and ``"condition": "full" | "shared"``; only the last turn may lack an assistant reply.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from ..conversations import Conversation, check_turn_chars, parse_conversation, read_jsonl
from ..corpora import chitchat_conversations, is_clean_turn
from ..errors import DataFormatError

FLAVORS = ("code", "math", "actions")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class StateCase:
    conversation: Conversation
    answer: str
    flavor: str
    condition: str

    @property
    def id(self) -> str:
        return self.conversation.id


def exact_match(reply: str, answer: str) -> bool:
    """Numeric answers: the first number in the reply equals it. Others: the reply, lowercased and
    stripped of surrounding punctuation, starts with the answer."""
    if _NUMBER.fullmatch(answer.strip()):
        found = _NUMBER.search(reply)
        return bool(found) and float(found.group()) == float(answer)
    norm = lambda s: re.sub(r"\s+", " ", s.strip().strip(".!\"'`").lower())  # noqa: E731
    return norm(reply).startswith(norm(answer))


def _steps(flavor: str, rng: random.Random, k: int) -> tuple[list[str], str, str]:
    """(constraint sentences, final question, answer) for one flavor."""
    if flavor == "math":
        x = rng.randint(2, 9)
        steps, value = [f"Let x = {x}."], x
        for _ in range(k - 1):
            op, n = rng.choice(["add", "subtract", "multiply"]), rng.randint(2, 5)
            value = value + n if op == "add" else value - n if op == "subtract" else value * n
            steps.append(
                {
                    "add": f"Now add {n} to x.",
                    "subtract": f"Now subtract {n} from x.",
                    "multiply": f"Now multiply x by {n}.",
                }[op]
            )
        return steps, "What is the value of x now? Answer with just the number.", str(value)
    if flavor == "code":
        names = rng.sample(["a", "b", "c", "d", "e"], 3)
        values = {n: rng.randint(1, 9) for n in names}
        steps = [f"In my Python program, {n} = {v}." for n, v in values.items()]
        for _ in range(k - len(names)):
            n, m = rng.sample(names, 2)
            values[n] = values[n] + values[m]
            steps.append(f"Then the program runs {n} = {n} + {m}.")
        target = rng.choice(names)
        return steps, f"What does print({target}) output at the end? Answer with just the output.", str(values[target])
    pos = 0
    steps = ["A robot starts at position 0 on a number line."]
    for _ in range(k - 1):
        d, n = rng.choice(["right", "left"]), rng.randint(1, 4)
        pos += n if d == "right" else -n
        steps.append(f"The robot moves {d} by {n}.")
    return steps, "Where is the robot now? Answer with just the number.", str(pos)


def make_state_suite(n: int = 10, steps: int = 4, distractors: int = 6, seed: int = 0) -> list[dict]:
    """For each flavor, ``n`` problems in both conditions (full and shared), with chit-chat distractors."""
    rng = random.Random(seed)
    chat = [
        (u, r)
        for conv in chitchat_conversations(600)
        for u, r in zip(conv[::2], conv[1::2])
        if is_clean_turn(u, r, min_words=2)
    ]
    suite = []
    for flavor in FLAVORS:
        for i in range(n):
            constraints, question, answer = _steps(flavor, rng, steps)
            noise = [{"user": u, "assistant": r} for u, r in rng.sample(chat, distractors)]
            full = (
                [{"user": " ".join(constraints) + " Please keep track of this.", "assistant": "Got it."}]
                + noise
                + [{"user": question}]
            )
            shared, slots = [], sorted(rng.sample(range(len(constraints) + distractors), len(constraints)))
            it_c, it_n = iter(constraints), iter(noise)
            for slot in range(len(constraints) + distractors):
                shared.append({"user": next(it_c), "assistant": "Got it."} if slot in slots else next(it_n))
            shared.append({"user": question})
            for condition, turns in (("full", full), ("shared", shared)):
                suite.append(
                    {
                        "id": f"state-{flavor}-{i:03d}-{condition}",
                        "turns": turns,
                        "answer": answer,
                        "flavor": flavor,
                        "condition": condition,
                    }
                )
    return suite


def load_cases(path: str | Path, *, max_chars: int | None = None) -> list[StateCase]:
    """Validate every line before any model call. ``max_chars``: the most characters of one turn or
    answer (``conversations.check_turn_chars``)."""
    cases = []
    for where, obj in read_jsonl(path):
        conv = parse_conversation(obj, where=where, max_chars=max_chars)
        if (
            not isinstance(obj.get("answer"), str)
            or obj.get("flavor") not in FLAVORS
            or obj.get("condition") not in ("full", "shared")
        ):
            raise DataFormatError(
                f'{where}: needs "answer" (string), "flavor" in {FLAVORS} and "condition" in (full, shared)'
            )
        if conv.turns[-1].assistant is not None:
            raise DataFormatError(f"{where}: the last turn is the question and must not carry an assistant reply")
        check_turn_chars(obj["answer"], max_chars, f'{where}: "answer"')
        cases.append(StateCase(conv, obj["answer"], obj["flavor"], obj["condition"]))
    return cases


def run_case(strategy, case: StateCase) -> list[dict]:
    session = strategy.new_session()
    for turn in case.conversation.turns:
        result = strategy.respond(session, turn.user, reply=turn.assistant)
    return [
        {
            "case_id": case.id,
            "flavor": case.flavor,
            "condition": case.condition,
            "answer": case.answer,
            "reply": result.reply,
            "correct": exact_match(result.reply, case.answer),
            "prompt_tokens": result.prompt_tokens,
        }
    ]


def evaluate(models, settings, cases: list[StateCase], arm_names: list[str], out_dir: str | Path) -> dict:
    import plotly.graph_objects as go

    from .arms import get_arm
    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    arms = {name: get_arm(name) for name in arm_names}
    store = RecordStore(out_dir, {"task": "state", "model": models.generator.name, "config": settings.to_dict()})
    run_arms(
        store,
        list(arms),
        cases,
        lambda arm, case: run_case(arms[arm].build(models, settings, case), case),
        label="State tracking",
    )
    ids = [c.id for c in cases]
    table: dict[str, dict[str, float | None]] = {}
    for arm in arms:
        recs = store.records(arm, ids)
        for condition in ("full", "shared"):
            row = {}
            for flavor in FLAVORS:
                picked = [r["correct"] for r in recs if r["flavor"] == flavor and r["condition"] == condition]
                row[flavor] = sum(picked) / len(picked) if picked else None
            if any(v is not None for v in row.values()):
                table[f"{arm} / {condition}"] = row
    results = {
        "task": "state",
        "conversations": len(cases),
        "model": models.generator.name,
        "jga": table,
        "paper_table_10": {
            "actions": {"shared_vanilla": 0.05, "rea": 0.51},
            "code": {"shared_vanilla": 0.09, "rea": 0.16},
            "math": {"shared_vanilla": 0.0, "rea": 0.20},
        },
    }
    write_results(out_dir, results)
    fig = go.Figure([go.Bar(name=label, x=list(FLAVORS), y=[row[f] for f in FLAVORS]) for label, row in table.items()])
    fig.update_layout(title="Joint Goal Accuracy (Table 10 style)", barmode="group", yaxis_range=[0, 1])
    write_report(
        out_dir,
        "State tracking (JGA)",
        [fig],
        [("JGA", ["arm / condition", *FLAVORS], [[k, *v.values()] for k, v in table.items()])],
    )
    return results
