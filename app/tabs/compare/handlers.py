"""Plain functions behind the app's events. They call only rea_core's public API (and the
annotations store); the UI never compares scores with thresholds or assembles prompts."""

from __future__ import annotations

import logging
import re
import threading
import time
import weakref
from contextlib import closing
from html import escape
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from rea_core import REAError, Thresholds, available_strategies, load_conversations, now_time
from rea_core.errors import DataFormatError, UnknownStrategyError
from rea_core.methods import get_method
from rea_core.session import save_sessions, sessions_from_data
from rea_core.text import validate_message
from rea_core.validation import parse_json, read_text

from ...session_state import deep_size
from ...state import AppEngine, ColumnState
from ...views.charts import retrieval_chart
from ...views.memory import im_table, stats_html
from ...views.prompt import render_prompt_view

log = logging.getLogger(__name__)

DEMO_ID = "h1-initial-letter"
STOPPED = "Stopped: the reply was not stored; the conversation is as it was before this message."


class _SpecText(Mapping[str, str]):
    """One text field of every registered method's spec, by name: read at each use, so a method registered
    after the app was imported shows up too."""

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __getitem__(self, name: str) -> str:
        try:
            return getattr(get_method(name), self.attr)
        except UnknownStrategyError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(available_strategies())

    def __len__(self) -> int:
        return len(available_strategies())


# What each strategy is called on the page, and what it does in a line (a visitor's first question): each
# method's spec (rea_core/methods/<name>/__init__.py) says both.
STRATEGY_TITLES: Mapping[str, str] = _SpecText("title")
STRATEGY_BLURBS: Mapping[str, str] = _SpecText("description")


def strategy_title(name: str) -> str:
    return STRATEGY_TITLES.get(name, name)


_SETTING_NAME = re.compile(r"\s*\(REA_[A-Z0-9_]+\)")


def for_visitors(text: str) -> str:
    """A library message as a visitor reads it: the setting named in parentheses, for whoever runs the
    server ("(REA_MAX_MESSAGE_CHARS)"), left out; the server log keeps the whole message."""
    return _SETTING_NAME.sub("", text)


def notice_html(text: str, kind: str = "info") -> str:
    """A message shown next to the message box (``kind``: info, progress or error), escaped."""
    if not text:
        return ""
    role = "alert" if kind == "error" else "status"
    return f'<div class="rea-notice rea-notice-{kind}" role="{role}">{escape(for_visitors(text))}</div>'


# -- sending -------------------------------------------------------------------------------------


def failed_turn(exc: Exception) -> str:
    """A failed turn's line for the visitor. A REAError says its ``public`` form (a model server's URL
    stays out); the whole message, or an unforeseen exception's traceback, goes to the server log."""
    if isinstance(exc, REAError):
        if exc.public != str(exc):
            log.warning("a turn failed: %s", exc)
        return exc.public
    log.error("a model call failed", exc_info=exc)
    return f"The model call failed ({type(exc).__name__}). Nothing was stored; send the message again."


def check_message(engine: AppEngine, text: str) -> str:
    """The message to send, or InputError from the library: empty, over REA_MAX_MESSAGE_CHARS or over
    REA_MAX_MESSAGE_TOKENS (counted before any prefill; every column reads the same tokenizer)."""
    return engine.strategy("vanilla").check_message(text)


def respond_column(
    engine: AppEngine,
    column: ColumnState,
    text: str,
    thresholds: Thresholds,
    *,
    reply: str | None = None,
    sent: str | None = None,
) -> None:
    """One turn in one column, stamped ``sent`` (the app clock's stored form; None: now). A failure is
    shown in the column; the conversation stays as it was."""
    strategy = engine.column_strategy(column, thresholds)
    try:
        column.last = strategy.respond(column.session, text, reply=reply, time=sent or now_time())
        column.last_thresholds = thresholds
        column.error = ""
        strategy.read_ahead(column.session, within=engine.gate.chat)
    except Exception as exc:  # a failing model call must not lose the conversation
        column.error = failed_turn(exc)


