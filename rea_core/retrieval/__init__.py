"""Heuristic Context Retrieval (REA paper, section 3.4): score every past exchange against the new
query (``scoring``, ``hcr_scores``), decide each one's form by two thresholds (``thresholds``, ``hcr``),
keep the referents of a follow-up (``followup``, ``rewrite``), and trace a whole conversation
decision by decision (``trace``)."""

from .thresholds import Thresholds
from .trace import redecide_turn, trace_conversation

__all__ = ["Thresholds", "redecide_turn", "trace_conversation"]
