"""Method registry: each method declares one ``MethodSpec``, and everything that lists methods reads it here.

A built-in method is a folder of ``rea_core/methods`` whose ``__init__.py`` holds ``SPEC``; the folders are
listed without importing them, a spec is read on first use and its strategy (``"module:Class"``) imported
only when built, so ``rea --help`` imports no torch. ``register_method`` adds a spec at run time (a plugin,
a test). Settings, the CLI and the app ask the registry for names, config classes, titles and descriptions.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass, is_dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..errors import UnknownStrategyError

if TYPE_CHECKING:
    from .base import Strategy

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


@dataclass(frozen=True)
class MethodSpec:
    """The one record of a method: what it is called, what it does, which class runs it and what it reads.

    Example:
        >>> SPEC = MethodSpec(
        ...     name="secom",
        ...     title="SeCom",
        ...     description="Splits the chat into topical segments and retrieves the relevant ones.",
        ...     strategy="rea_core.methods.secom.strategy:SeComStrategy",
        ...     config_class=SeComConfig,
        ... )
    """

    name: str  # the key everywhere: ``build_strategy(name)``, ``Settings.method_config(name)``, the CLI, the app
    title: str  # how the app names it ("SeCom")
    description: str  # one line for a visitor: what it does with the chat history
    strategy: "str | type[Strategy]"  # "module:Class", imported when first built, or the class itself
    config_class: type | None = None  # its method settings (a dataclass); None: it has none, as vanilla

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"Strategy names are lowercase identifiers, got {self.name!r}")
        if not (isinstance(self.strategy, type) or (isinstance(self.strategy, str) and ":" in self.strategy)):
            raise ValueError(f"method {self.name!r}: strategy must be a class or 'module:Class'")
        config = self.config_class
        if config is not None and not (isinstance(config, type) and is_dataclass(config)):
            raise ValueError(f"method {self.name!r}: config_class must be a dataclass or None")

    def implemented_by(self, cls: type) -> bool:
        """Whether ``cls`` is this method's strategy (compared by path for a class not yet imported)."""
        if isinstance(self.strategy, type):
            return self.strategy is cls
        return self.strategy == f"{cls.__module__}:{cls.__qualname__}"


_SPECS: dict[str, MethodSpec] = {}
_CLASSES: dict[str, type["Strategy"]] = {}


@cache
def builtin_methods() -> tuple[str, ...]:
    """The method folders beside this file (a directory listing: nothing is imported)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.ispkg))


def available_strategies() -> list[str]:
    return sorted(set(builtin_methods()) | set(_SPECS))


def get_method(name: str) -> MethodSpec:
    """The spec of method ``name``; a built-in's folder is imported (its spec and config, not its strategy).

    Raises:
        UnknownStrategyError: no method has that name.
    """
    if name not in _SPECS and name in builtin_methods():
        spec = getattr(importlib.import_module(f"{__package__}.{name}"), "SPEC", None)
        if not isinstance(spec, MethodSpec) or spec.name != name:
            raise ValueError(f"rea_core/methods/{name}/__init__.py must declare SPEC = MethodSpec(name={name!r}, ...)")
        _SPECS.setdefault(name, spec)
    if name not in _SPECS:
        raise UnknownStrategyError(f"Unknown strategy {name!r}; choose from: {', '.join(available_strategies())}")
    return _SPECS[name]


def register_method(spec: MethodSpec) -> MethodSpec:
    """Add a method at run time. Registering the same spec again does nothing.

    Raises:
        ValueError: another method already has that name (a built-in's included).
    """
    try:
        existing = get_method(spec.name)
    except UnknownStrategyError:
        existing = None
    if existing is not None and existing != spec:
        raise ValueError(f"Strategy {spec.name!r} is already registered by {_strategy_name(existing)}")
    _SPECS[spec.name] = spec
    return spec


def register_strategy(name: str) -> Callable[[type["Strategy"]], type["Strategy"]]:
    """Class decorator binding a strategy class to method ``name``: ``@register_strategy(SPEC.name)``.

    The class takes its name and config class from the method's spec. A name without a spec gets a plain
    one (title: the name, no description), so a strategy class alone still registers. Rejects
    non-lowercase names and a class other than the one the spec names.
    """
    if not _NAME.match(name):
        raise ValueError(f"Strategy names are lowercase identifiers, got {name!r}")

    def wrap(cls: type["Strategy"]) -> type["Strategy"]:
        try:
            spec = get_method(name)
        except UnknownStrategyError:
            spec = register_method(MethodSpec(name, name, "", cls, cls.config_class))
        if not spec.implemented_by(cls):
            raise ValueError(f"Strategy {name!r} is already registered by {_strategy_name(spec)}")
        return _bind(spec, cls)

    return wrap


def get_strategy(name: str) -> type["Strategy"]:
    """The strategy class of method ``name``, imported on first use.

    Raises:
        UnknownStrategyError: no method has that name.
    """
    if name not in _CLASSES:
        spec = get_method(name)
        cls = spec.strategy
        if isinstance(cls, str):
            module, _, attr = cls.partition(":")
            cls = getattr(importlib.import_module(module), attr)  # a decorated class binds itself here
        if name not in _CLASSES:
            _bind(spec, cls)
    return _CLASSES[name]


def _bind(spec: MethodSpec, cls: type["Strategy"]) -> type["Strategy"]:
    """Give the class its method's name and config class (one declared on the class must agree); one class
    runs one method, since its sessions carry its name."""
    if cls.__dict__.get("name") not in (None, spec.name):
        raise ValueError(f"{cls.__qualname__} already runs method {cls.name!r}; subclass it for {spec.name!r}")
    declared = cls.__dict__.get("config_class")
    if declared is not None and declared is not spec.config_class:
        raise ValueError(
            f"{cls.__qualname__} declares {declared.__name__}, but method {spec.name!r} takes "
            f"{getattr(spec.config_class, '__name__', 'no method config')}"
        )
    cls.name = spec.name
    cls.config_class = spec.config_class
    _CLASSES[spec.name] = cls
    return cls


def _strategy_name(spec: MethodSpec) -> str:
    return spec.strategy.__qualname__ if isinstance(spec.strategy, type) else spec.strategy.rpartition(":")[2]
