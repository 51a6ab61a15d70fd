"""REA's two memories (REA paper, section 3): Instructional Memory (``instructional``: the global
instructions kept verbatim) and Episodic Memory (``episodic``: every finished exchange, raw and
compressed, with its embeddings)."""

from .episodic import EpisodicMemory, Exchange
from .instructional import InstructionalMemory

__all__ = ["EpisodicMemory", "Exchange", "InstructionalMemory"]