def stream_columns(
    engine: AppEngine,
    columns: list[ColumnState],
    text: str | Sequence[str | None],
    thresholds: Thresholds,
    stop: threading.Event,
    *,
    every_s: float = 0.1,
    sent: str | None = None,
) -> Iterator[list[str | None]]:
    """Both columns answer ``text`` at once, each on its own thread (their tokens interleave under the
    model lock); yields each column's reply so far (None once it ended) at most every ``every_s``.

    ``text`` is one message for every column, or one per column (re-answering columns that hold
    different conversations; None: that column does not answer).

    Every column stores the message with one time, ``sent`` (None: the app clock now), so REA's and
    vanilla's exchange of one message say the same time.

    ``stop`` set (the Stop button) ends both replies: nothing of the turn is stored and the column's
    error is ``STOPPED``. A failure is shown in its column; the conversation stays as it was.
    """
    texts = [text] * len(columns) if isinstance(text, str) else list(text)
    sent = sent or now_time()
    partial: list[str | None] = ["" if t is not None else None for t in texts]
    changed = threading.Event()

    def run(side: int, column: ColumnState) -> None:
        strategy = engine.column_strategy(column, thresholds)
        column.error, finished = "", False
        try:
            with closing(strategy.respond_stream(column.session, texts[side], time=sent)) as turn:
                for item in turn:
                    if stop.is_set():
                        break  # closing the stream rolls the turn back
                    if isinstance(item, str):
                        partial[side] += item
                        changed.set()
                    else:
                        column.last, column.last_thresholds, finished = item, thresholds, True
            if not finished:
                column.error = STOPPED
            else:
                strategy.read_ahead(column.session, within=engine.gate.chat)
        except Exception as exc:  # a failing model call must not lose the conversation
            column.error = failed_turn(exc)
        finally:
            partial[side] = None
            changed.set()

    threads = [
        threading.Thread(target=run, args=(side, column), name=f"rea-column-{side}", daemon=True)
        for side, column in enumerate(columns)
        if texts[side] is not None
    ]
    with engine.gate.chat():  # an Inspect trace waits between its turns while this runs
        for t in threads:
            t.start()
        try:
            while any(t.is_alive() for t in threads):
                changed.wait(every_s)
                changed.clear()
                yield list(partial)
                time.sleep(every_s / 2)  # at most ~10 page updates a second
        finally:
            if any(t.is_alive() for t in threads):
                stop.set()  # a closed handler (page left, event cancelled) stops the replies too
            for t in threads:
                t.join()


def take_back_latest(engine: AppEngine, column: ColumnState) -> str | None:
    """Undo the latest turn so that it can be answered again (re-answer); returns its message.

    The turn's exchange, what it added to Instructional Memory and its log entry go; None (and the
    column says why) when there is nothing to re-answer.
    """
    if column.last is None or not column.session.n_turns:
        column.error = "Nothing to re-answer yet."
        return None
    text = engine.column_strategy(column).undo_last_turn(column.session)
    column.last, column.error = None, ""
    return text


TAKEN_BACK = " The re-answered turn was taken back before this attempt and is no longer in the conversation."


def play_turns(
    engine: AppEngine,
    columns: list[ColumnState],
    turns: Sequence[tuple[str, str | None]],
    thresholds: Thresholds,
    stop: threading.Event,
) -> Iterator[tuple[str, list[str | None]]]:
    """A scripted conversation (the H.1 demo, an example) in every column, turn by turn.

    A turn with a given reply is stored as it is (no generation); the others stream like a typed
    message; every column stores a turn with the same time, the app clock when it starts. Yields (the
    turn's message, each column's reply so far: None once stored). Ends early
    on Stop (the columns' error is ``STOPPED``; earlier turns stay) or when a column fails.
    """
    for user, reply in turns:
        if stop.is_set():
            for column in columns:
                column.error = STOPPED
            return
        sent = now_time()
        if reply is not None:
            for column in columns:
                respond_column(engine, column, user, thresholds, reply=reply, sent=sent)
            yield user, [None] * len(columns)
        else:
            for partial in stream_columns(engine, columns, user, thresholds, stop, sent=sent):
                yield user, partial
        if any(column.error for column in columns):
            return


