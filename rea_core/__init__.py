"""REA: Role-aware Heuristic Episodic Attention for conversational LLMs (REA paper).

The public API: load models, build a strategy, respond, and the data that flows. Everything else is
imported from its module (``rea_core.retrieval.hcr``, ``rea_core.errors``, ...). Model-free parts
import no torch; backends load lazily.

Example:
    >>> from rea_core import Settings, build_strategy, load_models
    >>> settings = Settings.from_env()
    >>> models = load_models(**settings.models.load_kwargs())   # packaged SmolLM2-135M + MiniLM, offline
    >>> rea = build_strategy("rea", models, settings.rea, runtime=settings.runtime)
    >>> session = rea.new_session()
    >>> rea.respond(session, "From now on, answer in lowercase.").plan.instructions
"""

from .conversations import load_conversations
from .errors import REAError
from .loading import Models, build_strategy, load_models
from .methods import Strategy, available_strategies
from .methods.comedy.config import COMEDYConfig
from .methods.rea.config import REAConfig
from .methods.secom.config import SeComConfig
from .retrieval.thresholds import Thresholds
from .runtime import RuntimeConfig
from .session import ChatSession, load_sessions, save_sessions
from .settings import Settings
from .timestamps import now_time, prompt_time
from .types import Decision, PromptPlan, Reason, Resolution, TurnResult

__version__ = "0.1.0"
from .methods.rea.config import REPLY_FORMS, default_thresholds

__all__ = [
    "REPLY_FORMS",
    "COMEDYConfig",
    "ChatSession",
    "Decision",
    "Models",
    "PromptPlan",
    "REAConfig",
    "REAError",
    "Reason",
    "Resolution",
    "RuntimeConfig",
    "SeComConfig",
    "Settings",
    "Strategy",
    "Thresholds",
    "TurnResult",
    "available_strategies",
    "build_strategy",
    "default_thresholds",
    "load_conversations",
    "load_models",
    "load_sessions",
    "now_time",
    "prompt_time",
    "save_sessions",
]
