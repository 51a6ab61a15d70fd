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
    session = strategy.new_session()
    records = []
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
                # time to first token from the turn's start, and the KV prefix reused (cached arms)
                "ttft_s": None
                if gen is None or gen.ttft_s is None
                else result.timings.recognize_s + result.timings.retrieve_s + gen.ttft_s,
                "reused_tokens": gen.reused_tokens if gen else 0,
                "new_tokens": result.new_tokens,
                "cache_note": gen.cache_note if gen else "",
            }
        )
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
    config,
    arm_names: list[str],
    out_dir: str | Path,
    *,
    turns: int = 60,
    every: int = 5,
    n: int = 1,
    seed: int = 0,
) -> dict:
    import plotly.graph_objects as go

    from .arms import get_arm
    from .report import write_report, write_results
    from .runner import RecordStore, run_arms

    arms = {name: get_arm(name) for name in arm_names}
    conversations = make_long_conversations(n, turns, seed)
    store = RecordStore(
        out_dir,
        {
            "task": "latency",
            "model": models.generator.name,
            "config": config.to_dict(),
            "turns": turns,
            "every": every,
            "seed": seed,
        },
    )
    run_arms(
        store,
        list(arms),
        conversations,
        lambda arm, conv: run_conversation(arms[arm].build(models, config, conv), conv, every),
        label="Latency",
    )
    ids = [c.id for c in conversations]
    by_arm = {name: store.records(name, ids) for name in arms}
    summary = {}
    for name, recs in by_arm.items():
        gen = [r for r in recs if r["generated"]]
        ttfts = [r["ttft_s"] for r in gen if r.get("ttft_s") is not None]
        summary[name] = {
            "mean_latency_s": sum(r["latency_s"] for r in gen) / len(gen) if gen else None,
            "mean_ttft_s": sum(ttfts) / len(ttfts) if ttfts else None,
            "reused_share": (
                sum(r.get("reused_tokens", 0) for r in gen) / max(1, sum(r["prompt_tokens"] for r in gen))
            )
            if gen
            else None,
            "mean_prompt_tokens": sum(r["prompt_tokens"] for r in recs) / len(recs) if recs else None,
            "last_turn_prompt_tokens": recs[-1]["prompt_tokens"] if recs else None,
        }
    ratio = last_turns_ratio(by_arm, "vanilla", "rea") if {"vanilla", "rea"} <= set(arms) else None
    cached_ratio = (
        last_turns_ratio(by_arm, "vanilla-cached", "rea-cached")
        if {"vanilla-cached", "rea-cached"} <= set(arms)
        else None
    )
    results = {
        "task": "latency",
        "turns": turns,
        "every": every,
        "conversations": n,
        "model": models.generator.name,
        "context_window": models.generator.context_window,
        "max_new_tokens": config.runtime.max_new_tokens,
        "arms": summary,
        "vanilla_over_rea_last_quarter": ratio,
        "vanilla_cached_over_rea_cached_last_quarter": cached_ratio,
        "per_turn": by_arm,
    }
    write_results(out_dir, results)
    lat, tok = go.Figure(), go.Figure()
    for name, recs in by_arm.items():
        gen = [r for r in recs if r["generated"]]
        lat.add_scatter(x=[r["turn"] for r in gen], y=[r["latency_s"] for r in gen], mode="lines+markers", name=name)
        tok.add_scatter(x=[r["turn"] for r in recs], y=[r["prompt_tokens"] for r in recs], mode="lines", name=name)
    lat.update_layout(title="Reply latency by turn", xaxis_title="turn", yaxis_title="seconds")
    tok.update_layout(title="Prompt tokens by turn", xaxis_title="turn", yaxis_title="tokens")
    rows = [
        [
            name,
            s["mean_latency_s"],
            s["mean_ttft_s"],
            s["reused_share"],
            s["mean_prompt_tokens"],
            s["last_turn_prompt_tokens"],
        ]
        for name, s in summary.items()
    ]
    write_report(
        out_dir,
        "Long-conversation latency",
        [lat, tok],
        [
            (
                "per arm",
                [
                    "arm",
                    "mean latency (s)",
                    "mean time to first token (s)",
                    "prompt share from KV cache",
                    "mean prompt tokens",
                    "prompt tokens at last turn",
                ],
                rows,
            )
        ],
        notes="vanilla/REA latency over the last quarter of generated turns: "
        f"{ratio if ratio is None else round(ratio, 2)}; "
        "with KV reuse (vanilla-cached/rea-cached): "
        f"{cached_ratio if cached_ratio is None else round(cached_ratio, 2)}",
    )
    return results
