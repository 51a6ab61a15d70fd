"""SeCom (SeCom paper, ICLR 2025): segment-level memory, denoised by compression, retrieved top-N.

``config.py`` (``SeComConfig``), ``strategy.py`` (``SeComStrategy``) and its parts: ``segmenter.py``,
``compressor.py`` (LLMLingua), ``retriever.py`` (BM25 or dense top-N).
``SPEC`` below registers the method (the strategy named as a string, imported when built).
"""

from ..registry import MethodSpec
from .config import SeComConfig

SPEC = MethodSpec(
    name="secom",
    title="SeCom",
    description="Splits the chat into topical segments and retrieves the relevant ones.",
    strategy="rea_core.methods.secom.strategy:SeComStrategy",
    config_class=SeComConfig,
)
