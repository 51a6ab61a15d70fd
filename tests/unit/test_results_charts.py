"""The Results tab's figures: drawn from the shipped results.json files as written by ``rea eval``,
and a clear message, naming no server folder, for anything else."""

import copy
import json

import pytest

from app.session_state import SessionStore
from app.tabs.results import handlers as rh
from app.views.results_charts import ResultsFormatError, plain_name, results_view
from rea_core.errors import REAError
from rea_core.evals import MAX_SERIES
from rea_core.limits import Limits

LIMITS = Limits()
XSS = "<img src=x onerror=alert(1)>"


def shipped(task: str) -> dict:
    for path in sorted(rh.SHIPPED_DIR.glob("*/results.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("task") == task:
            return data
    pytest.fail(f"no shipped {task} results")


def test_every_shipped_run_draws_with_the_command_that_reproduces_it():
    runs = rh.shipped_results(LIMITS)
    views = [v for _, v in runs]
    assert all(not isinstance(v, str) for v in views), [v for v in views if isinstance(v, str)]
    assert {"adherence", "latency", "retrieval"} <= {v.task for v in views}
    assert views[0].task == "adherence"  # the page opens on the case for instruction memory
    for v in views:
        assert v.command.startswith("rea ") and f"rea eval {v.task}" in v.command
        assert v.recorded and v.scale
        assert v.figures and all(fig.data and all(len(t.y) for t in fig.data) for fig in v.figures)


def test_adherence_draws_each_strategy_by_turn_depth():
    data = shipped("Instruction adherence")
    depth, iar = results_view(data).figures
    assert [t.name for t in depth.data] == [plain_name(n) for n in data["arms"]]
    for name, trace in zip(data["arms"], depth.data):
        assert dict(zip(trace.x, trace.y)) == data["arms"][name]["by_depth"]
    assert list(iar.data[0].y) == [m["iar"] for m in data["arms"].values()]


def test_latency_draws_prompt_tokens_every_turn_and_latency_of_generated_turns():
    data = shipped("latency")
    view = results_view(data)
    tokens, seconds = view.figures
    by_plain = {plain_name(n): recs for n, recs in data["per_turn"].items()}
    for trace in tokens.data:
        assert list(trace.y) == [r["prompt_tokens"] for r in by_plain[trace.name]]
    for trace in seconds.data:
        assert list(trace.y) == [r["latency_s"] for r in by_plain[trace.name] if r["generated"]]
    assert f"{data['turns']} turns" in view.scale


def test_retrieval_draws_recall_and_kept_share_per_policy():
    data = shipped("retrieval")
    bars, curve = results_view(data).figures
    kept = {t.name: list(t.y) for t in bars.data}
    assert kept["follow-ups with every needed turn kept"] == [m["all_kept"] for m in data["policies"].values()]
    assert kept["share of earlier turns kept"] == [m["kept_share"] for m in data["policies"].values()]
    sweeps = [t for t in curve.data if t.mode == "lines"]
    assert sweeps and all(len(t.x) == len(data["policies"]["rea"]["sweep"]["tau_low"]) for t in sweeps[:1])


def _broken(task: str, change) -> dict:
    data = copy.deepcopy(shipped(task))
    change(data)
    return data


MALFORMED = [
    (lambda: [1, 2], "expected a JSON object, found a list"),
    (lambda: {"arms": {}}, 'no "task" key'),
    (lambda: {"task": "state"}, 'results of task "state" are not drawn here'),
    (lambda: _broken("Instruction adherence", lambda d: d.pop("arms")), '"arms" must be an object'),
    (
        lambda: _broken("Instruction adherence", lambda d: d["arms"]["rea"]["by_depth"].update({"1-4": 1.5})),
        'strategy "rea" by_depth 1-4 must be a number between 0 and 1, found 1.5',
    ),
    (
        lambda: _broken(
            "Instruction adherence", lambda d: d.update(arms={f"a{i}": {} for i in range(MAX_SERIES + 1)})
        ),
        f"at most {MAX_SERIES} are drawn",
    ),
    (lambda: _broken("latency", lambda d: d["per_turn"].update(rea="x")), 'per_turn "rea" must be a list of turns'),
    (
        lambda: _broken("latency", lambda d: d["per_turn"]["rea"][3].update(prompt_tokens=None)),
        'per_turn "rea" turn 3: prompt_tokens must be a number',
    ),
    (lambda: _broken("retrieval", lambda d: d["policies"]["rea"].pop("all_kept")), 'policy "rea" all_kept'),
    (
        lambda: _broken("retrieval", lambda d: d["policies"]["rea"]["sweep"]["all_kept"].pop()),
        'policy "rea" sweep lists differ in length',
    ),
    (lambda: _broken("retrieval", lambda d: d.update(provenance={"command": 3})), '"provenance" command must be text'),
]


@pytest.mark.parametrize("make, message", MALFORMED)
def test_malformed_results_say_what_is_wrong(make, message):
    with pytest.raises(ResultsFormatError) as err:
        results_view(make())
    assert message in str(err.value)


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"task": "latency",', "not valid JSON (Expecting"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "nested 100000 levels deep"),
        (b"[" * 900 + b"]" * 900, "nested 900 levels deep"),
        (b" " * (2 * 2**20), "over the limit of 1 MB"),
        (b'{"task": "latency", "x": NaN}', "NaN or Infinity"),
        (b'{"task": "latency", "x": 1' + b"9" * 5000 + b"}", "a number too long"),
        (b'{"task": "latency\\u0000"}', "a NUL character"),
        (b'{"task": "\\ud800"}', "a lone surrogate"),
        (b'{"task": "latency", "junk": [' + b"[]," * 200_000 + b"[]]}", "over the limit of 250,000"),
    ],
)
def test_unreadable_files_are_refused_without_naming_their_folder(tmp_path, content, message):
    path = tmp_path / "results.json"
    path.write_bytes(content)
    with pytest.raises(REAError) as err:
        rh.read_results(path, Limits(max_upload_mb=1))
    assert message in str(err.value) and str(tmp_path) not in str(err.value)


