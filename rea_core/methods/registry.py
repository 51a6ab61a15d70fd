"""Strategy registry. Built-ins are listed as "module:Class" strings and imported on first use."""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, Callable

from ..errors import UnknownStrategyError

if TYPE_CHECKING:
    from .base import Strategy

_BUILTIN = {
    "vanilla": "rea_core.methods.vanilla.strategy:VanillaStrategy",
    "rea": "rea_core.methods.rea.strategy:REAStrategy",
    "secom": "rea_core.methods.secom.strategy:SeComStrategy",
    "comedy": "rea_core.methods.comedy.strategy:ComedyStrategy",
}
_REGISTRY: dict[str, type["Strategy"]] = {}
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def register_strategy(name: str) -> Callable[[type["Strategy"]], type["Strategy"]]:
    """Class decorator: ``@register_strategy("rea")``. Rejects non-lowercase and duplicate names."""
    if not _NAME.match(name):
        raise ValueError(f"Strategy names are lowercase identifiers, got {name!r}")

    def wrap(cls: type["Strategy"]) -> type["Strategy"]:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise ValueError(f"Strategy {name!r} is already registered by {_REGISTRY[name].__qualname__}")
        _REGISTRY[name] = cls
        cls.name = name
        return cls

    return wrap


def available_strategies() -> list[str]:
    return sorted(set(_BUILTIN) | set(_REGISTRY))


def get_strategy(name: str) -> type["Strategy"]:
    if name not in _REGISTRY and name in _BUILTIN:
        module, _, attr = _BUILTIN[name].partition(":")
        getattr(importlib.import_module(module), attr)  # importing registers it
    if name not in _REGISTRY:
        raise UnknownStrategyError(f"Unknown strategy {name!r}; choose from: {', '.join(available_strategies())}")
    return _REGISTRY[name]
