"""Vanilla full-history chat: every exchange raw, left-truncated to the context window.

The baseline of the REA paper (Tables 1, 4): no Instructional Memory and no retrieval. When the
templated history outgrows ``context_window - max_new_tokens`` the oldest tokens are cut, exactly
as a naive chat does, which is how early global instructions get lost.
"""

from __future__ import annotations

from ...reconstruction import build_prompt_plan
from ...retrieval.hcr import fixed_decisions
from ...session import ChatSession
from ...types import Decision, PromptPlan, Resolution
from ..base import Strategy
from ..registry import register_strategy
from . import SPEC


@register_strategy(SPEC.name)
class VanillaStrategy(Strategy):
    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        exchanges = session.episodes.exchanges
        decisions = fixed_decisions([ex.turn for ex in exchanges], Resolution.RAW)
        plan = build_prompt_plan(
            query=query,
            exchanges=exchanges,
            decisions=decisions,
            instructions=(),
            count_tokens=self.generator.count_tokens,
            system_prompt=self.runtime.system_prompt,
            show_time=self.runtime.show_time,
        )
        return plan, decisions
