"""The launched app through gradio_client, on the packaged models: turns, isolation, thresholds,
escaping, save/load, the inspector and its marks database."""

import json
import threading
import time

import pytest
from gradio_client import Client, handle_file

# generate_replies / set_thresholds outputs: chat0, chat1, prompt0, prompt1, chart0, chart1, im0, im1, err0, err1
CHAT0, CHAT1, PROMPT0, PROMPT1, IM0, ERR0 = 0, 1, 2, 3, 6, 8
XSS = "<img src=x onerror=alert(1)>"


def texts(chat):
    out = []
    for message in chat:
        content = message["content"]
        out.append(" ".join(c.get("text", "") for c in content) if isinstance(content, list) else str(content))
    return out


def send(client, text, lo=0.5, hi=0.7):
    client.predict(text, api_name="/accept_message")
    return client.predict(lo, hi, api_name="/generate_replies")


@pytest.fixture()
def client(app_url):
    return Client(app_url, verbose=False)


def test_one_turn_through_both_columns(client):
    out = send(client, "From now on, answer in lowercase.")
    for chat in (out[CHAT0], out[CHAT1]):
        t = texts(chat)
        assert len(t) == 2 and t[0] == "From now on, answer in lowercase." and "prompt" in t[1]
    assert "REA: input of the latest reply" in out[PROMPT0] and "vanilla: input of the latest reply" in out[PROMPT1]
    assert "From now on, answer in lowercase." in out[IM0] and "recognizer" in out[IM0]
    assert out[ERR0] == ""


def test_rea_and_vanilla_replies_stream_through_gradio_client(client):
    client.predict("Name three colors of the rainbow.", api_name="/accept_message")
    job = client.submit(0.5, 0.7, api_name="/generate_replies")
    final = job.result(timeout=300)
    updates = job.outputs()[:-1]  # what the page saw before the replies ended
    for side in (CHAT0, CHAT1):
        shown = [texts(u[side])[-1] for u in updates if u[side] and len(u[side]) == 2]
        partial = [p for p in shown if "first token" not in p]  # a column that ended shows its stats at once
        assert partial and all(p.endswith("▌") for p in partial)  # a reply in progress, with a cursor
        reply = texts(final[side])[1]
        assert "first token" in reply and "total" in reply  # the stats line comes when the reply ends
        assert any(reply.startswith(p.rstrip("▌ ")) for p in partial)


def test_a_message_sent_while_the_columns_answer_is_refused_not_lost(client):
    """Gradio drops a second run of the reply event while the first is pending, so a message accepted
    then would be cleared from the box and never answered. Send refuses it while this browser session
    answers (streaming or drawing the views after), and takes it once the replies have ended."""
    client.predict("Tell me a long story about a dragon.", api_name="/accept_message")
    job = client.submit(0.5, 0.7, api_name="/generate_replies")
    deadline = time.monotonic() + 120
    while not job.outputs() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.outputs() and not job.done()  # the columns are answering now
    refused = client.predict("A second message.", api_name="/accept_message")
    assert any("Still answering" in str(part) for part in refused)
    first = job.result(timeout=300)
    assert [len(texts(first[side])) for side in (CHAT0, CHAT1)] == [2, 2]  # the first turn alone
    after = send(client, "A second message.")  # once the replies ended, Send takes it
    assert texts(after[CHAT0])[2] == "A second message." and len(texts(after[CHAT1])) == 4


