"""HCR's prompt budget on the real tokenizer: a plan that would overflow the model's window is demoted
until it fits, the Instructional Memory prefix stays, and a plan that fits is left alone."""

import numpy as np

from rea_core import Reason, RuntimeConfig, Thresholds, build_strategy
from rea_core.reconstruction import plan_length
from rea_core.types import SegmentKind


def test_over_window_plan_is_demoted_until_it_fits_and_keeps_im(models):
    strategy = build_strategy(
        "rea", models, runtime=RuntimeConfig(max_new_tokens=models.generator.context_window - 600)
    )
    budget = strategy.max_prompt_tokens
    assert budget == 600
    session = strategy.new_session()
    for turn in range(12):
        session.episodes.append(f"question {turn} about gardens " * 8, f"answer {turn} on soil and water " * 12)
    exchanges = session.episodes.exchanges
    scores = np.linspace(0.9, 0.95, len(exchanges))  # every exchange raw by score
    instructions = ["From now on, answer in lowercase."]
    lo, hi = strategy.config.thresholds

    plan, decisions = strategy.replan("what about roses?", exchanges, instructions, scores, Thresholds(lo, hi))
    assert plan_length(plan) <= budget and plan.budget == budget and plan.to_dict()["budget"] == budget
    from app.views.prompt import render_prompt_view

    assert "budget 600" in render_prompt_view(plan)  # the prompt view and Inspect say what it fits in
    demoted = [d for d in decisions if d.reason is Reason.BUDGET]
    assert demoted, "the over-window plan was not demoted"
    kept_scores = [d.score for d in decisions if d.reason is not Reason.BUDGET and d.reason is not Reason.RECENT]
    assert not kept_scores or min(kept_scores) >= max(d.score for d in demoted)  # lowest scores go first
    assert plan.instructions is not None and "lowercase" in plan.instructions.text
    assert plan.segments[0].kind is SegmentKind.SYSTEM or plan.segments[0].kind is SegmentKind.INSTRUCTIONS
    # the generator's real prompt stays within the window: nothing of the prefix would be cut
    from rea_core.reconstruction import render_messages

    assert models.generator.prompt_tokens(render_messages(plan)) <= budget

    roomy = build_strategy("rea", models)
    plan, decisions = roomy.replan("what about roses?", exchanges, instructions, scores, Thresholds(lo, hi))
    assert not any(d.reason is Reason.BUDGET for d in decisions)
