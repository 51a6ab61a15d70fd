"""The Review tab's numbers: a metric that is 0/0 reads "n/a" (never 0.000), and a version is
shown beside the one in use on the same validation items, per source (rules-only recognizer: no model)."""

import pytest

from annotations.training import validation_report
from app.tabs.review import handlers as rh
from app.views.recognizer_charts import metrics_bars
from rea_core.recognizer import GLOBAL
from rea_core.recognizer.metrics import defined

ROWS = [
    {"text": "From now on, answer in French.", "label": "global", "source": "handwritten"},  # stage 1 accepts
    {"text": "Whatever I ask next, talk like a pirate.", "label": "global", "source": "handwritten"},  # deferred
    {"text": "Hi there!", "label": "ordinary", "source": "chitchat"},  # stopped: nothing predicted global
    {"text": "From now on, end every reply with a haiku.", "label": "ordinary", "source": "trap"},  # a false alarm
]


@pytest.fixture(scope="module")
def report():
    return validation_report(None, ROWS, None)


def test_undefined_metrics_read_na_and_a_real_zero_stays_zero(report):
    chat, trap, hand = (report["by_source"][s] for s in ("chitchat", "trap", "handwritten"))
    assert chat["precision"] == 0.0 and defined(chat, "precision") is None  # stored 0, but nothing was predicted
    assert defined(chat, "recall") is None and defined(chat, "f1") is None  # and nothing was global
    assert defined(trap, "precision") == 0.0 and defined(trap, "recall") is None  # one false alarm: precision 0
    assert (defined(hand, "precision"), defined(hand, "recall")) == (1.0, 0.5)
    assert [rh.metric(chat, "precision"), rh.metric(trap, "precision"), rh.fmt(None), rh.fmt(0.5)] == [
        "n/a",
        "0.000",
        "n/a",
        "0.500",
    ]
    bars = metrics_bars(chat, trap, ("chitchat", "trap"))
    assert list(bars.data[0].text) == ["n/a", "n/a", "n/a"] and list(bars.data[1].text) == ["0.000", "n/a", "0.000"]


def test_a_version_is_compared_with_the_one_in_use_on_the_same_items_per_source(report):
    gold = tuple(r["label"] == GLOBAL for r in ROWS)
    # Only the verdicts differ (enough for the item-by-item sentence): catches Sam, drops the false alarm.
    better = {**report, "predicted": [True, True, False, False]}
    c = rh.Comparison(3, rh.PACKAGED, better, report, gold)
    assert "version 3 catches 1 globals packaged misses and misses 0 it catches" in c.headline()
    assert "it adds 0 false alarms and removes 1" in c.headline()
    table = c.table()
    assert "precision: version 3 | recall: version 3 | precision: packaged (in use)" in table
    assert "| all | 4 | 2 | 0.500 | 0.500 | 0.500 | 0.500 |" in table
    assert "| chitchat | 1 | 0 | n/a | n/a | n/a | n/a |" in table
    same = rh.Comparison(rh.PACKAGED, rh.PACKAGED, report, report, gold)
    assert "Packaged (in use) on the 4 validation items" in same.headline() and "packaged (in use)" in same.table()
