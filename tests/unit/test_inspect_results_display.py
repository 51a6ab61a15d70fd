"""The plain pieces behind what the Inspect and Results tabs show: plain names and headings of the
results charts and their empty states, REA's answer without a copied speaker name, whole-turn heatmap
ticks, the picker's entry for an upload, and the bundled LoCoMo example."""

import copy
import json
import re
from html import unescape
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from app.tabs.inspect import handlers as ih
from app.tabs.inspect.display import (
    fit_heatmap,
    is_upload_entry,
    short_label,
    turn_step,
    upload_entry,
    whole_turn_ticks,
)
from app.tabs.results import handlers as rh
from app.views.answer import render_answer
from app.views.charts import score_heatmap
from app.views.results_charts import PLAIN_NAMES, plain_name, results_view
from rea_core.evals import wrap
from rea_core.limits import Limits

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LOCOMO_EXAMPLE = Path(__file__).resolve().parents[2] / "rea_core" / "data" / "locomo-ines-kofi.json"
# Words a stakeholder cannot read: technical arm names, threshold variables, file names, metric codes.
JARGON = re.compile(r"rea-[a-z]|keep-all|tau_|sweep|\.jsonl|\bIAR\b|\bprobes?\b|\bHCR\b", re.IGNORECASE)


def shipped(task: str) -> dict:
    for path in sorted(rh.SHIPPED_DIR.glob("*/results.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("task") == task:
            return data
    pytest.fail(f"no shipped {task} results")


def visible_texts(view) -> list[str]:
    """Everything a stakeholder reads of a run: title, summary, chart headings, legends, axes, ticks."""
    texts = [view.title, view.summary]
    texts += [h.title for h in view.headings] + [n for h in view.headings for n in h.notes]
    for fig in view.figures:
        texts += [t.name or "" for t in fig.data]
        for axis in (fig.layout.xaxis, fig.layout.yaxis):
            texts.append(axis.title.text or "")
            texts += [str(t) for t in axis.ticktext or ()]
        texts += [a.text for a in fig.layout.annotations]
    return texts


# -- Results: plain words ---------------------------------------------------------------------------


def test_every_arm_policy_and_strategy_rea_eval_writes_has_a_plain_name():
    from rea_core.evals.arms import ABLATIONS
    from rea_core.evals.retrieval import BASELINES, REA_POLICIES
    from rea_core.methods.registry import available_strategies

    names = set(available_strategies()) | set(ABLATIONS) | set(REA_POLICIES) | set(BASELINES)
    assert names <= set(PLAIN_NAMES), sorted(names - set(PLAIN_NAMES))
    assert not [p for p in PLAIN_NAMES.values() if JARGON.search(p)]
    assert len(set(PLAIN_NAMES.values())) == len(PLAIN_NAMES)  # no two series read the same
    assert plain_name("my-own-arm") == "my-own-arm"  # unknown: as the file wrote it


@pytest.mark.parametrize("task", ["Instruction adherence", "latency", "retrieval"])
def test_shipped_runs_read_in_plain_words_and_keep_their_command(task):
    data = shipped(task)
    view = results_view(data)
    found = [t for t in visible_texts(view) if JARGON.search(t)]
    assert not found, found
    assert view.command == data["provenance"]["command"]  # the researchers' command, as it was run
    caption = rh.caption_html(view)
    assert caption.index("rea-results-plain") < caption.index("rea-results-command")  # plain words first
    assert all(len(h.title) <= 60 for h in view.headings)  # short headings


def test_the_retrieval_run_is_named_for_what_it_measures_and_its_arm_names_stay_for_researchers():
    view = results_view(shipped("retrieval"))
    assert view.title == "Finding the earlier turn a follow-up needs (held-out long chats)"
    assert view.headings[1].title == "What happens as the omit threshold moves"
    legend = [t.name for t in view.figures[1].data if t.showlegend is not False]
    assert legend == ["REA", "REA by score alone", "Last 10 turns only", "Whole chat kept"]  # one entry each
    hovers = " ".join(t.hovertemplate for t in view.figures[1].data)
    assert "(rea-hybrid-plain)" in hovers and "omit threshold" in hovers  # the technical name on hover
    caption = rh.caption_html(view)
    assert "<code>rea-hybrid-plain</code> = REA by score alone" in caption
    assert "--policies rea,rea-hybrid-plain,recency,keep-all" in caption


def test_headings_are_set_as_escaped_html_and_wrap_helpers_break_between_words():
    data = shipped("latency")
    data.pop("provenance")
    data["model"] = "<b>model</b>"
    view = results_view(data)
    html = rh.heading_html(view.headings[0])
    assert '<span class="rea-chart-title">How much the model reads each turn</span>' in html
    assert all(not h.title.count("<") for h in view.headings)
    assert "<b>model" not in rh.caption_html(view, uploaded=True)
    assert wrap("What happens as the omit threshold moves", 20) == ["What happens as the", "omit threshold moves"]
    assert wrap("", 10) == [""]


def test_a_chart_with_nothing_to_draw_says_what_will_appear_and_when():
    latency = shipped("latency")
    for recs in latency["per_turn"].values():
        for r in recs:
            r["generated"] = False
    tokens, seconds = results_view(latency).figures
    assert not tokens.layout.annotations  # it has lines
    (note,) = seconds.layout.annotations
    assert note.text.startswith("Reply times appear here") and seconds.layout.xaxis.visible is False
    adherence = copy.deepcopy(shipped("Instruction adherence"))
    for arm in adherence["arms"].values():
        arm["by_depth"] = {}
    depth, _ = results_view(adherence).figures
    assert "A line per strategy appears here" in depth.layout.annotations[0].text.replace("<br>", " ")


def test_a_dropped_in_run_keeps_its_chart_headings(tmp_path):
    from app.session_state import SessionStore

    path = tmp_path / "results.json"
    path.write_text(json.dumps(shipped("retrieval")), encoding="utf-8")
    store = SessionStore(2**30, ttl_s=900)
    held, _ = rh.add_uploads([str(path)], None, store, Limits())
    ((run,), _) = rh.drawn_runs(held, store)
    assert len(run.headings) == len(run.figures) == 2 and "omit threshold" in run.headings[1]


# -- Inspect: REA's answer --------------------------------------------------------------------------


def test_the_answer_panel_numbers_the_question_from_one_and_shows_the_answer_without_its_speaker():
    from rea_core.evals.qa import QuestionAnswer

    fields = {f: None for f in QuestionAnswer.__dataclass_fields__}
    fields.update(
        question="What is Kofi's <b>dog</b> called?",
        answer="Biscuit",
        prediction="Biscuit <i>",  # the library took the copied speaker name off (test_qa_speaker.py)
        reply="Kofi: Biscuit <i>\nKofi: more",
        category="single-hop",
        position=13,
        evidence=(),
        prompt_tokens=300,
        tau_low=0.2,
        tau_high=0.36,
        seconds=1.0,
    )
    view = render_answer(QuestionAnswer(**fields), number=1)
    assert "<b>Question 1</b> (single-hop)" in view
    assert '<span title="generated: Kofi: Biscuit &lt;i&gt;">Biscuit &lt;i&gt;</span>' in view
    assert "<i>" not in view and "<b>dog</b>" not in view


# -- Inspect: heatmap, picker, example ---------------------------------------------------------------


def test_turn_ticks_are_whole_and_at_most_twelve():
    assert [turn_step(n) for n in (1, 12, 13, 24, 25, 60, 61, 120, 121, 800)] == [1, 1, 2, 2, 5, 5, 10, 10, 20, 100]
    fig = whole_turn_ticks(score_heatmap(np.full((3, 5), 0.5), ["a", "b", "c"]))
    assert (fig.layout.xaxis.tickmode, fig.layout.xaxis.tick0, fig.layout.xaxis.dtick) == ("linear", 0, 1)


def test_the_heatmap_fits_a_phone_with_short_row_labels_cut_outside_entities():
    users = ["We finally finished unpacking the <b>boxes</b>", "ok", "Which plants?"]
    fig = fit_heatmap(score_heatmap(np.full((3, 3), 0.5), users, selected_turn=2))
    labels = list(fig.layout.yaxis.ticktext)
    assert labels[1] == "1: ok" and all(len(unescape(label)) <= 18 for label in labels)
    assert short_label("0: a &lt;b&gt; c d e f g h i j k") == "0: a &lt;b&gt; c d e f …"
    assert fig.layout.xaxis.dtick == 1 and fig.layout.title.xanchor == "left"


def test_an_upload_has_its_own_picker_entry():
    assert upload_entry("my chats.json") == "your upload: my chats.json"
    assert is_upload_entry(upload_entry("x.jsonl")) and not is_upload_entry("conversations.jsonl")
    assert not is_upload_entry(None)


def test_the_bundled_locomo_example_is_offered_and_reads_as_locomo(tmp_path):
    from rea_core.evals import locomo_sample
    from rea_core.evals.retrieval import load_locomo

    assert locomo_sample() == LOCOMO_EXAMPLE  # inside the package, and shipped with it as package data:
    pyproject = (EXAMPLES.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^rea_core = \[[^\]]*"data/\*\.json"', pyproject, re.MULTILINE)
    assert ih.bundled_paths(SimpleNamespace(examples_dir=EXAMPLES))["locomo-ines-kofi.json"] == LOCOMO_EXAMPLE
    assert "conversations.jsonl" in ih.bundled_files(SimpleNamespace(examples_dir=EXAMPLES))
    # An install without the repository's examples/ folder still offers the packaged sample.
    assert ih.bundled_files(SimpleNamespace(examples_dir=tmp_path / "absent")) == ["locomo-ines-kofi.json"]
    raw = json.loads(LOCOMO_EXAMPLE.read_text(encoding="utf-8"))
    turns = [t for k, v in raw.items() if re.fullmatch(r"session_\d+", k) for t in v]
    assert 20 <= len(turns) <= 30 and all(re.fullmatch(r"D\d+:\d+", t["dia_id"]) for t in turns)
    (case,) = load_locomo(LOCOMO_EXAMPLE)
    assert case.id == "ines-kofi" and len(case.exchanges) == 13 and case.times[0] == "2024-03-03T14:15"
    assert len(case.queries) == 5  # the adversarial (category 5) item is skipped, as in LoCoMo runs
    first = case.queries[0]
    assert first.answer == "Biscuit" and first.needed == (1,) and "Biscuit" in " ".join(case.exchanges[1])
    assert {q.category for q in case.queries} == {1, 2, 3, 4}


def test_a_drop_made_while_the_previous_was_read_reads_only_its_new_file():
    """The drop zone keeps a file until the reply to its drop empties it, so a drop made meanwhile
    brings that file again: only the new one is read."""
    fresh, now = rh.unseen(["/c/bad.json", "/c/results.json"], ("/c/bad.json",))
    assert fresh == ["/c/results.json"] and now == ("/c/bad.json", "/c/results.json")
    assert rh.unseen(["/c/bad.json"], now) == ([], ("/c/bad.json",))  # the earlier drop, answered late
    assert rh.unseen(None, ()) == ([], ())
    assert rh.unseen([SimpleNamespace(name="/c/x.json")], None) == (["/c/x.json"], ("/c/x.json",))
