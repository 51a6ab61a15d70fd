"""Store-facing functions of the Review tab: agreement, disagreements, adjudication, training a
candidate recognizer, comparing versions on the validation set and choosing the one in use
(REA paper, D.1-D.3).

A trained version is only a candidate: every chat keeps the recognizer in use until an
adjudicator compares the two on the same validation items and chooses "use". Any version, the
packaged one (id 0 here) included, can be put back.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from rea_core import REAError
from rea_core.recognizer import defined

from ...annotate_auth import Identity, require_adjudicator
from ...recognizer_version import apply_active  # also what app.main applies at startup
from ...state import AppEngine
from ...store_guard import guard

PACKAGED = 0  # the version id the page uses for the packaged recognizer (studio versions start at 1)
NO_VERSIONS = (
    'No studio version yet. "Train a candidate recognizer" makes one from the final labels and shows it beside '
    "the recognizer in use, on the same validation items."
)


def fmt(value: float | None) -> str:
    """A metric for people: "n/a" where it is undefined (0/0), never a made-up 0.000."""
    return "n/a" if value is None else f"{value:.3f}"


def metric(m: dict | None, key: str) -> str:
    return "n/a" if not m else fmt(defined(m, key))


@dataclass(frozen=True)
class Drop:
    """A metric on which a version does worse than the one in use, on the same validation items."""

    metric: str  # "precision" or "recall"
    value: float
    in_use: float

    @property
    def by(self) -> float:
        return self.in_use - self.value

    def words(self) -> str:
        """ "precision drops 0.894 → 0.232": the one in use, then the chosen version."""
        return f"{self.metric} drops {fmt(self.in_use)} → {fmt(self.value)}"


def drops(chosen: dict | None, current: dict | None) -> list[Drop]:
    """Precision and recall (on all validation items) where ``chosen`` is below ``current`` by what the page
    shows (0.001 or more); a metric undefined for either (0/0) is not compared."""
    if not chosen or not current:
        return []
    found = []
    for key in ("precision", "recall"):
        a, b = defined(chosen, key), defined(current, key)
        if a is not None and b is not None and round(b - a, 3) >= 0.001:
            found.append(Drop(key, a, b))
    return found


def stats_markdown(engine: AppEngine) -> str:
    from annotations import store_review

    def run():
        with engine.db() as db:
            return store_review.agreement_stats(db)

    s = guard(run, "stats not loaded")
    ties = f" · {s.n_ties} tied, waiting for adjudication" if s.n_ties else ""
    lines = [
        f"**{s.n_items}** items · **{s.n_labeled}** labeled · **{s.n_adjudicated}** adjudicated · "
        f"**{s.n_final}** final labels{ties}",
        "",
        "labels given: " + (", ".join(f"{k} **{v}**" for k, v in sorted(s.label_counts.items())) or "none"),
        "",
        "final labels (adjudicated, else the majority; what training learns from): "
        + (", ".join(f"{k} **{v}**" for k, v in sorted(s.final_counts.items())) or "none"),
        "",
        f"Fleiss' kappa: **{fmt(s.fleiss)}** on {s.fleiss_items} items with 2+ labels",
        "",
    ]
    if s.pairs:
        lines += ["| annotator A | annotator B | shared items | Cohen's kappa |", "| --- | --- | --- | --- |"]
        lines += [f"| {html.escape(a)} | {html.escape(b)} | {n} | {fmt(k)} |" for a, b, n, k in s.pairs]
    return "\n".join(lines)


def disagreement_rows(engine: AppEngine, who: Identity) -> list[list]:
    """Rows for adjudicators only: annotators' labels are hidden from everyone else."""
    if who.role != "adjudicator":
        return []
    from annotations import store_review

    def run():
        with engine.db() as db:
            return store_review.disagreements(db, include_adjudicated=True)

    return [[d.item_id, d.text, labels_cell(d.labels, d.adjudicated)] for d in guard(run, "disagreements not loaded")]


def labels_cell(labels: dict[str, str], adjudicated: str | None) -> str:
    """Each annotator's label, then the adjudicated one: one column, so the table fits a phone."""
    given = ", ".join(f"{n}: {lab}" for n, lab in labels.items())
    return f"{given} → adjudicated: {adjudicated}" if adjudicated else given


def adjudicate(engine: AppEngine, who: Identity, item_id: int, label: str) -> str:
    """Checked against the current configuration on every call; the stored role is brought in
    line with it first, so the store's own check agrees."""
    from annotations import store_items, store_review
    from annotations.store_items import AccessError

    who = require_adjudicator(who)

    def run():
        with engine.db() as db:
            store_items.ensure_annotator(db, who.name, who.role)
        with engine.db() as db:
            store_review.adjudicate(db, item_id, label, who.name)

    try:
        guard(run, "adjudication not saved")
    except (AccessError, ValueError) as exc:
        raise REAError(str(exc)) from exc
    return f"Item {item_id} adjudicated as {label}."


def versions(engine: AppEngine):
    """Studio versions, newest first."""
    from annotations import store_review

    def run():
        with engine.db() as db:
            return store_review.list_versions(db)

    return guard(run, "recognizer versions not loaded")


