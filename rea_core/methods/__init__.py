"""The context-management methods, one folder each, behind one interface: ``respond(session, text) -> TurnResult``.

``rea/``, ``secom/``, ``comedy/`` and ``vanilla/`` each hold their ``config.py`` (the method's own settings;
vanilla has none), ``strategy.py`` and, in ``__init__.py``, the one ``MethodSpec`` that registers the method
(name, title, description, strategy, config class). ``base.py`` is the shared ``Strategy`` and ``registry.py``
finds a method by name. How any of them is served is ``runtime.RuntimeConfig``.
"""

from .base import Strategy, stats_text, turn_summary
from .registry import (
    MethodSpec,
    available_strategies,
    get_method,
    get_strategy,
    register_method,
    register_strategy,
)

__all__ = [
    "MethodSpec",
    "Strategy",
    "available_strategies",
    "get_method",
    "get_strategy",
    "register_method",
    "register_strategy",
    "stats_text",
    "turn_summary",
]
