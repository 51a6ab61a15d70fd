"""COMEDY (COMEDY paper): one model compresses each session into a compressive memory, no retrieval.

``config.py`` (``COMEDYConfig``), ``strategy.py`` (``ComedyStrategy``), ``memory.py`` (Tasks 1 and 2).
``SPEC`` below registers the method (the strategy named as a string, imported when built).
"""

from ..registry import MethodSpec
from .config import COMEDYConfig

SPEC = MethodSpec(
    name="comedy",
    title="COMEDY",
    description="Summarizes past sessions into a compressive memory of you and your conversations.",
    strategy="rea_core.methods.comedy.strategy:ComedyStrategy",
    config_class=COMEDYConfig,
)
