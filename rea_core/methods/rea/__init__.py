"""REA (REA paper): Instructional Memory, Episodic Memory and Heuristic Context Retrieval.

``config.py`` holds its settings (``REAConfig``), ``strategy.py`` the strategy (``REAStrategy``), and ``SPEC``
below registers the method. Only the config is imported here (the strategy is named as a string), so reading
the settings never loads the strategy and its models.
"""

from ..registry import MethodSpec
from .config import REAConfig

SPEC = MethodSpec(
    name="rea",
    title="REA",
    description="Keeps your standing instructions in Instructional Memory and sends past exchanges raw, "
    "compressed or not at all, by how relevant they are to your message.",
    strategy="rea_core.methods.rea.strategy:REAStrategy",
    config_class=REAConfig,
)
