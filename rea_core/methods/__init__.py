"""Context-management strategies behind one interface: ``respond(session, user_text) -> TurnResult``."""

from .base import Strategy, turn_summary
from .registry import available_strategies, get_strategy, register_strategy

__all__ = ["Strategy", "available_strategies", "get_strategy", "register_strategy", "turn_summary"]
