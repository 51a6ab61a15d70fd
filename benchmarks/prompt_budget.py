"""Benchmark: REA's prompt against the model's window on LoCoMo, with and without HCR's prompt budget.

For every question of the given LoCoMo conversations, REA's plan is built as `rea eval qa` builds it
(the bare question scored against every earlier exchange, at the shipped thresholds; text reply
stand-ins) twice: with the prompt budget (the shipped behaviour: the lowest-scored exchanges demoted
until the plan fits the window less the reply's tokens) and without it. Prints, per variant, the
templated prompt tokens (median, max), how many prompts exceed the budget (the generator would then
drop their oldest tokens: the system prompt first), how many questions had exchanges demoted, and
the share of questions whose evidence exchanges are all still shown (at any resolution).
No generation: about a minute per conversation on a 2-core CPU.

Run: .venv/bin/python benchmarks/prompt_budget.py --data ../shared/locomo-dev/42.json
"""

from __future__ import annotations

import argparse
import os

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    from rea_core import Reason, Settings, load_models
    from rea_core.evals.qa import QAContext, REAPlanner, shown_turns, with_question, wrapped_question
    from rea_core.evals.retrieval import load_locomo
    from rea_core.methods.rea.strategy import REAStrategy
    from rea_core.reconstruction import render_messages

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", required=True)
    args = parser.parse_args()
    settings = Settings.from_env()
    models = load_models(**settings.models.load_kwargs())
    ctx = QAContext(models=models, settings=settings)
    g = models.generator

    class Unbudgeted(REAStrategy):
        """REA as it was before the budget: a window larger than any plan."""

        max_prompt_tokens = 10**9

    stats = {"budget": [], "none": []}
    limit = None
    for path in args.data:
        for case in load_locomo(path):
            planners = {"budget": REAPlanner(case, ctx), "none": REAPlanner(case, ctx)}
            s = planners["none"].strategy
            planners["none"].strategy = Unbudgeted(
                s.generator, s.embedder, s.config, runtime=s.runtime, recognizer=s.recognizer, codec=None
            )
            limit = planners["budget"].strategy.max_prompt_tokens
            for i, q in enumerate(case.queries):
                for name, planner in planners.items():
                    plan, _ = planner.plan(q)
                    plan = with_question(plan, wrapped_question(q.text), g.count_tokens)
                    tokens = g.prompt_tokens(render_messages(plan))
                    demoted = sum(s.reason is Reason.BUDGET for s in plan.exchanges())
                    shown = shown_turns(plan)
                    evidence = all(t in shown for t in q.needed) if q.needed else None
                    stats[name].append((tokens, demoted, evidence))
                print(f"\r{case.id}: {i + 1}/{len(case.queries)} questions", end="", flush=True)
            print()
    print(f"budget (window {g.context_window} less the reply's {g.context_window - limit} tokens): {limit} tokens")
    for name, rows in stats.items():
        tokens = np.array([r[0] for r in rows])
        evidence = [r[2] for r in rows if r[2] is not None]
        print(
            f"{'with budget' if name == 'budget' else 'no budget  '}: {len(rows)} questions, prompt tokens median "
            f"{np.median(tokens):.0f} max {tokens.max()}, over the budget {int((tokens > limit).sum())}, "
            f"questions with demotions {sum(r[1] > 0 for r in rows)}, evidence all shown "
            f"{np.mean(evidence):.3f} of {len(evidence)}"
        )


if __name__ == "__main__":
    main()