def in_use(engine: AppEngine) -> int:
    """The version every chat runs now (PACKAGED or a studio version id): what the app applied,
    which is the database's choice except after a `rea train use` the app has not restarted for."""
    return engine.recognizer_version or PACKAGED


def name_of(version_id: int) -> str:
    return "packaged" if version_id == PACKAGED else f"version {version_id}"


def active_name(engine: AppEngine) -> str:
    return name_of(in_use(engine))


def report(engine: AppEngine, version_id: int, found=None) -> dict[str, Any] | None:
    """The whole recognizer with this version as stage 2 on every validation item: metrics on all
    and per source, and each item's verdict. Measured once (kept with the version, or in memory for
    the packaged one); None without a validation set."""
    from annotations import store_review
    from annotations.training import load_version

    validation = engine.recognizer_validation
    if version_id == PACKAGED:
        shipped, _ = engine.strategy("rea").recognizer.packaged  # None: an LLM stage 2, measured as rules only
        return validation.report("packaged", shipped)
    info = next((v for v in found or versions(engine) if v.id == version_id), None)
    if info is None:
        raise REAError(f"no recognizer version {version_id}")
    kept = info.metrics.get("validation_report")
    if kept and kept["all"]["n"] == len(validation.rows):
        return kept
    measured = validation.report(version_id, load_version(engine.db, version_id))

    def keep():
        with engine.db() as db:
            store_review.add_version_metrics(db, version_id, validation_report=measured)

    guard(keep, "measurements not kept")
    return measured


