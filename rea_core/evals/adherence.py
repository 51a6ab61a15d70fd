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
from . import charts as c
from .arms import REPLAY, get_arm, plain_name
from .checks import Check
from .task import EvalTask, Report, RunContext, register_eval, run_eval

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
        for spec in g["checks"]:
            if not isinstance(spec, dict) or not isinstance(spec.get("instruction_id"), str):
                raise DataFormatError(f'{where}: global_instructions[{k}] has a check without "instruction_id"')
            check = Check(spec["instruction_id"], dict(spec.get("kwargs") or {}))
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
    settings,
    cases: list[AdherenceCase],
    arm_names: list[str],
    out_dir: str | Path,
    *,
    title: str = "Instruction adherence",
) -> dict:
    """Run every arm on every case (resumable), then write results.json and report.html."""
    tasks = {t.key: t for t in (ADHERENCE_TASK, ABLATIONS_TASK)}
    if title not in tasks:
        raise ValueError(f"title must be one of {', '.join(tasks)}")
    return run_eval(tasks[title], models, settings, cases, arm_names, out_dir)


class AdherenceTask(EvalTask):
    """``rea eval adherence``: IAR per strategy and per turn depth."""

    name, title, results_task = "adherence", "Instruction adherence", "Instruction adherence"
    arm_kind, arms_flag, default_arms = REPLAY, "--strategies", ("vanilla", "rea")
    plain_title = "Following an instruction many turns later"
    plain_summary = (
        "Each chat gives the model an instruction (such as “answer in lowercase”) and checks later replies "
        "against it. REA keeps standing instructions in their own memory; the whole chat (vanilla) resends "
        "everything and lets them drift out of reach."
    )

    def load_cases(self, path, *, max_chars=None, limit=None, **options):
        return load_cases(path, max_chars=max_chars)[:limit]

    def run_settings(self, ctx: RunContext) -> dict:
        return {"task": self.key, "model": ctx.models.generator.name, "config": ctx.settings.to_dict()}

    def run_case(self, arm: str, case: AdherenceCase, ctx: RunContext) -> list[dict]:
        return run_case(get_arm(arm).build(ctx.models, ctx.settings, case), case)

    def summarize(self, records, ctx: RunContext) -> dict:
        return {
            "task": self.key,
            "conversations": len(ctx.cases),
            "config": ctx.settings.to_dict(),
            "model": ctx.models.generator.name,
            "arms": {name: {"describe": get_arm(name).describe, **metrics(recs)} for name, recs in records.items()},
        }

    def report(self, results: dict) -> Report:
        keys = ("probes", "iar", "iar_10", "iar_depth_10_plus", "mean_prompt_tokens")
        rows = [[name, *(m.get(k) for k in keys)] for name, m in results["arms"].items()]
        rea = results.get("config", {}).get("rea", {})
        return Report(
            self.key,
            [("IAR per arm", ["arm", "probes", "IAR", "IAR 0-10", "IAR at depth >= 10", "mean prompt tokens"], rows)],
            notes=f"{results['conversations']} conversations, model {results['model']}, "
            f"tau_low {rea.get('tau_low')}, tau_high {rea.get('tau_high')}.",
        )

    def figures(self, results: dict) -> c.Figures:
        import plotly.graph_objects as go

        arms = c.series(results, "arms", "strategies")
        conversations = c.count(results, "conversations")
        probes = 0
        for name, m in arms.items():
            where = f'strategy "{c.clip(name)}"'
            probes = max(probes, int(c.number(m.get("probes"), f"{where} probes", lo=0)))
            if m.get("probes"):
                c.number(m.get("iar"), f"{where} iar", lo=0, hi=1)
                c.optional_number(m.get("iar_depth_10_plus"), f"{where} iar_depth_10_plus", lo=0, hi=1)
                c.optional_number(m.get("mean_prompt_tokens"), f"{where} mean_prompt_tokens", lo=0)
                for bucket, share in c.obj(m.get("by_depth"), f"{where} by_depth").items():
                    c.number(share, f"{where} by_depth {c.clip(str(bucket), 20)}", lo=0, hi=1)
        if not probes:
            raise c.ResultsFormatError("no strategy has any probe turn: nothing to draw")
        counts = f"{c.n_of(conversations, 'chat')}, {c.n_of(probes, 'checked reply', 'checked replies')} each"
        scale = c.small_run(counts, probes, 100)
        drawn = [(n, m) for n, m in arms.items() if m.get("probes")]

        depth = go.Figure()
        for i, (name, m) in c.rea_last(drawn):
            depth.add_scatter(
                x=[c.plain(b) for b in m["by_depth"]],
                y=list(m["by_depth"].values()),
                mode="lines+markers",
                name=c.plain(plain_name(name)),
                line=c.line(name, i),
                marker_size=8,
                hovertemplate="%{x} turns after it was given<br>followed %{y:.0%}" + c.hover(name),
            )
        depth_chart = c.chart(
            depth,
            "Instructions followed, by how long ago they were given",
            scale,
            legend_rows=len(drawn),
            xaxis=dict(title="turns since the instruction", type="category"),
            yaxis=dict(title="share followed", range=[0, 1.05], tickformat=".0%"),
        )
        c.empty_state(
            depth,
            "A line per strategy appears here when the run records how many turns after the instruction "
            "each reply was checked.",
        )
        iar = go.Figure()
        for key, label, color in (
            ("iar", "all checked replies", "#7c3aed"),
            ("iar_depth_10_plus", "10+ turns later", "#c4b5fd"),
        ):
            iar.add_bar(
                x=[c.plain(plain_name(n)) for n, _ in drawn],
                y=[m.get(key) for _, m in drawn],
                name=label,
                marker_color=color,
                customdata=[m.get("mean_prompt_tokens") or 0 for _, m in drawn],
                hovertemplate="%{x}: %{y:.0%} of checked replies follow every instruction"
                "<br>mean prompt %{customdata:.0f} tokens<extra>" + label + "</extra>",
            )
        iar.update_xaxes(
            tickvals=[c.plain(plain_name(n)) for n, _ in drawn],
            ticktext=[c.wrapped(plain_name(n), 14) for n, _ in drawn],
        )
        iar_chart = c.chart(
            iar,
            adherence_verdict(arms),
            (adherence_scores(arms), scale),
            legend_rows=2,
            barmode="group",
            yaxis=dict(title="followed every instruction", range=[0, 1.05], tickformat=".0%"),
        )
        c.empty_state(iar, "A bar per strategy appears here once a strategy has checked replies.")
        return c.Figures(
            title=self.plain_title,
            summary=self.plain_summary,
            names=tuple(arms),
            scale=c.with_model(scale, results.get("model")),
            command=f"rea eval {self.name} --data <suite.jsonl> {self.arms_flag} {','.join(arms)} --out <folder>",
            charts=(depth_chart, iar_chart),
        )


