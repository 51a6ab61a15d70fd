"""Store-facing functions of the Annotate tab: the next item, labels, skips, undo, progress.

Every write takes the signed-in ``Identity`` resolved on the server for this request; the item
being labeled and the time it was shown live in server-side session state, never in the page.
A locked or down database raises ``StoreUnavailable`` (``LabelNotSaved`` for a label, skip or
undo) saying what failed: the tab keeps the item on screen.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from importlib import resources

from rea_core import REAError
from rea_core.recognizer import GLOBAL, LABELS, OTHER, REVOKE, WORD_CLASS_STAGE

from ...annotate_auth import Identity
from ...state import REPO_ROOT, AppEngine
from ...store_guard import StoreUnavailable, guard, storable_note

KEY_LABELS = {str(key): label for key, label in enumerate(LABELS, 1)}  # keys 1-3


class LabelNotSaved(StoreUnavailable):
    """The database refused a label, skip or undo (locked or down); the message says which."""


@dataclass
class Shown:
    """The item on screen for one browser session, kept on the server."""

    item_id: int
    shown_at: float
    score: float | None  # the stage-2 P(global) when the item was shown, kept with the label
    verdict: str = ""  # the recognizer's verdict in words, shown once the item is labeled: it must not sway the label


FULL_GUIDELINE = REPO_ROOT / "docs" / "recognizer_labeling.md"
FULL_GUIDELINE_ANCHOR = "annotate-full-guideline"  # the accordion that shows it; static/annotate_keys.js opens it


def guideline() -> str:
    """The short guideline; its mention of the full guideline becomes a link to the accordion that shows it."""
    text = resources.files("annotations").joinpath("guideline.md").read_text(encoding="utf-8")
    if full_guideline() is None:
        return text
    link = f"[the full labeling guideline](#{FULL_GUIDELINE_ANCHOR})"
    path = f"`{FULL_GUIDELINE.relative_to(REPO_ROOT).as_posix()}`"
    return text.replace(path, link) if path in text else f"{text}\n\nSee {link}."


def full_guideline() -> str | None:
    """The full labeling guideline from the repository (None where only the package is installed)."""
    return FULL_GUIDELINE.read_text(encoding="utf-8") if FULL_GUIDELINE.is_file() else None


def sign_in(engine: AppEngine, who: Identity) -> None:
    """Record the annotator and their role (from server config); seed an empty store; mark the share of
    items that get a second label as the settings say now."""
    from annotations import store_items

    share = engine.settings.annotation.double_label_share

    def run():
        with engine.db() as db:
            store_items.ensure_annotator(db, who.name, who.role)
        with engine.db() as db:
            store_items.ensure_seeded(db, double_share=share)
        with engine.db() as db:
            store_items.apply_double_share(db, share)

    guard(run, "not signed in")


@dataclass(frozen=True)
class Stage2:
    """What the recognizer in use says of an item: stage 1's verdict and the stage-2 classifier's P(global)."""

    version: str  # "packaged" or "version 3"
    stage1: str  # what stage 1 does with it, in words (STAGE1)
    p_global: float | None  # None: no trained stage 2 to ask


STAGE1 = {None: "defers to stage 2", GLOBAL: "accepts it as global", OTHER: "stops it", REVOKE: "a revocation"}
SCORERS = {"multilingual": "multilingual, {lang}", WORD_CLASS_STAGE: "{version}, English second opinion"}


def stage2_score(engine: AppEngine, text: str) -> Stage2:
    """The score of the recognizer every chat runs now (the one the Review tab put in use), not a rule
    prior: the recognizer says what each of its stages made of the text (``InstructionRecognizer.explain``)."""
    stages = engine.strategy("rea").recognizer.explain(text, ask_llm=False)  # an LLM stage 2 is not asked here
    version = "packaged" if engine.recognizer_version is None else f"version {engine.recognizer_version}"
    scorer = SCORERS.get(stages.scorer, "{version}").format(version=version, lang=stages.language)
    return Stage2(scorer, STAGE1.get(stages.rules, STAGE1[None]), stages.p_global)


NOTHING_LEFT = (
    "<div class='rea-annotate-item' id='annotate-empty'><p><b>Nothing left to label.</b> "
    "Thank you! New items arrive with imports.</p></div>"
)


def verdict_words(score: Stage2 | None) -> str:
    """What the recognizer in use says of an item, in words (shown once the item is labeled)."""
    if score is None:
        return "recognizer: n/a"
    p = "n/a (no trained stage 2)" if score.p_global is None else f"{score.p_global:.2f}"
    return f"recognizer in use ({score.version}): stage 1 {score.stage1} · stage 2 P(global) {p}"


def item_html(item) -> str:
    """The item to label: its text first and large, its number and source small; no model score, which
    would sway the label (the score comes with the "Saved" message)."""
    if item is None:
        return NOTHING_LEFT
    context = (
        "<details open class='rea-annotate-context-box'><summary>conversation context</summary><pre "
        f"class='rea-annotate-context'>{html.escape(item.context)}</pre></details>"
        if item.context
        else ""
    )
    return (
        f"<div class='rea-annotate-item' data-item-id='{item.id}'>"
        f"<div class='rea-annotate-meta'>item {item.id} · source {html.escape(item.source)}</div>"
        f"<div class='rea-annotate-text' id='annotate-text'>{html.escape(item.text)}</div>{context}</div>"
    )


def queue_empty_html(mode: str, waiting: int) -> str:
    """A triage queue with nothing left while the default queue still has items: say so, with the count."""
    items = "item waits" if waiting == 1 else "items wait"
    return (
        f"<div class='rea-annotate-item' id='annotate-queue-empty'><p><b>No {html.escape(mode)} items left</b> "
        f"for you; {waiting} {items} in the default queue.</p></div>"
    )


@dataclass(frozen=True)
class View:
    """What the tab shows for the annotator's next item."""

    shown: Shown | None
    html: str
    progress: str
    waiting_in_default: int  # > 0 with no item: the chosen triage queue is empty but the default one is not