@pytest.mark.slow  # a default-run sibling covers the same path; kept in the slow group
def test_parallel_clients_never_see_each_other(app_url):
    results, errors = {}, []

    def run(name, secret):
        try:
            c = Client(app_url, verbose=False)
            send(c, f"My secret word is {secret}.")
            results[name] = send(c, "What did I just tell you?")
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n, s)) for n, s in (("a", "PINEAPPLE"), ("b", "VOLCANO"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors and set(results) == {"a", "b"}
    for name, own, other in (("a", "PINEAPPLE", "VOLCANO"), ("b", "VOLCANO", "PINEAPPLE")):
        page = json.dumps(results[name])
        assert own in page and other not in page
        assert len(texts(results[name][CHAT0])) == 4


@pytest.mark.slow  # a default-run sibling covers the same path; kept in the slow group
def test_threshold_move_redecides_without_a_model_call(client):
    send(client, "I keep a fiddle-leaf fig and a snake plant on my balcony.")
    send(client, "How do I fold a fitted sheet?")  # the best-scored of these two is kept as a likely referent
    send(client, "Any tips for a rainy afternoon indoors?")  # the latest exchange is in the window
    out = send(client, "What year did the Berlin wall fall?")
    chat_before = texts(out[CHAT0])
    assert "rea-omitted" in out[PROMPT0]  # unrelated: omitted at the defaults
    views = client.predict(0.0, 0.0, api_name="/set_thresholds")  # the page orders the sliders before this
    assert texts(views[CHAT0]) == chat_before  # no new reply
    assert "re-decided at the thresholds 0.00 and 0.00" in views[PROMPT0] and "rea-omitted" not in views[PROMPT0]
    assert "recent · working memory · turn 2</span>" in views[PROMPT0]  # the window: the sliders never move it


def test_user_text_is_escaped_in_prompt_view(client):
    out = send(client, XSS)
    assert "<img src=x" not in out[PROMPT0] and "&lt;img src=x onerror=alert(1)&gt;" in out[PROMPT0]
    assert texts(out[CHAT0])[0] == "&lt;img src=x onerror=alert(1)&gt;"


def test_empty_and_oversize_messages_do_nothing(client):
    send(client, "Hello there.")
    for bad in ("   ", "x" * 40_000):
        client.predict(bad, api_name="/accept_message")
        out = client.predict(0.5, 0.7, api_name="/generate_replies")
        assert len(texts(out[CHAT0])) == 2 and len(texts(out[CHAT1])) == 2


def test_save_and_load_round_trip(client, app_url):
    send(client, "Remember that my dog is called Biscuit.")
    saved = client.predict(api_name="/save_conversation")
    path = saved["value"] if isinstance(saved, dict) else saved
    data = json.loads(open(path, encoding="utf-8").read())
    assert data["format"] == "rea-studio-compare" and [c["strategy"] for c in data["columns"]] == ["rea", "vanilla"]
    other = Client(app_url, verbose=False)
    out = other.predict(handle_file(path), 0.5, 0.7, api_name="/load_conversation")
    assert out[:2] == ("rea", "vanilla")
    assert "Biscuit" in json.dumps(out[2]) and "Biscuit" in json.dumps(out[3])


def test_load_rejects_a_damaged_file(client, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    send(client, "Hi.")
    out = client.predict(handle_file(str(bad)), 0.5, 0.7, api_name="/load_conversation")
    assert all(set(o) <= {"__type__", "props"} for o in out[1:-1])  # no component was replaced
    assert "Not loaded: broken.json: not valid JSON" in out[-1]  # said beside the message box
    views = client.predict(0.5, 0.7, api_name="/set_thresholds")
    assert texts(views[CHAT0])[0] == "Hi."  # the conversation is intact


def test_inspector_traces_and_stores_marks(client, tmp_path):
    status = client.predict("conversations.jsonl", api_name="/inspect_example")
    assert "2 conversation(s)" in json.dumps(status)
    traced = client.predict("h3-pronoun-needs-omitted-turn", 0.5, 0.7, api_name="/trace")
    assert "Traced 10 turns" in json.dumps(traced)
    shown = client.predict(9, 0.5, 0.7, api_name="/show_turn")
    decisions = [row[2] for row in shown[1]["data"]]
    assert decisions[0] == "omit"  # "water them" needed the houseplants of turn 0: the failure to mark
    omitted = 0
    out = client.predict(9, omitted, "needs the plants", 0.5, 0.7, api_name="/mark_needed")
    assert f"Marked: turn 9 needed omitted exchange {omitted}" in out[0]
    rows = out[1]["data"]
    assert any(
        r[2] == "h3-pronoun-needs-omitted-turn" and r[3] == 9 and r[4] == omitted and r[6] == "needs the plants"
        for r in rows
    )
    exported = client.predict(api_name="/export_marks")
    path = exported["value"] if isinstance(exported, dict) else exported
    lines = [
        json.loads(x) for x in open(path, encoding="utf-8")
    ]  # conversations with "needed": rea eval retrieval's input
    (case,) = [c for c in lines if c["id"] == "h3-pronoun-needs-omitted-turn"]
    assert case["turns"][9]["user"] == "How often should I water them?" and case["turns"][9]["needed"] == [omitted]
    rechecked = client.predict(0.5, 0.7, api_name="/recheck_marks")
    assert "of 1** marked queries" in rechecked and "hybrid scorer" in rechecked


def test_malformed_upload_names_the_line(client, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "turns": [{"user": "hi"}]}\n{"id": "b", "turns": 5}\n')
    out = client.predict(handle_file(str(bad)), api_name="/inspect_upload")
    assert "bad.jsonl:2" in json.dumps(out)


@pytest.mark.slow  # moved to keep the default run under 15 minutes; the H.1 example test plays it in the library
def test_h1_demo_loads_into_both_columns(client):
    out = client.predict(0.5, 0.7, api_name="/load_demo")
    for chat in (out[CHAT0], out[CHAT1]):
        assert len(texts(chat)) == 18  # 9 turns
    assert "begin each response with the letter r" in out[IM0]
    assert "instructional memory" in out[PROMPT0].lower() and "rea-instructions" in out[PROMPT0]


@pytest.mark.slow  # a default-run sibling covers the same path; kept in the slow group
def test_compare_columns_run_comedy_and_secom(client):
    """Columns set to the comparison strategies answer; the New-session action builds COMEDY's memory."""
    client.predict("comedy", 0.5, 0.7, api_name="/set_strategy_0")
    client.predict("secom", 0.5, 0.7, api_name="/set_strategy_1")
    send(client, "My name is Ana and I teach piano in Lisbon.")
    client.predict(0.5, 0.7, api_name="/new_session")
    out = send(client, "What do I teach?")
    for chat in (out[CHAT0], out[CHAT1]):
        t = texts(chat)
        assert len(t) == 4 and t[2] == "What do I teach?" and t[3].strip()
    assert "COMEDY: input of the latest reply" in out[PROMPT0] and "compressive memory" in out[PROMPT0]
    assert "User Description:" in out[PROMPT0] and "COMEDY:" in out[PROMPT0]
    assert (
        "SeCom: input of the latest reply" in out[PROMPT1]
        and "SeCom:" in out[PROMPT1]
        and "rea-memory" in out[PROMPT1]
    )
    assert out[ERR0] == "" and out[ERR0 + 1] == ""


def test_demoted_adjudicator_refused_through_gradio_client(models, tmp_path, monkeypatch):
    """Issue 14: the role comes from the current configuration on every call, not from the
    database row refreshed when the Annotate tab loads (gradio_client runs no load events)."""
    from annotations import store_items as si
    from annotations import store_review as sr
    from annotations.io import ImportRow
    from app.main import launch
    from app.state import AppEngine
    from tests.conftest import _free_port

    monkeypatch.setenv("REA_AUTH", "alice:pw-alice")
    monkeypatch.setenv("REA_ADJUDICATORS", "alice")
    engine = AppEngine(models=models, database_url=f"sqlite:///{tmp_path / 'auth.db'}")
    with engine.db() as db:
        si.import_rows(
            db,
            [ImportRow(text="From now on, answer in French.", labels=[("bob", "global"), ("carol", "task")])],
            source="t",
        )
    with engine.db() as db:
        si.ensure_annotator(db, "alice", "adjudicator")  # as her last Annotate page load stored it
        (item,) = [d.item_id for d in sr.disagreements(db)]
    port = _free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    try:
        client = Client(f"http://127.0.0.1:{port}/", auth=("alice", "pw-alice"), verbose=False)
        assert "adjudicated as global" in client.predict(item, "global", api_name="/review_adjudicate")[0]
        monkeypatch.setenv("REA_ADJUDICATORS", "")  # removed from the configuration, no reload anywhere
        assert "only adjudicators" in client.predict(item, "task", api_name="/review_adjudicate")[0]
        with engine.db() as db:
            assert [r["adjudicated"] for r in sr.export_rows(db)] == ["global"]
    finally:
        demo.close()


def test_upload_over_the_size_limit_is_refused_and_ui_endpoints_are_unlisted(client, tmp_path):
    """Issue 14: Gradio refuses a file over REA_MAX_UPLOAD_MB (10 MB) before a handler reads it, and
    endpoints that only drive the page are not on the API page."""
    big = tmp_path / "big.jsonl"
    line = json.dumps({"id": "a", "turns": [{"user": "hi " * 1000}]}) + "\n"
    big.write_text(line * (11 * 2**20 // len(line) + 1))
    with pytest.raises(Exception, match="(?i)size|large|413"):
        client.predict(handle_file(str(big)), api_name="/inspect_upload")
    listed = client.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert "/accept_message" in listed and "/review_adjudicate" in listed
    for hidden in ("/set_thresholds", "/show_turn", "/im_add_0", "/review_version", "/init"):
        assert hidden not in listed


def test_inspector_shows_the_times_of_an_uploaded_conversation(client, tmp_path):
    timed = tmp_path / "timed.jsonl"
    turns = [
        {"user": f"Message number {i} <b>bold</b>.", "assistant": f"Reply {i}.", "time": f"2023-05-0{i + 1}T13:56"}
        for i in range(3)
    ]
    timed.write_text(json.dumps({"id": "timed", "turns": turns}) + "\n", encoding="utf-8")
    assert "1 conversation(s)" in json.dumps(client.predict(handle_file(str(timed)), api_name="/inspect_upload"))
    assert "Traced 3 turns" in json.dumps(client.predict("timed", 0.0, 0.0, api_name="/trace"))
    shown = client.predict(2, 0.0, 0.0, api_name="/show_turn")
    assert [row[-1] for row in shown[1]["data"]] == ["Monday 1 May 2023 13:56", "Tuesday 2 May 2023 13:56"]
    assert '<span class="rea-time">[Monday 1 May 2023 13:56]</span> Message number 0 &lt;b&gt;' in shown[2]