def test_uploads_add_good_runs_and_name_the_bad_file_escaped(tmp_path):
    store = SessionStore(2**30, ttl_s=900)
    good, bad = tmp_path / "results.json", tmp_path / f"{XSS}.json"
    good.write_text(json.dumps(shipped("latency")), encoding="utf-8")
    bad.write_text(json.dumps({"task": XSS}), encoding="utf-8")
    held, status = rh.add_uploads([str(good), str(bad)], None, store, LIMITS)
    runs, note = rh.drawn_runs(held, store)
    assert len(runs) == 1 and note == "" and "latency" in runs[0].caption.lower()
    assert [len(f.data) for f in runs[0].plots()] == [len(f.data) for f in results_view(shipped("latency")).figures]
    assert "Drawn below: results.json" in status and "Cannot draw &lt;img" in status
    assert XSS not in status and str(tmp_path) not in status
    again, _ = rh.add_uploads([str(good)] * (rh.MAX_SESSION_UPLOADS + 2), held, store, LIMITS)
    assert len(rh.drawn_runs(again, store)[0]) == rh.MAX_SESSION_UPLOADS
    assert held not in store and len(store) == 1  # the session's earlier runs were replaced, not kept beside


def test_a_dropped_in_run_keeps_what_is_drawn_not_the_file(tmp_path):
    """A results.json padded with unknown keys: the session holds its figures, not the padding."""
    data = shipped("latency")
    data["junk"] = ["x" * 100_000 for _ in range(80)]  # 8 MB of keys nothing draws
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    store = SessionStore(2**30, ttl_s=900)
    held, status = rh.add_uploads([str(path)], None, store, LIMITS)
    assert "Drawn below" in status and store.total_bytes < 2 * 2**20, store.total_bytes


def test_dropped_in_runs_count_under_the_cap_and_a_dropped_session_is_told(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(shipped("latency")), encoding="utf-8")
    store = SessionStore(80_000, ttl_s=900)  # room for one session's three runs (16 KB each), not two
    first, _ = rh.add_uploads([str(path)] * 3, None, store, LIMITS)
    second, _ = rh.add_uploads([str(path)] * 3, None, store, LIMITS)  # another session, over the cap
    assert store.total_bytes <= 80_000
    runs, note = rh.drawn_runs(first, store)
    assert runs == () and "dropped to free memory" in note and "load it again" in note
    assert len(rh.drawn_runs(second, store)[0]) == 3


def test_text_from_a_file_is_escaped_once_in_figures_and_captions():
    data = shipped("Instruction adherence")
    data["arms"] = {XSS: data["arms"]["rea"], "a&b": data["arms"]["vanilla"]}
    data["model"] = "<b>model</b>"
    data.pop("provenance", None)  # an uploaded file: the command is rebuilt from its settings
    view = results_view(data)
    names = {t.name for fig in view.figures for t in fig.data if t.name}
    assert "&lt;img src=x onerror=alert(1)&gt;" in names and "a&amp;b" in names  # plotly reads its markup once
    assert {str(x) for t in view.figures[1].data for x in t.x} == {"&lt;img src=x onerror=alert(1)&gt;", "a&amp;b"}
    caption = rh.caption_html(view)
    assert XSS not in caption and "<b>model" not in caption and "&lt;b&gt;model" in caption
    assert "--strategies &lt;img src=x onerror=alert(1)&gt;,a&amp;b" in caption  # the rebuilt command


def test_a_broken_shipped_file_becomes_a_message_beside_the_good_ones(tmp_path):
    for name, content in (("b-good", json.dumps(shipped("latency"))), ("a-broken", '{"task": "retrieval"}')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(content, encoding="utf-8")
    (good_name, good), (bad_name, message) = rh.shipped_results(LIMITS, tmp_path)
    assert (good_name, good.task, bad_name) == ("b-good", "latency", "a-broken")
    assert message == '"policies" must be an object, found null'


def test_the_iar_chart_says_whether_rea_wins_ties_or_loses():
    from rea_core.evals import adherence_scores, adherence_verdict

    def arms(rea, vanilla):
        return {"vanilla": {"probes": 47, "iar": vanilla}, "rea": {"probes": 47, "iar": rea}}

    assert adherence_verdict(arms(0.62, 0.40)) == "REA follows more instructions than the whole chat"
    assert adherence_verdict(arms(0.4, 0.4)) == "REA and the whole chat follow as many instructions"
    assert adherence_verdict(arms(0.3, 0.4)) == "REA does not beat the whole chat here"
    assert adherence_verdict({"rea": {"probes": 3, "iar": 1.0}}) == "Replies that follow every instruction"
    assert adherence_scores(arms(0.62, 0.40)).endswith("Whole chat (vanilla) 4.0, REA 6.2")