@dataclass(frozen=True)
class Comparison:
    """A version beside the one in use, on the same validation items."""

    chosen: int
    in_use: int
    chosen_report: dict[str, Any] | None
    in_use_report: dict[str, Any] | None
    gold: tuple[bool, ...]  # which validation items are global, in the reports' order

    def headline(self) -> str:
        """Precision and recall of both, and which validation items the chosen one would decide differently."""
        a, b = self.chosen_report, self.in_use_report
        if not a or not b:
            return "No validation set is installed, so versions cannot be compared."
        n = a["all"]["n"]
        chosen, current = name_of(self.chosen), name_of(self.in_use)
        if self.chosen == self.in_use:
            return (
                f"{chosen.capitalize()} (in use) on the {n} validation items (never used for training): "
                f"precision **{metric(a['all'], 'precision')}**, recall **{metric(a['all'], 'recall')}**."
            )
        changed = [(g, x) for g, x, y in zip(self.gold, a["predicted"], b["predicted"]) if x != y]
        caught, lost = sum(g and x for g, x in changed), sum(g and not x for g, x in changed)
        added, removed = sum(x and not g for g, x in changed), sum(not x and not g for g, x in changed)
        return (
            f"On the same {n} validation items (never used for training): {chosen} has precision "
            f"**{metric(a['all'], 'precision')}** and recall **{metric(a['all'], 'recall')}**; {current} (in use) "
            f"has precision **{metric(b['all'], 'precision')}** and recall **{metric(b['all'], 'recall')}**. "
            f"Item by item, {chosen} catches {caught} globals {current} misses and misses {lost} it catches; "
            f"it adds {added} false alarms and removes {removed}."
        )

    def drops(self) -> list[Drop]:
        """Where the chosen version is worse than the one in use (none when it is the one in use)."""
        if self.chosen == self.in_use or not self.chosen_report or not self.in_use_report:
            return []
        return drops(self.chosen_report["all"], self.in_use_report["all"])

    def worse_words(self) -> str:
        """One sentence naming each drop, or "" when the chosen version is not worse."""
        found = self.drops()
        if not found:
            return ""
        return (
            f"{name_of(self.chosen).capitalize()} is worse than {name_of(self.in_use)} (in use) on the same "
            f"validation items: " + "; ".join(d.words() for d in found) + "."
        )

    def table(self) -> str:
        """Markdown: precision and recall of both, on all validation items and per source."""
        a, b = self.chosen_report, self.in_use_report
        if not a:
            return ""
        same = self.chosen == self.in_use
        names = [name_of(self.chosen) + (" (in use)" if same else "")] + (
            [] if same else [f"{name_of(self.in_use)} (in use)"]
        )
        head = "| validation items | n | global | " + " | ".join(f"precision: {x} | recall: {x}" for x in names) + " |"
        lines = [head, "|" + " --- |" * 3 + " ---: |" * (2 * len(names))]
        parts = [("all", a["all"], None if same else b["all"])] + [
            (source, m, None if same else b["by_source"].get(source)) for source, m in a["by_source"].items()
        ]
        for label, m, other in parts:
            cells = [metric(m, "precision"), metric(m, "recall")]
            if not same:
                cells += [metric(other, "precision"), metric(other, "recall")]
            lines.append(f"| {html.escape(label)} | {m['n']} | {m['positives']} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def compare(engine: AppEngine, chosen: int, found=None) -> Comparison:
    from rea_core.recognizer import GLOBAL

    current = in_use(engine)
    gold = tuple(r["label"] == GLOBAL for r in engine.recognizer_validation.rows)
    return Comparison(chosen, current, report(engine, chosen, found), report(engine, current, found), gold)


def is_revert(chosen: int, found) -> bool:
    """Going back (to the packaged version, or to one that was in use before) needs no typed confirmation."""
    if chosen == PACKAGED:
        return True
    info = next((v for v in found if v.id == chosen), None)
    return info is not None and (info.active or bool(info.metrics.get("was_in_use")))


def confirm_words(chosen: int) -> str:
    """What an adjudicator types to put a worse version in use: its name ("version 3"), so the choice is on purpose."""
    return name_of(chosen)


def typed_confirmation_needed(c: Comparison, found) -> bool:
    """A worse version that was never in use goes live only after its name is typed (``confirm_words``)."""
    return bool(c.drops()) and not is_revert(c.chosen, found)


def check_confirmation(engine: AppEngine, chosen: int, typed: str) -> None:
    """Refuse (REAError) to put a worse, never-used version in use unless its name (``confirm_words``) was typed;
    checked on the server, so an API call cannot skip it."""
    found = versions(engine)
    c = compare(engine, chosen, found)
    words = confirm_words(chosen)
    given = " ".join((typed or "").lower().split())
    if typed_confirmation_needed(c, found) and given != words:
        said = f'You typed "{html.escape(given[:40])}", not "{words}". ' if given else ""
        raise REAError(f'{said}{c.worse_words()} Type "{words}" to put it in use anyway.')


def train(engine: AppEngine, who: Identity) -> tuple[str, int]:
    """Train a candidate from the final labels; it does not go into use. Returns (message, version id)."""
    who = require_adjudicator(who)
    from annotations.training import train_from_store

    validation = engine.recognizer_validation
    version = guard(
        lambda: train_from_store(
            engine.db, validation.embedder, created_by=who.name, validation=validation.rows or None
        ),
        "recognizer not trained",
    )
    m = version.metrics
    left_out = (
        f", {m['n_excluded_overlap']} left out because they are validation items" if m["n_excluded_overlap"] else ""
    )
    c = compare(engine, version.id)
    worse = f" **{c.worse_words()}**" if c.drops() else ""
    return (
        f"Trained **version {version.id}**, a candidate: it is **not in use**. It learned from the "
        f"{version.n_labels} final labels ({m['n_train']} to fit, {m['n_heldout']} held out to check it{left_out}). "
        f'{c.headline()}{worse} Choose "Use this version" to put it in use.',
        version.id,
    )


def switch(engine: AppEngine, who: Identity, version_id: int | None) -> str:
    """Put a version (None or PACKAGED: the packaged one) in use for every chat, and rescore the queue with it."""
    who = require_adjudicator(who)
    from annotations import store_review
    from annotations.training import rescore

    target = version_id or None

    leaving = engine.recognizer_version

    def run():
        with engine.db() as db:
            store_review.set_active_version(db, target)
        for used in {leaving, target} - {None}:  # both count as "was in use": going back to them is a revert
            with engine.db() as db:
                store_review.add_version_metrics(db, used, was_in_use=True)

    try:
        guard(run, "recognizer not switched")
    except ValueError as exc:
        raise REAError(str(exc)) from exc
    applied = apply_active(engine)
    model = engine.strategy("rea").recognizer.trained
    if model is not None:
        guard(lambda: rescore(engine.db, engine.recognizer_validation.embedder, model, target), "queue not rescored")
    return f"Recognizer in use: {applied}, for every chat from its next message on."


def source_metrics_markdown(engine: AppEngine) -> str:
    """Recall and precision of the recognizer in use, per label source of the studio's final labels."""
    from annotations import store_review, triage
    from rea_core.recognizer import InstructionRecognizer

    def rows():
        with engine.db() as db:
            return store_review.labeled_rows(db)

    found = guard(rows, "labels not loaded")
    if not found:
        return "No final labels yet: recall and precision per source appear once items are labeled."
    running = engine.strategy("rea").recognizer
    recognizer = running
    if running.trained is not None:  # the same recognizer on an embedder that keeps vectors between page views
        recognizer = InstructionRecognizer(
            running.llm, running.config, trained=running.trained, embedder=engine.recognizer_validation.embedder
        )
    by_source = triage.metrics_by_source(recognizer, found)
    lines = [
        "| label source | labeled | global | recall | precision | missed | false alarms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for source, m in by_source.items():
        (_, fp), (fn, _) = m["confusion"]
        lines.append(
            f"| {html.escape(source)} | {m['n']} | {m['positives']} | {metric(m, 'recall')} | "
            f"{metric(m, 'precision')} | {fn} | {fp} |"
        )
    return (
        f"The recognizer in use ({active_name(engine)}) on the studio's final labels, per source (a version "
        "trained on these labels has seen them; compare versions on the validation items below):\n\n"
        + "\n".join(lines)
    )


def provenance(engine: AppEngine) -> str:
    """Where the packaged stage 2 comes from: label set, counts, held-out metrics (one line)."""
    from rea_core.recognizer import provenance_line

    shipped, _ = engine.strategy("rea").recognizer.packaged
    return provenance_line(shipped)