def retrace_loaded(engine: AppEngine, column: ColumnState, thresholds: Thresholds) -> None:
    """A loaded column's latest turn planned again with its reply as saved (no generation), so that its
    prompt view, chart, the thresholds and Re-answer work on it at once. Compressed replies are shown as
    text: the copy it is planned on is dropped, so no latent is made for it. A failure is shown in the
    column; the loaded conversation stays."""
    strategy = engine.strategy(column.strategy, thresholds, form="text")
    try:
        column.last = strategy.retrace_latest(column.session)
        column.last_thresholds = thresholds
    except Exception as exc:  # the conversation is loaded whatever happens here
        column.error = f"Loaded, but its latest turn could not be shown: {failed_turn(exc)}"


def loaded_notice(columns: Sequence[ColumnState], path: str) -> str:
    """The notice under the message box after a load (escaped there): the file's name (never its folder)
    and each column's turns, so a large file says how much it held, and that its latest turn is live
    (``retrace_latest`` plans that one turn again, whatever the file's length; a column it failed in
    says why itself)."""
    held = ", ".join(f"{strategy_title(c.strategy)} {c.session.n_turns:,} turn(s)" for c in columns)
    live = any(c.last is not None for c in columns)
    said = " The latest turn is planned again: the sliders and Re-answer work on it." if live else ""
    return f"Loaded {Path(path).name}: {held}.{said}"


def end_sitting_column(engine: AppEngine, column: ColumnState) -> str:
    """The explicit "new session" action: the strategy closes its current session (COMEDY runs
    Tasks 1 and 2, SeCom segments its open turns); for strategies without sessions it says so."""
    strategy = engine.column_strategy(column)
    if not strategy.uses_sittings:
        return f"{strategy_title(column.strategy)} keeps no sessions: nothing to close."
    try:
        return strategy.end_sitting(column.session) or f"{strategy_title(column.strategy)}: session closed."
    except Exception as exc:  # a failing model call must not lose the conversation
        log.warning("closing a %s session failed", column.strategy, exc_info=exc)  # a server's URL: the log's
        reason = exc.public if isinstance(exc, REAError) else type(exc).__name__
        column.error = f"Closing the session failed ({reason}); the conversation is unchanged."
        return ""


def set_reply_form(columns: list[ColumnState], form: str) -> None:
    """The app's form control: REA's compressed replies as latent vectors or text from the next reply on."""
    from rea_core import REPLY_FORMS

    if form not in REPLY_FORMS:
        raise ValueError(f"reply form must be one of {', '.join(REPLY_FORMS)}; got {form!r}")
    for column in columns:
        column.reply_form = form


# -- views ---------------------------------------------------------------------------------------


def chat_messages(column: ColumnState, pending: str | None = None, partial: str | None = None) -> list[dict]:
    """Chatbot messages from the session itself (escaped), each reply followed by its turn's stats;
    ``partial`` is the reply to ``pending`` decoded so far (streaming)."""
    messages: list[dict] = []
    log = {entry["turn"]: entry for entry in column.session.log}
    for ex in column.session.episodes.exchanges:
        messages.append({"role": "user", "content": escape(ex.user, quote=False)})
        stats = f"\n\n{stats_html(log[ex.turn])}" if ex.turn in log else ""
        messages.append({"role": "assistant", "content": escape(ex.reply, quote=False) + stats})
    if pending:
        messages.append({"role": "user", "content": escape(pending, quote=False)})
        if partial:
            messages.append({"role": "assistant", "content": escape(partial, quote=False) + " ▌"})
    return messages


