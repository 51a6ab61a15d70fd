"""The studio's triage queue modes and per-source metrics on the real packaged embedder."""

import pytest

from annotations import create_db_engine, session_factory, store_items, triage, upgrade
from annotations.io import ImportRow
from rea_core import RuntimeConfig, Settings
from rea_core.recognizer import OTHER, InstructionRecognizer, build_recognizer, rule_stage
from rea_core.recognizer.trained import fit

GATE_STOPPED_GLOBAL = "Detective mode."  # no cue of any gate family, yet a standing wish

# What an adjudicator labels in the studio before "Train recognizer": terse persona switches are global.
STUDIO_LABELS = [
    ("Pirate mode.", "global"),
    ("Cowboy mode.", "global"),
    ("Robot mode.", "global"),
    ("Wizard mode.", "global"),
    ("Butler mode.", "global"),
    ("Knight mode.", "global"),
    ("What is the capital of Peru?", "ordinary"),
    ("Good morning!", "ordinary"),
    ("How far is the moon?", "ordinary"),
    ("Who wrote Hamlet?", "ordinary"),
    ("Thanks a lot!", "ordinary"),
    ("Why is the sky blue?", "ordinary"),
    ("Write a poem about rain.", "task"),
    ("Write a poem about the sea.", "task"),
    ("Write a story about a cat.", "task"),
    ("Write a haiku about snow.", "task"),
]
# Stage 1 stores it (a persistence marker and a directive), though it reads as a one-off task. (A poem
# *called* "For the rest of our chat" no longer enters: the persistence words are the title of the
# content asked for, an addressee frame, issue 26.)
FALSE_ALARM = "For the rest of our chat, write a poem about rain."


@pytest.fixture()
def db(tmp_path):
    engine = create_db_engine(f"sqlite:///{tmp_path / 'triage.db'}")
    upgrade(engine)
    Session = session_factory(engine)
    with Session() as s:
        store_items.import_rows(
            s,
            [
                ImportRow(t)
                for t in (
                    "What is the capital of Chile?",
                    "Good evening!",
                    GATE_STOPPED_GLOBAL,
                    FALSE_ALARM,
                    "Always answer in French.",
                )
            ],
            source="t",
        )
    return Session


@pytest.fixture(scope="module")
def recognizer(models):
    return build_recognizer(None, models.embedder)


@pytest.fixture(scope="module")
def studio_version(models):
    model = fit([t for t, _ in STUDIO_LABELS], [lab for _, lab in STUDIO_LABELS], models.embedder)
    return InstructionRecognizer(None, trained=model, embedder=models.embedder)


def test_likely_missed_queue_surfaces_a_gate_rejected_global(db, studio_version):
    assert rule_stage(GATE_STOPPED_GLOBAL)[0] == OTHER  # stage 1 stops it: REA would never store it
    with db() as s:
        found = triage.next_in_mode(s, "alice", triage.MISSED, studio_version)
    assert (
        found is not None
        and found.item.text == GATE_STOPPED_GLOBAL
        and found.p_global >= studio_version.trained.threshold
    )
    with db() as s:
        assert [t.item.text for t in triage.likely_missed(store_items.open_items(s, "alice"), studio_version)] == [
            GATE_STOPPED_GLOBAL
        ]
    with db() as s:  # once labeled, it leaves the queue
        store_items.record_label(s, "alice", found.item.id, "global")
    with db() as s:
        assert triage.next_in_mode(s, "alice", triage.MISSED, studio_version) is None


def test_likely_false_alarm_queue_surfaces_a_stored_input_that_looks_like_a_task(db, studio_version):
    with db() as s:
        found = triage.likely_false_alarms(store_items.open_items(s, "alice"), studio_version)
    reasons = {t.item.text: t.reason for t in found}
    # The English second opinion stores "Always answer in French." (the 16-row studio model alone scores it
    # 0.17), and that model reads it as ordinary: the queue shows it too, for an annotator to confirm.
    assert set(reasons) == {FALSE_ALARM, "Always answer in French."}
    assert "entered IM by rules" in reasons[FALSE_ALARM] and "looks task" in reasons[FALSE_ALARM]
    assert "entered IM by word-classes" in reasons["Always answer in French."]


def test_caught_misses_and_metrics_by_source(recognizer):
    globals_ = [
        "All dates you write should use the YYYY-MM-DD format.",
        "From now on, answer in lowercase.",
        "Whatever I ask next, reply like a pirate would.",
    ]
    missed, caught = triage.caught_misses(InstructionRecognizer(None), recognizer, globals_)
    assert (missed, caught) == (2, 2)  # rules alone store only the "from now on" one
    rows = [
        (globals_[0], "global", "fresh"),
        ("I always forget my keys.", "ordinary", "fresh"),
        ("Call me Sam.", "global", "hand"),
    ]
    m = triage.metrics_by_source(recognizer, rows)
    assert m["fresh"]["recall"] == 1.0 and m["fresh"]["precision"] == 1.0 and m["hand"]["n"] == 1
    with pytest.raises(ValueError, match="trained stage 2"):
        triage.likely_missed([], InstructionRecognizer(None))


@pytest.mark.slow  # tens of seconds of generation; the slow group runs it in CI
def test_review_tab_metrics_agree_with_the_apps_recognize_on_every_validation_input(models, tmp_path):
    """Issue 11: the numbers the Review tab shows come from the recognizer the app runs, input by input."""
    from annotations.training import train_from_store, validation_rows
    from app.state import AppEngine
    from app.tabs.review import handlers as review_handlers
    from rea_core.recognizer import GLOBAL
    from rea_core.recognizer.metrics import decision_threshold, recognizer_scores

    engine = AppEngine(
        models=models,
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=8)),
        database_url=f"sqlite:///{tmp_path / 'review.db'}",
    )
    with engine.db() as s:
        store_items.import_rows(
            s, [ImportRow(t, labels=[("alice", lab)]) for t, lab in STUDIO_LABELS], source="studio"
        )
    version = train_from_store(engine.db, models.embedder, created_by="alice", activate=True)
    assert review_handlers.apply_active(engine) == f"version {version.id}"
    app_recognizer = engine.strategy("rea").recognizer
    rows = validation_rows()
    texts, gold = [r["text"] for r in rows], [r["label"] for r in rows]

    predicted_by_app = [app_recognizer.recognize(t).label == GLOBAL for t in texts]  # one at a time, as in a chat
    predicted_by_metrics = (recognizer_scores(app_recognizer, texts) >= decision_threshold(app_recognizer)).tolist()
    assert predicted_by_metrics == predicted_by_app
    (tn, fp), (fn, tp) = version.metrics["validation"]["pipeline"]["confusion"]  # the version table's numbers
    is_global = [g == GLOBAL for g in gold]
    assert tp == sum(p and g for p, g in zip(predicted_by_app, is_global)) and fp == sum(
        p and not g for p, g in zip(predicted_by_app, is_global)
    )
    assert fn == sum(g and not p for p, g in zip(predicted_by_app, is_global)) and tn == sum(
        not p and not g for p, g in zip(predicted_by_app, is_global)
    )
