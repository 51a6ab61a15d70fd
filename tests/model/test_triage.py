"""The studio's triage queue modes and per-source metrics on the real packaged embedder (issue 16)."""

import pytest

from annotations import create_db_engine, session_factory, store_items, triage, upgrade
from annotations.io import ImportRow
from rea_core.recognizer.recognize import OTHER, InstructionRecognizer, build_recognizer, rule_stage
from rea_core.recognizer.trained import fit

GATE_STOPPED_GLOBAL = "Detective mode."  # no cue of any gate family, yet a standing wish

# What an adjudicator labels in the studio before "Train recognizer": terse persona switches are global.
STUDIO_LABELS = [("Pirate mode.", "global"), ("Cowboy mode.", "global"), ("Robot mode.", "global"), ("Wizard mode.", "global"),
                 ("Butler mode.", "global"), ("Knight mode.", "global"), ("What is the capital of Peru?", "ordinary"),
                 ("Good morning!", "ordinary"), ("How far is the moon?", "ordinary"), ("Who wrote Hamlet?", "ordinary"),
                 ("Thanks a lot!", "ordinary"), ("Why is the sky blue?", "ordinary"), ("Write a poem about rain.", "task"),
                 ("Write a poem about the sea.", "task"), ("Write a story about a cat.", "task"), ("Write a haiku about snow.", "task")]
FALSE_ALARM = "Write a poem called 'For the rest of our chat'."  # stage 1 stores it: a persistence marker and a directive


@pytest.fixture()
def db(tmp_path):
    engine = create_db_engine(f"sqlite:///{tmp_path / 'triage.db'}")
    upgrade(engine)
    Session = session_factory(engine)
    with Session() as s:
        store_items.import_rows(s, [ImportRow(t) for t in (
            "What is the capital of Chile?", "Good evening!", GATE_STOPPED_GLOBAL,
            FALSE_ALARM, "Always answer in French.")], source="t")
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
    assert found is not None and found.item.text == GATE_STOPPED_GLOBAL and found.p_global >= studio_version.trained.threshold
    with db() as s:
        assert [t.item.text for t in triage.likely_missed(store_items.open_items(s, "alice"), studio_version)] == [GATE_STOPPED_GLOBAL]
    with db() as s:  # once labeled, it leaves the queue
        store_items.record_label(s, "alice", found.item.id, "global")
    with db() as s:
        assert triage.next_in_mode(s, "alice", triage.MISSED, studio_version) is None


def test_likely_false_alarm_queue_surfaces_a_stored_input_that_looks_like_a_task(db, studio_version):
    with db() as s:
        found = triage.likely_false_alarms(store_items.open_items(s, "alice"), studio_version)
    assert [t.item.text for t in found] == [FALSE_ALARM]
    assert "entered IM by rules" in found[0].reason and "looks task" in found[0].reason


def test_caught_misses_and_metrics_by_source(recognizer):
    globals_ = ["Keep a formal tone with me throughout our conversation.", "From now on, answer in lowercase.", "Call me Sam."]
    missed, caught = triage.caught_misses(InstructionRecognizer(None), recognizer, globals_)
    assert (missed, caught) == (2, 2)  # rules alone store only the "from now on" one
    rows = [(globals_[0], "global", "fresh"), ("I always forget my keys.", "ordinary", "fresh"), ("Call me Sam.", "global", "hand")]
    m = triage.metrics_by_source(recognizer, rows)
    assert m["fresh"]["recall"] == 1.0 and m["fresh"]["precision"] == 1.0 and m["hand"]["n"] == 1
    with pytest.raises(ValueError, match="trained stage 2"):
        triage.likely_missed([], InstructionRecognizer(None))