class AblationsTask(AdherenceTask):
    """``rea eval ablations``: the adherence check with one part of REA changed in each arm."""

    name, title, results_task = "ablations", "Ablations", "Ablations"
    arms_flag = "--arms"
    default_arms = ("vanilla", "em-only", "em-hcr", "em-hcr-im", "oracle-im", "im-withheld")
    default_arms += ("im-false-positive", "all-raw", "all-omitted")
    plain_title = "What each part of REA adds to following instructions"
    plain_summary = (
        "The same instruction check, with one part of REA changed or switched off in each variant: a "
        "variant that follows fewer instructions shows what that part is for."
    )


ADHERENCE_TASK, ABLATIONS_TASK = register_eval(AdherenceTask()), register_eval(AblationsTask())


def adherence_verdict(arms: dict) -> str:
    """The adherence bars' title: whether REA follows more instructions than the whole chat (vanilla) in
    this run, in plain words (a tie or a loss is said as plainly as a win); a plain heading when the run
    has not both. ``adherence_scores`` gives the numbers beneath it."""
    rea, vanilla = arms.get("rea") or {}, arms.get("vanilla") or {}
    if not rea.get("probes") or not vanilla.get("probes"):
        return "Replies that follow every instruction"
    a, b = float(rea["iar"]), float(vanilla["iar"])
    if a > b:
        return "REA follows more instructions than the whole chat"
    if a == b:
        return "REA and the whole chat follow as many instructions"
    return "REA does not beat the whole chat here"


def adherence_scores(arms: dict) -> str:
    """The numbers under the verdict: replies that follow every instruction, out of 10, per strategy."""
    drawn = [(n, m) for n, m in arms.items() if m.get("probes")]
    return "out of 10 replies, following every instruction: " + ", ".join(
        f"{plain_name(n)} {10 * float(m['iar']):.1f}" for n, m in drawn
    )
