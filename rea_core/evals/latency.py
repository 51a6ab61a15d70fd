"""Long-conversation latency (REA paper, Table 1/7, B.1: 27.29 s vs 9.39 s on Long-MT-Bench+, 2.91x).

Long conversations (60+ turns) are built like Long-MT-Bench+ by chaining clean ShareGPT sessions
(topic changes at the joins). Every turn's prompt tokens are recorded; every ``every``-th turn is
generated and timed (the others store the dataset reply, so both arms see the same history).
"""

from __future__ import annotations

import random
from pathlib import Path

from ..conversations import Conversation, Turn
from ..corpora import is_clean_turn, sharegpt_sessions
from ..methods.base import turn_summary
from . import charts as c
from .arms import REPLAY, get_arm, plain_name
from .task import EvalTask, Report, RunContext, register_eval, run_eval

MAX_POINTS = 20_000  # per-turn records of one arm that a results.json may hold to be drawn


def make_long_conversations(n: int, turns: int, seed: int = 0) -> list[Conversation]:
    rng = random.Random(seed)
    sessions = [[(u, r) for u, r in s if is_clean_turn(u, r, max_chars=2500)] for s in sharegpt_sessions(1500)]
    sessions = [s for s in sessions if s]
    rng.shuffle(sessions)
    stream = (pair for s in sessions for pair in s)
    return [
        Conversation(id=f"long-{seed}-{i}", turns=tuple(Turn(*next(stream)) for _ in range(turns))) for i in range(n)
    ]


def run_conversation(strategy, conv: Conversation, every: int) -> list[dict]:
    """Per turn: its costs. With KV reuse the next prompt's opening is read ahead after each turn
    (``Strategy.warm``, as the app does while the user reads and types); that read is timed apart
    (``read_ahead_s`` of the turn it served), not in the turn's latency."""
    session = strategy.new_session()
    records = []
    read_ahead_s = 0.0
    for j, turn in enumerate(conv.turns):
        generate = (j + 1) % every == 0
        result = strategy.respond(session, turn.user, reply=None if generate else turn.assistant)
        gen = result.generation
        records.append(
            {
                "turn": j,
                "prompt_tokens": result.prompt_tokens,
                "generated": generate,
                "latency_s": result.timings.total_s,
                "generate_s": result.timings.generate_s,
                "retrieve_s": result.timings.retrieve_s,
                "truncated_tokens": result.truncated_tokens,
                # time to first token from the turn's start (as the stats line counts it), and the KV prefix
                # reused (cached arms)
                "ttft_s": turn_summary(result).get("ttft_s"),
                "reused_tokens": gen.reused_tokens if gen else 0,
                "new_tokens": result.new_tokens,
                "cache_note": gen.cache_note if gen else "",
                "read_ahead_s": read_ahead_s,
            }
        )
        warm = strategy.warm(session) if (j + 2) % every == 0 else None  # only before a generated turn
        read_ahead_s = 0.0 if warm is None else warm().wall_s
    return records


def last_turns_ratio(
    records_by_arm: dict[str, list[dict]], numerator: str, denominator: str, share: float = 0.25
) -> float | None:
    """Mean latency ratio numerator/denominator over the generated turns in the last ``share`` of the
    conversation's turns (with every 8th of 40 generated: turns 31 and 39), or the last generated turn
    when none falls there."""

    def mean_tail(records):
        gen = [r for r in records if r["generated"]]
        if not gen:
            return None
        start = (max(r["turn"] for r in records) + 1) * (1 - share)
        tail = [r for r in gen if r["turn"] >= start] or gen[-1:]
        return sum(r["latency_s"] for r in tail) / len(tail)

    a, b = mean_tail(records_by_arm.get(numerator, [])), mean_tail(records_by_arm.get(denominator, []))
    return a / b if a and b else None


def evaluate(
    models,
    settings,
    arm_names: list[str],
    out_dir: str | Path,
    *,
    turns: int = 60,
    every: int = 5,
    n: int = 1,
    seed: int = 0,
) -> dict:
    for name in arm_names:
        get_arm(name)  # unknown names fail before the conversations are built
    cases = make_long_conversations(n, turns, seed)
    return run_eval(
        LATENCY_TASK, models, settings, cases, arm_names, out_dir, turns=turns, every=every, n=n, seed=seed
    )


