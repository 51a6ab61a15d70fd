"""Vanilla full-history chat, the baseline: every exchange raw, left-truncated to the context window.

It has no settings of its own: only the shared ``runtime.RuntimeConfig``. ``SPEC`` below registers it.
"""

from ..registry import MethodSpec

SPEC = MethodSpec(
    name="vanilla",
    title="vanilla",
    description="Sends the whole chat history with every message, as a plain chatbot does.",
    strategy="rea_core.methods.vanilla.strategy:VanillaStrategy",
)