def queue_view(engine: AppEngine, who: Identity, item_id: int | None = None, mode: str = "default") -> View:
    """The annotator's next item (or a given one, after undo), its HTML and the progress Markdown.

    ``mode`` is a queue mode of ``annotations.triage``: "default", "likely missed" (stage 1
    stopped it, the trained classifier says global) or "likely false alarm" (stored as global,
    looks task or ordinary); the triage modes use the REA column's recognizer.
    """
    from annotations import store_items, triage

    if mode not in triage.QUEUE_MODES:
        raise REAError(f"unknown queue mode {mode!r}; choose one of {', '.join(triage.QUEUE_MODES)}")

    def run():
        reason = ""
        with engine.db() as db:
            if item_id is not None:
                item = store_items.get_item(db, item_id)
            elif mode == triage.DEFAULT:
                item = store_items.next_item(db, who.name)
            else:
                found = triage.next_in_mode(db, who.name, mode, engine.strategy("rea").recognizer)
                item, reason = (found.item, found.reason) if found else (None, "")
            p = store_items.progress(db, who.name)
        return item, p, reason

    try:
        item, p, reason = guard(run, "next item not loaded")
    except ValueError as exc:  # no trained stage 2 to triage with
        raise REAError(str(exc)) from exc
    shown = None
    if item is not None:
        score = stage2_score(engine, item.text)
        why = f" · in the {mode} queue because: {reason}" if reason else ""  # the reason quotes a score too
        shown = Shown(item.id, time.monotonic(), score.p_global, verdict_words(score) + why)
    progress = (
        f"**{html.escape(who.name)}** ({who.role}): {p.mine} labeled, {p.my_left} left in your queue · "
        f"team: {p.team_done} / {p.team_total} labels"
    )
    if mode != "default":
        progress += f" · queue: **{mode}**"
    waiting = p.my_left if item is None and item_id is None and mode != triage.DEFAULT else 0
    page = queue_empty_html(mode, waiting) if waiting else item_html(item)
    return View(shown, page, progress, waiting)


def next_view(
    engine: AppEngine, who: Identity, item_id: int | None = None, mode: str = "default"
) -> tuple[Shown | None, str, str]:
    """(state, item HTML, progress Markdown): ``queue_view`` as a tuple."""
    v = queue_view(engine, who, item_id, mode)
    return v.shown, v.html, v.progress


def label(engine: AppEngine, who: Identity, shown: Shown, value: str, note: str = "") -> str:
    """Save a label (or "skip") for the shown item; raises LabelNotSaved when the database refuses,
    ``store_guard.TextRefused`` (nothing saved) for a note the database cannot keep."""
    from annotations import store_items

    note = storable_note(note) if value != "skip" else ""  # a skip stores no note
    seconds = round(time.monotonic() - shown.shown_at, 2)

    def run():
        with engine.db() as db:
            if value == "skip":
                store_items.record_skip(db, who.name, shown.item_id, seconds=seconds)
            else:
                store_items.record_label(
                    db,
                    who.name,
                    shown.item_id,
                    value,
                    seconds=seconds,
                    shown_score=shown.score,
                    note=note,
                )

    guard(run, "skip not saved" if value == "skip" else "label not saved", LabelNotSaved)
    said = f" The {html.escape(shown.verdict)}." if shown.verdict and value != "skip" else ""  # now that it is labeled
    return f"Saved: item {shown.item_id} → {value} ({seconds:.1f} s).{said}"


def undo(engine: AppEngine, who: Identity):
    """Undo the annotator's last label or skip; returns the store's ``Undone`` or None."""
    from annotations import store_items

    def run():
        with engine.db() as db:
            return store_items.undo_last(db, who.name)

    return guard(run, "nothing undone", LabelNotSaved)
