"""The context-management methods, one folder each, behind one interface: ``respond(session, text) -> TurnResult``.

``rea/``, ``secom/``, ``comedy/`` and ``vanilla/`` each hold their ``config.py`` (the method's own settings;
vanilla has none) and ``strategy.py``; ``base.py`` is the shared ``Strategy`` and ``registry.py`` finds a method
by name. How any of them is served is ``runtime.RuntimeConfig``.
"""

from .base import Strategy, turn_summary
from .registry import available_strategies, get_strategy, register_strategy

__all__ = ["Strategy", "available_strategies", "get_strategy", "register_strategy", "turn_summary"]
