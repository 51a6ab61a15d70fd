"""REA: Role-aware Heuristic Episodic Attention for conversational LLMs (seed 000).

Public API. Model-free parts import no torch; backends load lazily.

Example:
    >>> from rea_core import load_models, build_strategy
    >>> models = load_models()                     # packaged SmolLM2-135M + MiniLM, offline
    >>> rea = build_strategy("rea", models)
    >>> session = rea.new_session()
    >>> rea.respond(session, "From now on, answer in lowercase.").plan.instructions
"""

from .config import CALIBRATED_THRESHOLDS, DEFAULT_TAU_HIGH, DEFAULT_TAU_LOW, COMEDYConfig, REAConfig, SeComConfig, default_thresholds, scorer_label, validate_thresholds
from .conversations import Conversation, Turn, load_conversations
from .errors import CapabilityError, DataFormatError, InputError, ModelLoadError, REAError, ServingError, ThresholdError, UnknownStrategyError
from .memory.episodic import EpisodicMemory, Exchange
from .memory.instructional import InstructionalMemory
from .recognizer import InstructionRecognizer, RecognizerConfig
from .pipeline import Models, build_strategy, load_models
from .reconstruction import build_prompt_plan, render_messages
from .retrieval.hcr import decide, plan_context
from .retrieval.scoring import max_pairwise_cosine
from .retrieval.trace import RetrievalTrace, TurnTrace, trace_conversation
from .session import ChatSession, load_sessions, save_sessions
from .text import validate_message
from .strategies import Strategy, available_strategies, get_strategy, register_strategy
from .types import (
    Decision,
    Generation,
    InstructionEntry,
    PromptPlan,
    Reason,
    Recognition,
    ReplyForm,
    Resolution,
    Segment,
    SegmentKind,
    Timings,
    TurnResult,
)

__version__ = "0.1.0"

__all__ = [
    "load_sessions",
    "save_sessions",
    "CALIBRATED_THRESHOLDS",
    "DEFAULT_TAU_HIGH",
    "DEFAULT_TAU_LOW",
    "ChatSession",
    "Conversation",
    "DataFormatError",
    "Decision",
    "EpisodicMemory",
    "default_thresholds",
    "scorer_label",
    "Exchange",
    "Generation",
    "InputError",
    "InstructionEntry",
    "InstructionRecognizer",
    "InstructionalMemory",
    "ModelLoadError",
    "CapabilityError",
    "ServingError",
    "Models",
    "PromptPlan",
    "Reason",
    "REAConfig",
    "SeComConfig",
    "COMEDYConfig",
    "REAError",
    "Recognition",
    "RecognizerConfig",
    "ReplyForm",
    "RetrievalTrace",
    "Resolution",
    "Segment",
    "SegmentKind",
    "Strategy",
    "ThresholdError",
    "Timings",
    "Turn",
    "TurnTrace",
    "TurnResult",
    "UnknownStrategyError",
    "available_strategies",
    "build_prompt_plan",
    "build_strategy",
    "decide",
    "get_strategy",
    "load_conversations",
    "load_models",
    "max_pairwise_cosine",
    "plan_context",
    "register_strategy",
    "trace_conversation",
    "render_messages",
    "validate_message",
    "validate_thresholds",
]
