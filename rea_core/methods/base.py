"""The strategy interface and the steps every strategy shares.

``respond(session, user_text)`` validates the message, lets the strategy update its memories,
builds a ``PromptPlan`` (the one step a strategy must define, ``build_context``), generates (or
stores a given reply, for replay) and records the finished exchange. A failed model call leaves
the session exactly as it was.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from contextlib import closing, nullcontext
from time import perf_counter
from typing import Callable, ClassVar, ContextManager, Iterator

from ..backends.base import OUTPUT_RULES, PREFILL, Embedder, Generator, has, require
from ..errors import DataFormatError, InputError, ServingError
from ..memory.episodic import EpisodicMemory
from ..memory.instructional import InstructionalMemory
from ..prompt_layout import PromptPrint, reuse_note
from ..reconstruction import rendered_sources
from ..retrieval.thresholds import Thresholds
from ..runtime import RuntimeConfig
from ..session import ChatSession
from ..text import validate_message
from ..timestamps import parse_time
from ..types import Decision, Generation, Prefill, PromptPlan, Recognition, Segment, Timings, TurnResult
from ..validation import is_whole

log = logging.getLogger(__name__)

# session.scratch key: the prompt the model last read (``prompt_layout.PromptPrint``), per session, never saved
PROMPT_PRINT = "prompt_print"


class Strategy(ABC):
    """A context-management policy over one generator (and, if it retrieves, one embedder)."""

    # name and config_class come from the method's spec (registry.MethodSpec) when the class is registered
    name: ClassVar[str] = ""
    requires: ClassVar[frozenset[str]] = frozenset()  # optional Generator capabilities this strategy calls
    config_class: ClassVar[type | None] = None  # the method's settings (methods/<method>/config.py); None: it has none
    # Whether ``end_sitting`` does anything: memory organized by sittings, the parts of one conversation
    # the papers call "sessions" (COMEDY, SeCom), so a "new session" control means something. A class
    # attribute: readable before a strategy is built.
    uses_sittings: ClassVar[bool] = False

    def __init__(
        self,
        generator: Generator,
        embedder: Embedder | None = None,
        config=None,
        *,
        runtime: RuntimeConfig | None = None,
    ):
        expected = self.config_class or type(None)
        if config is not None and not isinstance(config, expected):
            raise TypeError(
                f"the {self.name or type(self).__name__} strategy takes "
                f"{'no method config' if self.config_class is None else 'a ' + expected.__name__}, "
                f"got {type(config).__name__} (serving settings go in runtime=RuntimeConfig(...))"
            )
        self.generator = generator
        self.embedder = embedder
        self.config = config if config is not None else (self.config_class() if self.config_class else None)
        self.runtime = runtime or RuntimeConfig()
        require(generator, self.requirements(), f"the {self.name or type(self).__name__} strategy")

    def requirements(self) -> frozenset[str]:
        """Generator capabilities needed under this config (``requires`` plus what config choices add)."""
        return self.requires

    @classmethod
    def from_models(cls, models, config=None, *, runtime: RuntimeConfig | None = None) -> "Strategy":
        """Build from a ``loading.Models``; strategies needing more models override this."""
        return cls(models.generator, models.embedder, config, runtime=runtime)

    def parts(self) -> dict:
        """Constructor arguments beyond generator, embedder, config and runtime (REA's recognizer and codec),
        so ``with_config`` can rebuild the strategy on the same parts."""
        return {}

    def with_config(self, config=None, *, runtime: RuntimeConfig | None = None) -> "Strategy":
        """The same strategy on the same models and parts under another method config or runtime."""
        return type(self)(
            self.generator,
            self.embedder,
            self.config if config is None else config,
            runtime=runtime or self.runtime,
            **self.parts(),
        )

    def with_thresholds(self, thresholds: Thresholds) -> "Strategy":
        """This strategy deciding its turns at ``thresholds``, on the same models, parts and memory;
        strategies whose decisions use no thresholds decide the same at any, so they return themselves."""
        return self

    def with_reply_form(self, form: str) -> "Strategy":
        """This strategy writing its compressed replies in ``form`` ("auto", "latent", "text"); strategies
        that compress no replies into latents have one form, so they return themselves."""
        return self

    def new_session(self) -> ChatSession:
        return ChatSession(strategy=self.name, instructions=InstructionalMemory(), episodes=EpisodicMemory())

    @property
    def score_label(self) -> str | None:
        """What this strategy's decision scores are, when thresholds apply to them (None: no thresholds)."""
        return None

    @property
    def uses_instructional_memory(self) -> bool:
        """Whether this strategy keeps an Instructional Memory prefix (views show the IM panel)."""
        return False

    def catch_up_cost(self, session: ChatSession) -> int:
        """Model calls (embeddings, compressions) the next turn would make to bring a session read
        from a file up to date, so a caller can refuse a file whose catch-up would hold the shared
        models for minutes. Strategies that cache nothing per exchange cost nothing."""
        return 0

    def check_memory(self, session: ChatSession) -> None:
        """Refuse strategy memory read from a file (``session.memory``, and the state ``undo`` keeps)
        that this strategy could not use, before the session is kept: junk there would fail every
        later Send instead of the load.

        Raises:
            DataFormatError: naming what is wrong.
        """
        memory, undo = session.memory, session.memory.get("undo")
        states = [(memory, session.n_turns)]
        if undo is not None:
            if not (isinstance(undo, dict) and is_whole(undo.get("turn"), 0) and isinstance(undo.get("state"), dict)):
                raise DataFormatError(f'{self.name} memory: "undo" must be {{"turn": whole number, "state": object}}')
            states.append((undo["state"], undo["turn"]))
        for state, n_turns in states:
            problem = self.memory_problem(state, n_turns)
            if problem:
                raise DataFormatError(f"{self.name} memory: {problem}")

    def memory_problem(self, memory: dict, n_turns: int) -> str | None:
        """What makes ``memory`` (as ``state()`` reads it, over ``n_turns`` stored exchanges) unusable, or
        None. Strategies that keep no memory use none of it."""
        return None

    # -- the steps a strategy may override ------------------------------------------------------

    def update_instructions(self, session: ChatSession, user_text: str) -> Recognition | None:
        """Before answering: update Instructional Memory. Strategies without IM do nothing."""
        return None

    @abstractmethod
    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """The prompt plan for ``query`` and one decision per stored exchange."""

    def store(
        self,
        session: ChatSession,
        user_text: str,
        reply: str,
        *,
        time: str | None = None,
        plan: PromptPlan | None = None,
    ) -> None:
        """After answering: keep the finished exchange, with when the user sent it (``time``, stored form).
        ``plan``: the prompt the turn was answered from (REA lays out the next one after it)."""
        session.episodes.append(user_text, reply, time=time)

    def redecide(
        self, session: ChatSession, last: TurnResult, thresholds: Thresholds
    ) -> tuple[PromptPlan, tuple[Decision, ...]]:
        """The plan ``last`` would have had under other thresholds, from its cached scores: no model call.

        Strategies without thresholds return the plan they used.
        """
        return last.plan, last.decisions

    def end_sitting(self, session: ChatSession) -> str:
        """Close the current sitting (the explicit "new session" action; the papers' "session").

        Strategies that organize memory by sitting (COMEDY, SeCom) consolidate it here; the rest
        ignore it. Returns a note for the user ("" when nothing happened).
        """
        return ""

    @staticmethod
    def commit_memory(session: ChatSession, turn: int, state: dict) -> None:
        """Replace the strategy-owned ``session.memory`` after storing ``turn``, keeping the state
        before it so ``undo_last_turn`` can put it back. Assigned whole: a failure before this
        call leaves the memory as it was."""
        previous = {k: v for k, v in session.memory.items() if k != "undo"}
        session.memory = {**state, "undo": {"turn": turn, "state": previous}}

    def stream_reply(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> Iterator[str | Generation]:
        """The model call of a turn, streamed; strategies whose prompt is not plain text (REA's latents)
        override it."""
        return self.generator.stream(
            messages,
            max_new_tokens=self.runtime.max_new_tokens,
            max_prompt_tokens=self.max_prompt_tokens,
            cache_key=self.cache_key(session),
            budget_s=self.runtime.reply_budget_s,
            **self.rule_kwargs(plan),
        )

    def rule_kwargs(self, plan: PromptPlan) -> dict:
        """``rules=`` for the model call when ``plan`` carries output rules and the generator keeps them."""
        return {"rules": plan.rules} if plan.rules and has(self.generator, OUTPUT_RULES) else {}

    def cache_key(self, session: ChatSession) -> str | None:
        """The session's KV prefix-cache key when ``runtime.kv_reuse`` is on (None: prefill in full)."""
        return f"{self.name}:{session.session_id}" if self.runtime.kv_reuse else None

    def next_opening(self, session: ChatSession) -> list[tuple[dict, tuple[Segment, ...]]]:
        """The messages (with their plan segments, as ``rendered_sources`` gives them) the next prompt
        will open with whatever the next message is; none when that is not known before it."""
        return []

    def warm(self, session: ChatSession) -> Callable[[], Prefill] | None:
        """A call that reads the next prompt's opening (``next_opening``) into the session's KV cache, or
        None when there is nothing to read ahead (no KV reuse, a backend without PREFILL, no known opening).

        Why: a reply's first token waits for the prefill of its whole prompt; the opening is known as
        soon as the previous reply ends, so the caller runs the returned call off the reply's path
        (the app on a thread while the user reads and types). The next reply waits for it if it is still
        running, and reuses whatever of its prompt the cache holds (never a different reply). The
        opening is computed here, in the caller's thread; the call only reads it."""
        key = self.cache_key(session)
        if key is None or not has(self.generator, PREFILL):
            return None
        sources = self.next_opening(session)
        if not sources:
            return None
        messages = [message for message, _ in sources]
        session.scratch[PROMPT_PRINT] = PromptPrint.of(sources, read_ahead=True)
        generator = self.generator
        return lambda: generator.prefill(messages, cache_key=key)

    def read_ahead(
        self, session: ChatSession, *, within: Callable[[], ContextManager] = nullcontext
    ) -> threading.Thread | None:
        """``warm`` started on a thread, for a chat between two messages (the app, ``rea chat``): the
        next reply waits for it if it is still running. None: nothing to read ahead. A failure is
        logged and costs the next reply its reuse, nothing else. ``within``: a context the call runs
        in on its thread (the app's chat-first gate: the read serves a chat, so background work waits
        for it)."""
        try:
            call = self.warm(session)
        except Exception:  # a finished turn never fails over its read-ahead
            log.exception("reading the next prompt's opening ahead failed")
            return None
        if call is None:
            return None

        def run() -> None:
            try:
                with within():
                    call()
            except Exception:
                log.exception("reading the next prompt's opening ahead failed")

        thread = threading.Thread(target=run, name="rea-read-ahead", daemon=True)
        thread.start()
        return thread

    def prompt_length(self, session: ChatSession, plan: PromptPlan, messages: list[dict]) -> int:
        """Positions the generator would read for ``messages`` (used when a reply is replayed, not generated)."""
        return self.generator.prompt_tokens(messages)

    def flush(self, session: ChatSession) -> None:
        """Finish background work on ``session`` (REA's latent compression) before it is saved."""

    # -- shared ----------------------------------------------------------------------------------

    def undo_last_turn(self, session: ChatSession) -> str:
        """Remove the latest exchange (and what its turn added to IM); returns its user text."""
        if not session.n_turns:
            raise IndexError("There is no turn to undo.")
        turn = session.n_turns - 1
        user_text = session.episodes.exchanges[turn].user
        session.episodes.truncate(turn)
        session.instructions.restore(
            e for e in session.instructions if not (e.turn == turn and e.source == "recognizer")
        )
        undo = session.memory.get("undo")
        if undo and undo.get("turn") == turn:  # strategy memory as it was before this turn
            session.memory = dict(undo["state"])
        if session.log and session.log[-1].get("turn") == turn:
            session.log.pop()
        session.scratch.pop(PROMPT_PRINT, None)  # the model read that turn's prompt; the next one parts from it anyway
        return user_text

    def retrace_latest(self, session: ChatSession) -> TurnResult | None:
        """The latest turn planned again with its stored reply (no generation), on a copy of the session
        as it was before that turn; None without turns. The session itself is unchanged.

        Why: a conversation loaded from a file has no ``TurnResult``; with this one its prompt view,
        scores and thresholds work on its latest turn, and re-answering it works, as after a typed turn.
        """
        if not session.n_turns:
            return None
        copy = ChatSession.from_dict(session.to_dict())
        latest = copy.episodes.exchanges[-1]
        user_text = self.undo_last_turn(copy)
        return self.respond(copy, user_text, reply=latest.reply, time=latest.time)

    def check_message(self, text: object, *, generating: bool = True) -> str:
        """The message to answer, checked before any model call (the app's Send checks it this way too).

        Characters first (``max_message_chars``), then, when a reply will be generated and the runtime
        caps them (``max_message_tokens``, REA_MAX_MESSAGE_TOKENS), the message's tokens: counting
        takes milliseconds, its prefill would take seconds per hundred tokens on a CPU.

        Raises:
            InputError: empty, not text, or over a limit, naming the count, the cap and the variable.
        """
        text = validate_message(text, self.runtime.max_message_chars)
        cap = self.runtime.max_message_tokens
        if generating and cap is not None:
            tokens = self.generator.count_tokens(text)
            if tokens > cap:
                raise InputError(
                    f"The message has {tokens:,} tokens, over the limit of {cap:,} "
                    "(REA_MAX_MESSAGE_TOKENS); nothing was sent or stored."
                )
        return text

    @property
    def max_prompt_tokens(self) -> int:
        return max(1, self.generator.context_window - self.runtime.max_new_tokens)

    def respond(
        self, session: ChatSession, user_text: str, *, reply: str | None = None, time: str | None = None
    ) -> TurnResult:
        """Answer ``user_text`` (or, in replay, store the given ``reply`` without generating).

        ``time``: when the user sent it (ISO 8601, kept on the exchange in the stored form of
        ``rea_core.timestamps``); None when unknown.

        Raises:
            InputError: empty or oversize message; nothing is stored.
            DataFormatError: ``time`` is not an ISO 8601 date-time; nothing is stored.
            ServingError: the model call failed; nothing is stored.
        """
        result = None
        for item in self.respond_stream(session, user_text, reply=reply, time=time):
            result = item
        return result

    def respond_stream(
        self, session: ChatSession, user_text: str, *, reply: str | None = None, time: str | None = None
    ) -> Iterator[str | TurnResult]:
        """``respond`` as a stream: the reply's text pieces as they are decoded, then the ``TurnResult``.

        Closing the stream before its ``TurnResult`` (a Stop button) or a failure anywhere leaves
        the session exactly as it was before the turn: nothing is stored, IM is restored.
        """
        text = self.check_message(user_text, generating=reply is None)
        stamp = None if time is None else parse_time(time, where="the message's time")
        im_before, turns_before = session.instructions.entries, session.n_turns
        memory_before, log_before = session.memory, len(session.log)
        gen = None
        try:
            t0 = perf_counter()
            recognition = self.update_instructions(session, text)
            t1 = perf_counter()
            plan, decisions = self.build_context(session, text)
            sources = rendered_sources(plan)
            messages = [message for message, _ in sources]
            t2 = perf_counter()
            reuse = ""
            if reply is None:
                read = PromptPrint.of(sources)
                reuse = reuse_note(session.scratch.get(PROMPT_PRINT), read)
                with closing(
                    self.stream_reply(session, plan, messages)
                ) as stream:  # closed (decoding stopped) if this turn is
                    for item in stream:
                        if isinstance(item, Generation):
                            gen = item
                        else:
                            yield item
                if gen is None or gen.stopped:
                    raise ServingError("the reply stopped before it ended; nothing was stored")
                if gen.out_of_time and not gen.new_tokens:
                    raise ServingError(
                        f"the reply's time budget of {self.runtime.reply_budget_s:g} s (REA_REPLY_BUDGET_S) ran "
                        f"out before its first word ({gen.prompt_tokens:,} prompt tokens); nothing was stored"
                    )
                answer, prompt_tokens, new_tokens, truncated = (
                    gen.text,
                    gen.prompt_tokens,
                    gen.new_tokens,
                    gen.truncated_tokens,
                )
            else:
                full = self.prompt_length(session, plan, messages)
                truncated = max(0, full - self.max_prompt_tokens)
                answer, prompt_tokens, new_tokens = reply, full - truncated, 0
            t3 = perf_counter()
            self.store(session, text, answer, time=stamp, plan=plan)
            t4 = perf_counter()
            if reply is None:  # what the model's KV now holds: the next turn says where it parts from it
                session.scratch[PROMPT_PRINT] = read.followed_by(answer)
        except BaseException:
            session.instructions.restore(im_before)  # a failed or stopped turn changes nothing
            session.episodes.truncate(turns_before)
            session.memory = memory_before
            del session.log[log_before:]
            raise
        result = TurnResult(
            turn=session.n_turns - 1,
            reply=answer,
            plan=plan,
            decisions=decisions,
            recognition=recognition,
            prompt_tokens=prompt_tokens,
            new_tokens=new_tokens,
            truncated_tokens=truncated,
            generated=reply is None,
            timings=Timings(recognize_s=t1 - t0, retrieve_s=t2 - t1, generate_s=t3 - t2, store_s=t4 - t3),
            generation=gen,
            reuse_note=reuse,
        )
        session.log.append(turn_summary(result))
        yield result


def turn_summary(result: TurnResult) -> dict:
    """The per-turn record kept in the session log (saved with the session; the app's per-turn stats read it)."""
    summary = {
        "turn": result.turn,
        "prompt_tokens": result.prompt_tokens,
        "new_tokens": result.new_tokens,
        "truncated_tokens": result.truncated_tokens,
        "decisions": result.decision_counts(),
        "recognition": result.recognition.to_dict() if result.recognition else None,
        "generated": result.generated,
        "latency_s": result.timings.total_s,
    }
    gen = result.generation
    if gen is not None:  # serving figures: time to first token (from the turn's start), KV reuse
        summary["ttft_s"] = (
            None if gen.ttft_s is None else result.timings.recognize_s + result.timings.retrieve_s + gen.ttft_s
        )
        summary["reused_tokens"] = gen.reused_tokens
        summary["cache_bytes"] = gen.cache_bytes
        if gen.cache_note:
            summary["cache_note"] = gen.cache_note
        if result.reuse_note:
            summary["reuse_note"] = result.reuse_note
        if gen.out_of_time:  # kept, as a reply cut by max_new_tokens is, and marked
            summary["out_of_time"] = True
        if gen.cut_at_tokens:
            summary["cut_at_tokens"] = gen.cut_at_tokens
        if gen.token_source != "tokenizer":
            summary["token_source"] = gen.token_source
        if gen.kept_rules:
            summary["kept_rules"] = list(gen.kept_rules)
            summary["rule_rewrites"] = gen.rule_rewrites
    return summary


def stats_text(entry: dict) -> str:
    """One turn's stats line from its ``turn_summary``: prompt tokens (and where the count came from),
    time to first token, total time, decisions, KV reuse. Plain text, no user text."""
    d = entry.get("decisions", {})
    source = entry.get("token_source")
    parts = [f"cut at {entry['cut_at_tokens']} tokens"] if entry.get("cut_at_tokens") else []
    parts.append(f"prompt {entry.get('prompt_tokens', 0)} tok" + (f" ({source})" if source else ""))
    if entry.get("ttft_s") is not None:
        parts.append(f"first token {entry['ttft_s']:.2f} s")
    parts.append(f"total {entry.get('latency_s', 0.0):.2f} s")
    parts.append(f"raw {d.get('raw', 0)} · compressed {d.get('compressed', 0)} · omitted {d.get('omit', 0)}")
    if entry.get("truncated_tokens"):
        parts.append(f"{entry['truncated_tokens']} tok truncated")
    if entry.get("reused_tokens") or entry.get("cache_bytes"):
        parts.append(
            f"KV reused {entry.get('reused_tokens', 0)}/{entry.get('prompt_tokens', 0)} "
            f"tok, cache {entry.get('cache_bytes', 0) / 2**20:.1f} MB"
        )
    if entry.get("cache_note"):
        parts.append(entry["cache_note"])
    if entry.get("reuse_note"):
        parts.append(entry["reuse_note"])
    if entry.get("kept_rules"):
        kept = ", ".join(entry["kept_rules"])
        n = entry.get("rule_rewrites", 0)
        parts.append(f"kept while decoding: {kept} ({n} choice{'' if n == 1 else 's'} of the model rewritten)")
    if entry.get("out_of_time"):
        parts.append("cut at the reply's time budget (REA_REPLY_BUDGET_S)")
    if not entry.get("generated", True):
        parts.append("reply given (replay)")
    return " | ".join(parts)
