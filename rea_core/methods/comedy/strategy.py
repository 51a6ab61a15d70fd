"""COMEDY (COMEDY paper): compressive memory in one model, no retrieval, sittings of ``K`` turns.

The conversation is cut into sittings (the paper's "sessions"; in this code ``session`` is always the
``ChatSession``): every ``COMEDYConfig.sitting_turns`` turns, or earlier by the explicit "new session"
action (``end_sitting``). When a sitting closes, the backbone runs
Task 1 (the memory of that sitting) and then Task 2 (all sitting memories condensed
into the compressive memory: user description, user-bot relationship, past events), both in
``memory.py`` with their documented fallback rules. Each reply is Task 3: the
memory-grounded response, with the compressive memory in the system message
(``templates/comedy_task3.md``) and the current sitting's turns as the dialogue. Exchanges of
earlier sittings are not in the prompt; the memory stands for them.

State (``session.memory``, saved with the session): ``sitting_start`` (first turn of the current
sitting), ``sittings`` (each closed sitting's span and Task 1 memories) and ``compressive`` (the
three parts, how they were made, and any fallback note).
"""

from __future__ import annotations

from ...reconstruction import assemble_plan, exchange_segments, memory_segment
from ...session import ChatSession
from ...templates import fill, load_template
from ...types import Decision, PromptPlan, Resolution, Segment
from ...validation import is_text_list, is_whole, spans_problem
from ..base import Strategy
from ..registry import register_strategy
from . import SPEC
from .memory import PARTS, MemoryExtractor, render_compressive

# State keys saved before sittings were named so: read under their new names.
_OLD_KEYS = {"session_start": "sitting_start", "sessions": "sittings"}


def _current(memory):
    """A saved state dict with its old keys renamed; anything else as it is (the checks refuse it)."""
    return {_OLD_KEYS.get(k, k): v for k, v in memory.items()} if isinstance(memory, dict) else memory


@register_strategy(SPEC.name)
class ComedyStrategy(Strategy):
    """COMEDY on the shared backbone. See the module docstring.

    Example:
        >>> comedy = build_strategy("comedy", models, COMEDYConfig(sitting_turns=4))
        >>> session = comedy.new_session()
        >>> comedy.respond(session, "My name is Ana and I teach piano.")
        >>> comedy.end_sitting(session)  # Task 1 + Task 2 now
        >>> session.memory["compressive"]["user"]
    """

    uses_sittings = True

    @property
    def extractor(self) -> MemoryExtractor:
        return MemoryExtractor(self.generator, self.config.memory_tokens)

    @staticmethod
    def state(session: ChatSession) -> dict:
        m = _current(session.memory)
        return {
            "sitting_start": int(m.get("sitting_start", 0)),
            "sittings": list(m.get("sittings", [])),
            "compressive": _current(m.get("compressive")),
        }

    def memory_problem(self, memory: dict, n_turns: int) -> str | None:
        """Closed sittings in turn order before ``sitting_start``, each with its Task 1 memories; the
        compressive memory (Task 2) with its three parts as text."""
        memory = _current(memory)
        start = memory.get("sitting_start", 0)
        if not is_whole(start, 0, n_turns):
            return f'"sitting_start" must be a turn in 0-{n_turns}'
        sittings = memory.get("sittings", [])
        problem = spans_problem(sittings, end_before=start, what="sitting")
        if problem:
            return problem
        for i, closed in enumerate(sittings):
            if not (is_text_list(closed.get("memories")) and isinstance(closed.get("note", ""), str)):
                return f'sitting {i}: "memories" must be a list of text'
        compressive = _current(memory.get("compressive"))
        if compressive is not None and not (
            isinstance(compressive, dict)
            and all(isinstance(compressive.get(k), str) for k in (*PARTS, "method"))
            and isinstance(compressive.get("note", ""), str)
            and is_whole(compressive.get("sittings"), 1)
            and is_whole(compressive.get("through_turn"), 0, max(0, start - 1))
        ):
            return '"compressive" must hold text "user", "relationship", "events", "method" and its sittings and turns'
        return None

    def _close_sitting(self, session: ChatSession, state: dict) -> dict:
        """Task 1 on the current sitting, then Task 2 over every sitting's memory."""
        start, end = state["sitting_start"], session.n_turns - 1
        turns = [(ex.user, ex.reply) for ex in session.episodes.exchanges[start : end + 1]]
        number = len(state["sittings"]) + 1
        t1 = self.extractor.sitting_memory(turns, f"session {number} (turns {start}-{end})")
        state["sittings"].append(
            {"start": start, "end": end, "memories": t1.value, "method": t1.method, "note": t1.note}
        )
        t2 = self.extractor.compress([s["memories"] for s in state["sittings"]], session.n_turns)
        state["compressive"] = {
            **t2.value,
            "method": t2.method,
            "note": t2.note,
            "sittings": len(state["sittings"]),
            "through_turn": end,
        }
        state["sitting_start"] = end + 1
        return state

    def store(
        self,
        session: ChatSession,
        user_text: str,
        reply: str,
        *,
        time: str | None = None,
        plan: PromptPlan | None = None,
    ) -> None:
        super().store(session, user_text, reply, time=time)
        state = self.state(session)
        if session.n_turns - state["sitting_start"] >= self.config.sitting_turns:
            state = self._close_sitting(session, state)
        self.commit_memory(session, session.n_turns - 1, state)

    def end_sitting(self, session: ChatSession) -> str:
        state = self.state(session)
        if state["sitting_start"] >= session.n_turns:
            return "COMEDY: the current session has no turns yet; nothing to summarize."
        state = self._close_sitting(session, state)
        session.memory = {**session.memory, **state}
        return f"COMEDY: session {len(state['sittings'])} closed; its memory and the compressive memory were updated."

    def build_context(self, session: ChatSession, query: str) -> tuple[PromptPlan, tuple[Decision, ...]]:
        count, state = self.generator.count_tokens, self.state(session)
        system = self.runtime.system_prompt
        blocks: list[Segment] = []
        notes = [
            f"COMEDY: sittings of {self.config.sitting_turns} turns; "
            f"current session from turn {state['sitting_start']}; "
            f"{len(state['sittings'])} closed session(s)."
        ]
        memory = state["compressive"]
        if memory:
            text = fill(load_template("comedy_task3"), memory=render_compressive(memory))
            label = (
                f"compressive memory · sittings 1-{memory['sittings']} (turns "
                f"0-{memory['through_turn']}) · Task 2 by {memory['method']}"
            )
            blocks.append(memory_segment(text, count, label=label, turns=range(memory["through_turn"] + 1)))
            notes += [s["note"] for s in state["sittings"] if s.get("note")][-3:] + (
                [memory["note"]] if memory.get("note") else []
            )
        exchanges = session.episodes.exchanges  # the current session's raw, earlier ones only through the memory
        decisions = tuple(
            Decision(
                turn=ex.turn,
                score=None,
                resolution=Resolution.RAW if ex.turn >= state["sitting_start"] else Resolution.OMIT,
            )
            for ex in exchanges
        )
        plan = assemble_plan(
            query=query,
            count_tokens=count,
            system_prompt=system,
            memory=blocks,
            exchanges=exchange_segments(exchanges, decisions, count, show_time=self.runtime.show_time),
            notes=notes,
        )
        return plan, decisions
