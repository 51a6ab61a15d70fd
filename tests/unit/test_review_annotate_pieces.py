"""Pure pieces of the Review and Annotate tabs: a worse candidate is named with its drops and needs a
typed confirmation (going back does not), charts say what they will show before anything is measured
and label bars with two decimals, and the item to label carries no model score."""

from datetime import datetime

from annotations.store_items import QueueItem
from annotations.store_review import VersionInfo
from app.tabs.annotate import handlers as ah
from app.tabs.review import handlers as rh
from app.views.recognizer_charts import EMPTY_BARS, confusion, metrics_bars, pr_curves

GOLD = (True, True, False, False)


def _m(precision, recall):
    return {"n": 4, "positives": 2, "precision": precision, "recall": recall, "f1": 0.5, "confusion": [[1, 1], [1, 1]]}


def _report(precision, recall):
    return {"all": _m(precision, recall), "by_source": {}, "predicted": [True, False, True, False]}


def _version(id_, active=False, **metrics):
    return VersionInfo(id_, datetime(2026, 1, 1), "alice", 10, active, metrics)


def test_a_candidate_below_the_one_in_use_names_each_drop():
    c = rh.Comparison(3, rh.PACKAGED, _report(0.232, 0.9), _report(0.894, 0.9), GOLD)
    (drop,) = c.drops()
    assert (drop.metric, round(drop.by, 3)) == ("precision", 0.662)
    assert c.worse_words() == (
        "Version 3 is worse than packaged (in use) on the same validation items: precision drops 0.894 → 0.232."
    )
    both = rh.Comparison(3, rh.PACKAGED, _report(0.5, 0.4), _report(0.9, 0.8), GOLD)
    assert [d.metric for d in both.drops()] == ["precision", "recall"]
    # Better or equal (to what the page shows), the one in use itself, or a metric that is 0/0: no drop.
    assert rh.Comparison(3, rh.PACKAGED, _report(0.95, 0.9), _report(0.9, 0.9), GOLD).drops() == []
    assert rh.Comparison(3, rh.PACKAGED, _report(0.8994, 0.9), _report(0.8996, 0.9), GOLD).drops() == []
    assert rh.Comparison(3, 3, _report(0.2, 0.2), _report(0.2, 0.2), GOLD).worse_words() == ""
    undefined = _report(0.0, 0.0)
    undefined["all"]["confusion"] = [[2, 0], [2, 0]]  # nothing predicted global: precision is n/a, not 0
    assert [d.metric for d in rh.Comparison(3, rh.PACKAGED, undefined, _report(0.9, 0.9), GOLD).drops()] == ["recall"]


def test_only_a_worse_version_never_in_use_needs_the_typed_words():
    worse = rh.Comparison(3, rh.PACKAGED, _report(0.2, 0.9), _report(0.9, 0.9), GOLD)
    assert rh.typed_confirmation_needed(worse, [_version(3)])
    assert not rh.typed_confirmation_needed(worse, [_version(3, was_in_use=True)])  # going back to it
    back = rh.Comparison(rh.PACKAGED, 3, _report(0.2, 0.9), _report(0.9, 0.9), GOLD)
    assert not rh.typed_confirmation_needed(back, [_version(3, active=True)])  # the packaged one: one click
    better = rh.Comparison(4, rh.PACKAGED, _report(0.95, 0.95), _report(0.9, 0.9), GOLD)
    assert not rh.typed_confirmation_needed(better, [_version(4)])
    # Going back (one click, no confirmation step) is only to the packaged one or a version once in use.
    assert rh.is_revert(rh.PACKAGED, []) and rh.is_revert(3, [_version(3, was_in_use=True)])
    assert not rh.is_revert(4, [_version(4)]) and not rh.is_revert(5, [_version(4)])


def test_charts_say_what_they_will_show_before_anything_is_measured():
    for fig in (metrics_bars(None, None, ("", "")), pr_curves(None, None, ("", "")), confusion(None, "")):
        (note,) = fig.layout.annotations
        assert "appear here after an adjudicator<br>trains the first candidate" in note.text
        assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False and not fig.data
    assert metrics_bars(None, None, ("", "")).layout.annotations[0].text == EMPTY_BARS


def test_bars_show_two_decimals_inside_tall_bars_and_three_on_hover():
    fig = metrics_bars(_m(0.894, 0.1), _m(0.9, 1.0), ("version 3", "packaged (in use)"))
    first = fig.data[0]
    assert list(first.text) == ["0.894", "0.100", "0.500"]  # hover
    assert list(first.texttemplate) == ["%{y:.2f}"] * 3  # on the bar: 0.89
    assert list(first.textposition) == ["inside", "outside", "inside"]  # a short bar's label sits above it
    assert len(fig.layout.title.text) <= 40


def test_the_item_to_label_has_no_score_and_the_saved_message_gives_it():
    page = ah.item_html(QueueItem(7, "Call me <Captain>.", "s&p", "earlier turn", 0.9))
    assert "P(global)" not in page and "recognizer" not in page
    assert "Call me &lt;Captain&gt;." in page and "source s&amp;p" in page
    assert page.index("rea-annotate-meta") < page.index("annotate-text")
    words = ah.verdict_words(ah.Stage2("packaged", "defers to stage 2", 0.823))
    assert words == "recognizer in use (packaged): stage 1 defers to stage 2 · stage 2 P(global) 0.82"
    assert "P(global) n/a" in ah.verdict_words(ah.Stage2("packaged", "", None))


def test_an_empty_triage_queue_counts_what_waits_in_the_default_one():
    page = ah.queue_empty_html("likely missed", 386)
    assert "No likely missed items left" in page and "386 items wait in the default queue" in page
    assert "Nothing left" not in page
    assert "1 item waits" in ah.queue_empty_html("likely false alarm", 1)
    assert "Nothing left to label" in ah.item_html(None)


def test_the_short_guideline_links_to_the_full_one_it_names():
    text = ah.guideline()
    assert f"(#{ah.FULL_GUIDELINE_ANCHOR})" in text and "`docs/recognizer_labeling.md`" not in text
    assert ah.full_guideline().startswith("# Instruction Recognizer validation set: labeling guideline")
