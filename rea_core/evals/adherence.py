"""Instruction adherence (IAR, REA paper sections 4.4-4.5, C.3).

File format: the conversation JSONL plus
    "global_instructions": [{"turn": i, "until_turn": k (optional), "checks": [{"instruction_id", "kwargs"}]}]
    "probe_turns": [j, ...]   (probe turns carry no assistant reply; they are generated)
An instruction set at turn i is in force for turns i < j < until_turn. At each probe the reply is
checked against every instruction in force; IAR is the share of probes that satisfy all of them
(times 10 for the paper's 0-10 scale).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..conversations import Conversation, parse_conversation, read_jsonl
from ..errors import DataFormatError
from .checks import Check

DEPTH_BUCKETS = ((1, 4), (5, 9), (10, 19), (20, 10**6))


@dataclass(frozen=True)
class GlobalInstruction:
    turn: int
    checks: tuple[Check, ...]
    until_turn: int | None = None
    kind: str = ""

    def active_at(self, j: int) -> bool:
        return self.turn < j and (self.until_turn is None or j < self.until_turn)


@dataclass(frozen=True)
class AdherenceCase:
    conversation: Conversation
    instructions: tuple[GlobalInstruction, ...]
    probe_turns: tuple[int, ...]

    @property
    def id(self) -> str:
        return self.conversation.id

    def instruction_texts(self) -> set[str]:
        return {self.conversation.turns[g.turn].user for g in self.instructions}

    def revoke_texts(self) -> set[str]:
        return {self.conversation.turns[g.until_turn].user for g in self.instructions if g.until_turn is not None}

    def first_ordinary_text(self) -> str:
        special = {g.turn for g in self.instructions} | {g.until_turn for g in self.instructions}
        return next(t.user for i, t in enumerate(self.conversation.turns) if i not in special)


def parse_case(obj: dict, where: str, *, max_chars: int | None = None) -> AdherenceCase:
    conv = parse_conversation(obj, where=where, max_chars=max_chars)
    n = len(conv.turns)
    raw_instructions, probes = obj.get("global_instructions"), obj.get("probe_turns")
    if not isinstance(raw_instructions, list) or not raw_instructions:
        raise DataFormatError(f'{where}: "global_instructions" must be a non-empty list')
    if not isinstance(probes, list) or not probes or not all(isinstance(p, int) for p in probes):
        raise DataFormatError(f'{where}: "probe_turns" must be a non-empty list of turn indices')
    instructions = []
    for k, g in enumerate(raw_instructions):
        if (
            not isinstance(g, dict)
            or not isinstance(g.get("turn"), int)
            or not isinstance(g.get("checks"), list)
            or not g["checks"]
        ):
            raise DataFormatError(
                f'{where}: global_instructions[{k}] needs an integer "turn" and a non-empty "checks" list'
            )
        if not 0 <= g["turn"] < n:
            raise DataFormatError(f"{where}: global_instructions[{k}] turn {g['turn']} is past the end ({n} turns)")
        until = g.get("until_turn")
        if until is not None and (not isinstance(until, int) or not g["turn"] < until < n):
            raise DataFormatError(
                f"{where}: global_instructions[{k}] until_turn must be a turn after {g['turn']} and before {n}"
            )
        checks = []
        for c in g["checks"]:
            if not isinstance(c, dict) or not isinstance(c.get("instruction_id"), str):
                raise DataFormatError(f'{where}: global_instructions[{k}] has a check without "instruction_id"')
            check = Check(c["instruction_id"], dict(c.get("kwargs") or {}))
            try:
                check.validate()
            except (ValueError, TypeError) as exc:
                raise DataFormatError(f"{where}: global_instructions[{k}]: {exc}") from exc
            checks.append(check)
        instructions.append(GlobalInstruction(g["turn"], tuple(checks), until, g.get("kind", "")))
    for p in probes:
        if not 0 <= p < n:
            raise DataFormatError(f"{where}: probe turn {p} is past the end ({n} turns)")
        if conv.turns[p].assistant is not None:
            raise DataFormatError(f"{where}: probe turn {p} carries an assistant reply; probes are generated")
    return AdherenceCase(conv, tuple(instructions), tuple(sorted(set(probes))))


def load_cases(path: str | Path, *, max_chars: int | None = None) -> list[AdherenceCase]:
    """Validate every line before any model call; errors name the file and line. ``max_chars``:
    the most characters of one turn (``conversations.check_turn_chars``)."""
    cases, seen = [], set()
    for where, obj in read_jsonl(path):
        case = parse_case(obj, where, max_chars=max_chars)
        if case.id in seen:
            raise DataFormatError(f"{where}: duplicate conversation id {case.id!r}")
        seen.add(case.id)
        cases.append(case)
    return cases


def run_case(strategy, case: AdherenceCase) -> list[dict]:
    """Replay one conversation; generate and check every probe turn. One record per probe."""
    session = strategy.new_session()
    records = []
    for j, turn in enumerate(case.conversation.turns):
        result = strategy.respond(session, turn.user, reply=turn.assistant)
        if j not in case.probe_turns:
            continue
        active = [g for g in case.instructions if g.active_at(j)]
        per_instruction = [
            {
                "turn": g.turn,
                "kind": g.kind,
                "depth": j - g.turn,
                "passed": all(c.passed(result.reply) for c in g.checks),
            }
            for g in active
        ]
        records.append(
            {
                "case_id": case.id,
                "probe_turn": j,
                "reply": result.reply,
                "instructions": per_instruction,
                "passed": all(x["passed"] for x in per_instruction),
                "prompt_tokens": result.prompt_tokens,
                "latency_s": result.timings.total_s,
                "im": session.instructions.texts(),
            }
        )
    return records


def depth_bucket(depth: int) -> str:
    lo, hi = next(b for b in DEPTH_BUCKETS if b[0] <= depth <= b[1])
    return f"{lo}+" if hi > 1000 else f"{lo}-{hi}"


def metrics(records: list[dict]) -> dict:
    """IAR (share and 0-10), IAR at depth >= 10, adherence per depth bucket, mean prompt tokens."""
    probes = [r for r in records if r["instructions"]]
    if not probes:
        return {"probes": 0}
    iar = sum(r["passed"] for r in probes) / len(probes)
    deep = [r for r in probes if max(x["depth"] for x in r["instructions"]) >= 10]
    by_depth: dict[str, list[bool]] = {}
    for r in probes:
        for x in r["instructions"]:
            by_depth.setdefault(depth_bucket(x["depth"]), []).append(x["passed"])
    return {
        "probes": len(probes),
        "iar": iar,
        "iar_10": 10 * iar,
        "iar_depth_10_plus": sum(r["passed"] for r in deep) / len(deep) if deep else None,
        "by_depth": {
            k: sum(v) / len(v)
            for k, v in sorted(by_depth.items(), key=lambda kv: int(kv[0].split("-")[0].rstrip("+")))
        },
        "mean_prompt_tokens": sum(r["prompt_tokens"] for r in probes) / len(probes),
        "mean_latency_s": sum(r["latency_s"] for r in probes) / len(probes),
    }


def evaluate(
    models,
    config,
    cases: list[AdherenceCase],
    arm_names: list[str],
    out_dir: str | Path,
    *,
    title: str = "Instruction adherence",
) -> dict:
    """Run every arm on every case (resumable), then write results.json and report.html."""
    import plotly.graph_objects as go

    from .arms import get_arm
    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    arms = {name: get_arm(name) for name in arm_names}  # unknown names fail before any model call
    store = RecordStore(out_dir, {"task": title, "model": models.generator.name, "config": config.to_dict()})
    run_arms(
        store, list(arms), cases, lambda arm, case: run_case(arms[arm].build(models, config, case), case), label=title
    )
    ids = [c.id for c in cases]
    per_arm = {name: metrics(store.records(name, ids)) for name in arms}
    results = {
        "task": title,
        "conversations": len(cases),
        "config": config.to_dict(),
        "model": models.generator.name,
        "arms": {name: {"describe": arms[name].describe, **m} for name, m in per_arm.items()},
    }
    write_results(out_dir, results)
    fig = go.Figure()
    for name, m in per_arm.items():
        if m.get("by_depth"):
            fig.add_scatter(x=list(m["by_depth"]), y=list(m["by_depth"].values()), mode="lines+markers", name=name)
    fig.update_layout(
        title="Adherence by turns since the instruction was given (Figure 4 style)",
        xaxis_title="depth (turns)",
        yaxis_title="share of instructions followed",
        yaxis_range=[0, 1],
    )
    bars = go.Figure(go.Bar(x=list(per_arm), y=[m.get("iar_10", 0) for m in per_arm.values()]))
    bars.update_layout(title="IAR (0-10 scale)", yaxis_range=[0, 10])
    rows = [
        [name, m.get("probes"), m.get("iar"), m.get("iar_10"), m.get("iar_depth_10_plus"), m.get("mean_prompt_tokens")]
        for name, m in per_arm.items()
    ]
    write_report(
        out_dir,
        title,
        [bars, fig],
        [("IAR per arm", ["arm", "probes", "IAR", "IAR 0-10", "IAR at depth >= 10", "mean prompt tokens"], rows)],
        notes=f"{len(cases)} conversations, model {models.generator.name}, "
        f"tau_low {config.rea.tau_low}, tau_high {config.rea.tau_high}.",
    )
    return results