def _mean(values: list) -> float | None:
    return sum(values) / len(values) if values else None


class LatencyTask(EvalTask):
    """``rea eval latency``: per-turn latency and prompt tokens over long conversations."""

    name, title, results_task = "latency", "Latency", "latency"
    arm_kind, arms_flag, default_arms = REPLAY, "--strategies", ("vanilla", "rea")
    needs_data = False

    def load_cases(self, path, *, max_chars=None, limit=None, turns=60, n=1, seed=0, **options):
        return make_long_conversations(n, turns, seed)

    def run_settings(self, ctx: RunContext) -> dict:
        o = ctx.options
        return {
            "task": "latency",
            "model": ctx.models.generator.name,
            "config": ctx.settings.to_dict(),
            "turns": o["turns"],
            "every": o["every"],
            "seed": o["seed"],
        }

    def run_case(self, arm: str, case: Conversation, ctx: RunContext) -> list[dict]:
        return run_conversation(get_arm(arm).build(ctx.models, ctx.settings, case), case, ctx.options["every"])

    def summarize(self, records, ctx: RunContext) -> dict:
        summary = {}
        for name, recs in records.items():
            gen = [r for r in recs if r["generated"]]
            summary[name] = {
                "mean_latency_s": _mean([r["latency_s"] for r in gen]),
                "mean_ttft_s": _mean([r["ttft_s"] for r in gen if r.get("ttft_s") is not None]),
                "reused_share": (
                    sum(r.get("reused_tokens", 0) for r in gen) / max(1, sum(r["prompt_tokens"] for r in gen))
                )
                if gen
                else None,
                # the opening read ahead before each generated turn, off its path (0: none)
                "mean_read_ahead_s": _mean([r.get("read_ahead_s", 0.0) for r in gen]),
                "mean_prompt_tokens": _mean([r["prompt_tokens"] for r in recs]),
                "last_turn_prompt_tokens": recs[-1]["prompt_tokens"] if recs else None,
            }

        def ratio(a: str, b: str) -> float | None:
            return last_turns_ratio(records, a, b) if {a, b} <= set(records) else None

        return {
            "task": "latency",
            "turns": ctx.options["turns"],
            "every": ctx.options["every"],
            "conversations": ctx.options["n"],
            "model": ctx.models.generator.name,
            "context_window": ctx.models.generator.context_window,
            "max_new_tokens": ctx.settings.runtime.max_new_tokens,
            "arms": summary,
            "vanilla_over_rea_last_quarter": ratio("vanilla", "rea"),
            "vanilla_cached_over_rea_cached_last_quarter": ratio("vanilla-cached", "rea-cached"),
            "per_turn": dict(records),
        }

    def report(self, results: dict) -> Report:
        keys = ("mean_latency_s", "mean_ttft_s", "reused_share", "mean_read_ahead_s")
        keys += ("mean_prompt_tokens", "last_turn_prompt_tokens")
        rows = [[name, *(s.get(k) for k in keys)] for name, s in results["arms"].items()]
        header = ["arm", "mean latency (s)", "mean time to first token (s)", "prompt share from KV cache"]
        header += ["opening read ahead before a reply (s)"]
        header += ["mean prompt tokens", "prompt tokens at last turn"]
        ratio, cached = (
            results["vanilla_over_rea_last_quarter"],
            results["vanilla_cached_over_rea_cached_last_quarter"],
        )
        return Report(
            "Long-conversation latency",
            [("per arm", header, rows)],
            notes="vanilla/REA latency over the last quarter of generated turns: "
            f"{ratio if ratio is None else round(ratio, 2)}; "
            "with KV reuse (vanilla-cached/rea-cached): "
            f"{cached if cached is None else round(cached, 2)}",
        )

    def figures(self, results: dict) -> c.Figures:
        import plotly.graph_objects as go

        turns, every = c.count(results, "turns"), c.count(results, "every")
        conversations = c.count(results, "conversations")
        per_turn = c.obj(results.get("per_turn"), '"per_turn"')
        if not per_turn or len(per_turn) > c.MAX_SERIES:
            raise c.ResultsFormatError(f'"per_turn" must hold 1 to {c.MAX_SERIES} strategies, found {len(per_turn)}')
        records: dict[str, list[dict]] = {}
        for name, recs in per_turn.items():
            where = f'per_turn "{c.clip(str(name))}"'
            if not isinstance(recs, list):
                raise c.ResultsFormatError(f"{where} must be a list of turns, found {c.kind(recs)}")
            if len(recs) > MAX_POINTS:
                raise c.ResultsFormatError(f"{where} holds {len(recs)} turns; at most {MAX_POINTS} are drawn")
            for k, r in enumerate(recs):
                r = c.obj(r, f"{where} turn {k}")
                for key in ("turn", "prompt_tokens", "latency_s"):
                    c.number(r.get(key), f"{where} turn {k}: {key}", lo=0)
                if not isinstance(r.get("generated"), bool):
                    raise c.ResultsFormatError(f"{where} turn {k}: generated must be true or false")
            records[str(name)] = recs
        ratio = c.optional_number(
            results.get("vanilla_over_rea_last_quarter"), '"vanilla_over_rea_last_quarter"', lo=0
        )
        counts = f"{c.n_of(conversations, 'chat')} of {turns} turns, " + (
            f"a reply generated every {every}th turn" if every > 1 else "every reply generated"
        )
        scale = c.small_run(counts, conversations * turns, 60)
        command = (
            f"rea eval latency --turns {turns} --every {every} --n {conversations} "
            f"--strategies {','.join(per_turn)} --out <folder>"
        )
        if isinstance(results.get("max_new_tokens"), int) and results["max_new_tokens"] != 64:
            command = command.replace(" --out", f" --max-new-tokens {results['max_new_tokens']} --out")

        tokens, seconds = go.Figure(), go.Figure()
        for i, (name, recs) in c.rea_last(records.items()):
            generated = [r for r in recs if r["generated"]]  # only these turns were timed
            for fig, rows, key, mode, says in (
                (tokens, recs, "prompt_tokens", "lines", "%{y} tokens read"),
                (seconds, generated, "latency_s", "lines+markers", "%{y:.2f} s"),
            ):
                fig.add_scatter(
                    x=[r["turn"] for r in rows],
                    y=[r[key] for r in rows],
                    mode=mode,
                    name=c.plain(plain_name(name)),
                    line=c.line(name, i),
                    hovertemplate=f"turn %{{x}}: {says}" + c.hover(name),
                )
        tokens_chart = c.chart(
            tokens,
            "How much the model reads each turn",
            scale,
            legend_rows=len(records),
            xaxis=dict(title="turn"),
            yaxis=dict(title="prompt length (tokens)", rangemode="tozero"),
        )
        c.empty_state(tokens, "A line per strategy appears here once the run records at least one turn.")
        slower = f"last quarter of the chat: the whole chat takes {ratio:.2f}× REA's time" if ratio else ""
        seconds_chart = c.chart(
            seconds,
            "Seconds to reply, turn by turn",
            (scale, slower) if slower else scale,
            legend_rows=len(records),
            xaxis=dict(title="turn"),
            yaxis=dict(title="seconds", rangemode="tozero"),
        )
        c.empty_state(
            seconds,
            "Reply times appear here for the turns where a reply was generated; this run generated none "
            "(run it with a smaller --every than --turns).",
        )
        return c.Figures(
            title="Reply time as a chat grows long",
            summary="One long chat replayed turn by turn. The whole chat (vanilla) sends all of its history every "
            "turn, so what the model reads, and the wait for each reply, keep growing; REA sends only what it keeps.",
            names=tuple(records),
            scale=c.with_model(scale, results.get("model")),
            command=command,
            charts=(tokens_chart, seconds_chart),
        )


LATENCY_TASK = register_eval(LatencyTask())
