"""Store-facing functions of the Review tab: agreement, disagreements, adjudication, training
and switching the recognizer version the app uses (REA paper, D.1-D.3)."""

from __future__ import annotations

import html

from rea_core import REAError

from ...annotate_auth import Identity, require_adjudicator
from ...state import AppEngine
from ...store_guard import guard


def _fmt(k: float | None) -> str:
    return "undefined" if k is None else f"{k:.3f}"


def stats_markdown(engine: AppEngine) -> str:
    from annotations import store_review

    def run():
        with engine.db() as session:
            return store_review.agreement_stats(session)

    s = guard(run, "stats not loaded")
    lines = [
        f"**{s.n_items}** items · **{s.n_labeled}** labeled · **{s.n_adjudicated}** adjudicated",
        "",
        "labels given: " + (", ".join(f"{k} **{v}**" for k, v in sorted(s.label_counts.items())) or "none"),
        "",
        "final labels (adjudicated or majority): "
        + (", ".join(f"{k} **{v}**" for k, v in sorted(s.final_counts.items())) or "none"),
        "",
        f"Fleiss' kappa: **{_fmt(s.fleiss)}** on {s.fleiss_items} items with 2+ labels",
        "",
    ]
    if s.pairs:
        lines += ["| annotator A | annotator B | shared items | Cohen's kappa |", "| --- | --- | --- | --- |"]
        lines += [f"| {html.escape(a)} | {html.escape(b)} | {n} | {_fmt(k)} |" for a, b, n, k in s.pairs]
    return "\n".join(lines)


def disagreement_rows(engine: AppEngine, who: Identity) -> list[list]:
    """Rows for adjudicators only: annotators' labels are hidden from everyone else."""
    if who.role != "adjudicator":
        return []
    from annotations import store_review

    def run():
        with engine.db() as session:
            return store_review.disagreements(session, include_adjudicated=True)

    return [
        [d.item_id, d.text, ", ".join(f"{n}: {lab}" for n, lab in d.labels.items()), d.adjudicated or ""]
        for d in guard(run, "disagreements not loaded")
    ]


def adjudicate(engine: AppEngine, who: Identity, item_id: int, label: str) -> str:
    """Checked against the current configuration on every call; the stored role is brought in
    line with it first, so the store's own check agrees."""
    from annotations import store_items, store_review
    from annotations.store_items import AccessError

    who = require_adjudicator(who)

    def run():
        with engine.db() as session:
            store_items.ensure_annotator(session, who.name, who.role)
        with engine.db() as session:
            store_review.adjudicate(session, item_id, label, who.name)

    try:
        guard(run, "adjudication not saved")
    except (AccessError, ValueError) as exc:
        raise REAError(str(exc)) from exc
    return f"Item {item_id} adjudicated as {label}."


def versions(engine: AppEngine):
    from annotations import store_review

    def run():
        with engine.db() as session:
            return store_review.list_versions(session)

    return guard(run, "recognizer versions not loaded")


def _active(engine: AppEngine):
    from annotations import store_review

    def run():
        with engine.db() as session:
            return store_review.active_version(session)

    return guard(run, "active recognizer version not loaded")


def active_name(engine: AppEngine) -> str:
    """Which recognizer version the database marks active; reads only (a page load swaps nothing)."""
    active = _active(engine)
    return "packaged" if active is None else f"version {active.id}"


def apply_active(engine: AppEngine) -> str:
    """Point the app's REA recognizer at the active trained version (or the packaged one).

    The only place the shared recognizer changes: at startup, after training and after "Use this
    version", each under ``engine.recognizer_lock``, so two switches never interleave.
    """
    from annotations.training import load_version

    with engine.recognizer_lock:
        active = _active(engine)
        recognizer = engine.strategy("rea").recognizer
        if active is None:
            recognizer.use_trained(None)  # back to the packaged stage 2 (the shipped trained classifier by default)
            return f"packaged ({recognizer.stage2} stage 2)"
        recognizer.use_trained(load_version(engine.db, active.id), engine.models.embedder)
        return f"version {active.id}"


def train(engine: AppEngine, who: Identity) -> str:
    """Train a version from the labels and put it in use; say how many earlier misses it catches."""
    who = require_adjudicator(who)
    import copy

    from annotations import store_review, triage
    from annotations.training import train_from_store

    recognizer = engine.strategy("rea").recognizer
    before = copy.copy(recognizer)  # the recognizer in use until now (its stage 2 is not changed by training)

    def labeled():
        with engine.db() as session:
            return [t for t, lab, _ in store_review.labeled_rows(session) if lab == "global"]

    version = guard(
        lambda: train_from_store(engine.db, engine.models.embedder, created_by=who.name), "recognizer not trained"
    )
    apply_active(engine)
    missed, caught = triage.caught_misses(before, recognizer, guard(labeled, "labels not loaded"))
    return (
        f"Trained recognizer version {version.id} on {version.n_labels} labels; it is now in use. "
        f"Of the {missed} labeled global inputs the previous recognizer missed, it catches {caught}."
    )


def source_metrics_markdown(engine: AppEngine) -> str:
    """Recall and precision of the recognizer in use, per label source of the final labels."""
    from annotations import store_review, triage

    def rows():
        with engine.db() as session:
            return store_review.labeled_rows(session)

    found = guard(rows, "labels not loaded")
    if not found:
        return "No final labels yet: recall and precision per source appear once items are labeled."
    by_source = triage.metrics_by_source(engine.strategy("rea").recognizer, found)
    lines = [
        "| label source | labeled | global | recall | precision | missed | false alarms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for source, m in by_source.items():
        (_, fp), (fn, _) = m["confusion"]
        recall = f"{m['recall']:.3f}" if m["positives"] else "-"
        precision = f"{m['precision']:.3f}" if m["positives"] or fp else "-"
        lines.append(f"| {html.escape(source)} | {m['n']} | {m['positives']} | {recall} | {precision} | {fn} | {fp} |")
    return "Recognizer in use, per label source (the whole recognizer: stage 1, then stage 2):\n\n" + "\n".join(lines)


def switch(engine: AppEngine, who: Identity, version_id: int | None) -> str:
    who = require_adjudicator(who)
    from annotations import store_review

    def run():
        with engine.db() as session:
            store_review.set_active_version(session, version_id)

    guard(run, "recognizer not switched")
    return f"Recognizer in use: {apply_active(engine)}."


def provenance(engine: AppEngine) -> str:
    """Where the packaged stage 2 comes from: label set, counts, held-out metrics (one line)."""
    from rea_core.recognizer.default import provenance_line

    shipped, _ = engine.strategy("rea").recognizer.packaged
    return provenance_line(shipped)