def column_views(engine: AppEngine, column: ColumnState, thresholds: Thresholds):
    """(prompt view HTML, retrieval chart, IM panel HTML, error HTML) at the given thresholds.

    When the thresholds differ from those the latest reply used, the plan is re-decided from the
    cached scores (no model call) and labeled as such.
    """
    strategy = engine.column_strategy(column)
    uses_im = strategy.uses_instructional_memory
    error = f'<div class="rea-error">⚠ {escape(for_visitors(column.error))}</div>' if column.error else ""
    last = column.last
    if last is None:
        return (
            render_prompt_view(None),
            retrieval_chart((), [], tau_low=thresholds.low, tau_high=thresholds.high),
            im_table(column.session.instructions, enabled=uses_im),
            error,
        )
    plan, decisions = last.plan, last.decisions
    if column.last_thresholds != thresholds:  # re-decide only when the thresholds moved
        plan, decisions = strategy.redecide(column.session, last, thresholds)
    if plan is last.plan:  # exactly what was sent (or, for a loaded turn, what its reply as saved followed)
        source = last.generation.token_source if last.generation else strategy.generator.token_source
        what = "input of the latest reply" if last.generated else "the latest turn, planned again (its reply as saved)"
        view = render_prompt_view(
            plan,
            prompt_tokens=last.prompt_tokens,
            truncated_tokens=last.truncated_tokens,
            title=f"{strategy_title(column.strategy)}: {what}",
            token_source=source,
        )
    else:
        view = render_prompt_view(
            plan,
            title=f"{strategy_title(column.strategy)}: re-decided at the thresholds {thresholds.low:.2f} and "
            f"{thresholds.high:.2f} (press re-answer to send it)",
            token_source=strategy.generator.token_source,
        )
    chart = retrieval_chart(
        decisions,
        column.session.episodes.exchanges,
        tau_low=thresholds.low,
        tau_high=thresholds.high,
        query=plan.query,
        score_label=strategy.score_label,
    )
    return view, chart, im_table(column.session.instructions, enabled=uses_im), error


# -- instructional memory ------------------------------------------------------------------------


def im_add(column: ColumnState, text: str, *, max_chars: int, uses_im: bool = True) -> str:
    """Add an instruction by hand; returns a message for the user."""
    from rea_core.types import InstructionEntry

    if not uses_im:
        return f"Not added: {strategy_title(column.strategy)} keeps no Instructional Memory."
    text = (text or "").strip()
    if not text:
        return "Type an instruction to add."
    try:
        validate_message(text, max_chars)  # the limit a typed message meets
    except REAError as exc:
        return f"Not added: {exc}"
    added = column.session.instructions.add(
        InstructionEntry(text=text, turn=-1, source="user", stage="manual", score=1.0)
    )
    return "Added." if added else "Already in Instructional Memory."


def im_remove(column: ColumnState, position: float | int | None, *, uses_im: bool = True) -> str:
    if not uses_im:
        return f"Nothing removed: {strategy_title(column.strategy)} keeps no Instructional Memory."
    if position is None:
        return "Give the # of the instruction to remove."
    try:
        removed = column.session.instructions.remove(int(position))
    except (IndexError, ValueError, OverflowError) as exc:  # out of range, NaN or infinity from the API
        return str(exc) if isinstance(exc, IndexError) else "Give a whole number."
    return f"Removed: {removed.text}"


# -- save / load / demo --------------------------------------------------------------------------


def save_columns(engine: AppEngine, columns: list[ColumnState]) -> str:
    """Write both columns' sessions to a JSON file and return its path (for download).

    Through the library's one save path (``save_sessions``, also ``rea chat``'s ``/save``): each
    strategy's background work (REA's latent compression) finishes first, so the file holds the
    latents and a reload does not recompress.
    """
    handle, path = engine.downloads.new_file("rea-conversation-", ".json")  # removed after REA_TEMP_TTL_S
    handle.close()
    save_sessions(path, [(engine.column_strategy(c), c.session) for c in columns])
    return path


