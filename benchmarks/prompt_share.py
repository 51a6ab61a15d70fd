"""Benchmark: REA's prompt size against vanilla's at the probe turns of an adherence suite, no generation.

Each conversation is replayed through both strategies with its stored replies (probe turns, which
carry none, store an empty reply), and the templated prompt length is read at every probe turn,
the positions the adherence eval generates at. Prints both arms' mean prompt tokens, the mean
REA/vanilla prompt ratio for probes at turn >= --from-turn, the share of retained exchanges and how
many exchanges REA leaves to Instructional Memory.

Run: .venv/bin/python benchmarks/prompt_share.py --data suite.jsonl [--from-turn 20]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    from rea_core import Settings, load_models
    from rea_core.evals.adherence import load_cases
    from rea_core.loading import build_from_settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--from-turn", type=int, default=20)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    cases = load_cases(args.data)[: args.limit]
    settings = Settings.from_env()
    models = load_models(**settings.models.load_kwargs(), openai=settings.openai)
    ratios, kept, held = [], [], []
    totals: dict[str, list[int]] = {}
    for case in cases:
        tokens = {}
        for name in ("vanilla", "rea"):
            strategy = build_from_settings(name, models, settings)
            session = strategy.new_session()
            for i, turn in enumerate(case.conversation.turns):
                result = strategy.respond(session, turn.user, reply=turn.assistant or "")
                if i in case.probe_turns and i >= args.from_turn:
                    tokens.setdefault(name, []).append(result.prompt_tokens)
                    if name == "rea":
                        kept.append(
                            sum(d.resolution.value != "omit" for d in result.decisions) / max(1, len(result.decisions))
                        )
                        held.append(sum(d.reason.value == "held in Instructional Memory" for d in result.decisions))
            strategy.flush(session)
        ratios += [r / v for r, v in zip(tokens.get("rea", []), tokens.get("vanilla", []))]
        for name, counts in tokens.items():
            totals.setdefault(name, []).extend(counts)
    print(f"{len(cases)} conversations, {len(ratios)} probes at turn >= {args.from_turn}")
    rea, vanilla = np.mean(totals["rea"]), np.mean(totals["vanilla"])
    print(f"mean prompt tokens: REA {rea:.1f}, vanilla {vanilla:.1f} (ratio of the means {rea / vanilla:.3f})")
    print(f"REA / vanilla prompt tokens: mean {np.mean(ratios):.3f}, max {np.max(ratios):.3f}")
    print(f"exchanges held in Instructional Memory (not repeated) per probe: {np.mean(held):.2f}")
    print(f"REA keeps {np.mean(kept):.1%} of earlier exchanges (raw or compressed) at those probes")


if __name__ == "__main__":
    main()