def load_columns(engine: AppEngine, path: str) -> list[ColumnState]:
    """Columns from a saved file (``save_columns``, ``rea chat``'s ``/save``, or a single saved session).
    DataFormatError names the problem in one line for a visitor: the file by its name, never its
    folder or a Python detail; anything unforeseen goes to the server log with its traceback.

    The file is held to the app's limits (size, turns, characters per turn, latent shape, strategy
    memory) before any of it is used, so a loaded conversation costs no more than a typed one.
    """
    name = Path(path).name
    try:
        return _load_columns(engine, path, name)
    except REAError as exc:
        log.info("saved conversation refused: %s", exc)
        raise
    except Exception as exc:  # a shape no check foresaw: the visitor gets one line, the log the rest
        log.exception("saved conversation %s could not be loaded", path)
        raise DataFormatError(f"{name} could not be loaded: it is damaged or not a file this app saved") from exc


def _load_columns(engine: AppEngine, path: str, name: str) -> list[ColumnState]:
    limits = engine.limits
    limits.check_file_size(path)
    try:
        text = read_text(path)
    except DataFormatError as exc:
        raise DataFormatError(str(exc).replace(str(path), name)) from exc
    data = parse_json(text, where=name)  # the one JSON discipline of every loader: depth, numbers, NUL, surrogates
    try:
        sessions = sessions_from_data(data)
    except DataFormatError as exc:
        raise DataFormatError(f"{name}: {exc}") from exc
    if len(sessions) > 2:
        raise DataFormatError(f"{name} holds {len(sessions)} sessions; the app has 2 columns (load at most 2)")
    names = engine.strategy_names()
    for side, s in enumerate(sessions):
        if s.strategy not in names:
            raise DataFormatError(f"{name}: unknown strategy {str(s.strategy)[:80]!r}")
        try:
            s.check_loaded(
                max_turns=limits.max_turns,
                max_chars=engine.runtime.max_message_chars,
                max_instructions=engine.config.im_capacity,
                embed_dim=engine.models.embedder.dim,
                latent_shape=engine.latent_shape(),
            )
            engine.strategy(s.strategy).check_memory(s)  # SeCom's segments, COMEDY's memories
        except DataFormatError as exc:
            raise DataFormatError(f"{name}, column {side + 1}: {exc}") from exc
        cost = engine.strategy(s.strategy).catch_up_cost(s)  # would run under the shared model lock at the next Send
        if cost > limits.max_catch_up:
            raise DataFormatError(
                f"{name}, column {side + 1}: the file lacks {cost} "
                f"embeddings or latents, over the {limits.max_catch_up} "
                "a loaded conversation may need (REA_MAX_CATCH_UP); save it from an app with the same models"
            )
    columns = [ColumnState(strategy=s.strategy, session=s) for s in sessions]
    for column in columns:
        lease_loaded(engine, column, name)
    return columns


def lease_loaded(engine: AppEngine, column: ColumnState, name: str) -> None:
    """Count a loaded conversation under the server's session-state cap (``app.session_state``): the
    column stays in the browser session's state, the store holds a weak reference and its measured
    size. When the cap or the time limit drops it, the column is emptied (a fresh session, its memory
    freed) and says why; when the column itself goes (reset, another load), its share is released.

    Raises:
        StateDropped: the conversation alone is larger than the cap leaves room for.
    """
    store, ref = engine.session_state, weakref.ref(column)

    def empty(why: str) -> None:
        dropped = ref()
        if dropped is not None:
            dropped.session = engine.strategy(dropped.strategy).new_session()
            dropped.last, dropped.lease = None, None
            dropped.error = f"The conversation loaded from {name} {why}; load it again"

    column.lease = store.put(
        ref, what=f"the conversation loaded from {name}", nbytes=deep_size(column.session), on_drop=empty
    )
    weakref.finalize(column, store.release, column.lease)


def demo_turns(engine: AppEngine) -> list[tuple[str, str | None]]:
    """The paper's H.1 conversation (begin each response with "r", under 200 words) as (message, given
    reply) pairs: the instruction turn and the final question have no reply and are answered live."""
    (demo,) = [c for c in load_conversations(engine.examples_dir / "conversations.jsonl") if c.id == DEMO_ID]
    return [(turn.user, turn.assistant) for turn in demo.turns]
