"""Inspect's retrieval-failure marks on the real app with sign-in (alice and bob annotate, carol
adjudicates): marks are listed, exported and re-checked per owner (an adjudicator sees all); a
re-check is background work (it waits while a chat runs, runs beside the chat queue, stops on Stop
and at its time budget, saying how many marks it covered); a note the database cannot keep is one
clear refusal with nothing stored."""

from __future__ import annotations

import json
import time

import httpx
from gradio_client import Client

from annotations import add_failure_mark
from annotations import store_items as si

TOPICS = "tomatoes basil roses tulips mint carrots lettuce garlic onions peppers beans peas".split()
LONE = "fine \ud800 note"  # a lone surrogate, as a crafted request sends it


def talk(n: int) -> list[dict]:
    """A conversation of ``n`` distinct exchanges, in the app's turn records."""
    return [
        {"user": f"Turn {i}: I planted {TOPICS[i % len(TOPICS)]} in bed {i}.", "assistant": f"Noted, bed {i}."}
        for i in range(n)
    ]


def seed(engine, annotator: str, marks: list[tuple[int, int]], turns: int = 20, conversation: str = "garden"):
    """Store (query turn, exchange turn) marks of ``annotator`` on one conversation, as the app stores them."""
    turns_ = talk(turns)
    with engine.db() as db:
        for query, exchange in marks:
            add_failure_mark(
                db,
                annotator=annotator,
                conversation_id=conversation,
                query_turn=query,
                exchange_turn=exchange,
                query_text=turns_[query]["user"],
                exchange_user=turns_[exchange]["user"],
                exchange_reply=turns_[exchange]["assistant"],
                score=0.1,
                tau_low=0.5,
                tau_high=0.7,
                source=f"{conversation}.jsonl",
                context=json.dumps(turns_[: query + 1]),
            )


def client(url: str, name: str) -> Client:
    return Client(url, auth=(name, f"pw-{name}"), verbose=False)


class RawSession:
    """A signed-in client's browser session (``session_hash``) called through the queue by
    hand, its JSON written with ``\\u`` escapes: a lone surrogate travels as a crafted request sends it
    (httpx and gradio_client cannot encode one). ``data`` lists every input, a State as None."""

    def __init__(self, url: str, name: str, session_hash: str):
        self.http = httpx.Client(base_url=url, timeout=120)
        self.http.post("login", data={"username": name, "password": f"pw-{name}"}).raise_for_status()
        self.fns = {d.get("api_name"): d["id"] for d in self.http.get("config").json()["dependencies"]}
        self.session_hash = session_hash

    def predict(self, api_name: str, *data) -> list:
        body = {"data": list(data), "fn_index": self.fns[api_name], "session_hash": self.session_hash}
        body |= {"event_data": None, "trigger_id": None}
        headers = {"content-type": "application/json"}
        join = self.http.post("gradio_api/queue/join", content=json.dumps(body), headers=headers)  # \\ud800 as is
        assert join.status_code == 200, join.text
        with self.http.stream("GET", f"gradio_api/queue/data?session_hash={self.session_hash}") as stream:
            for line in stream.iter_lines():
                message = json.loads(line[len("data: ") :]) if line.startswith("data: ") else {}
                if message.get("msg") == "process_completed":
                    assert message.get("success"), message  # a traceback would read as a bare "Error"
                    return message["output"]["data"]
        raise AssertionError(f"{api_name}: no result")


def exported_needed(c: Client) -> dict[str, list]:
    """The export's query turns and their needed exchanges, by case."""
    out = c.predict(api_name="/export_marks")
    path = out["value"] if isinstance(out, dict) else out
    cases = [json.loads(line) for line in open(path, encoding="utf-8")]
    return {case["id"]: [(i, t["needed"]) for i, t in enumerate(case["turns"]) if "needed" in t] for case in cases}


def test_marks_are_exported_and_rechecked_per_owner(signed_in_engine, signed_in_app):
    url, _ = signed_in_app
    seed(signed_in_engine, "alice", [(12, 0), (14, 3)])
    seed(signed_in_engine, "bob", [(15, 1)])
    alice, bob, carol = client(url, "alice"), client(url, "bob"), client(url, "carol")
    assert exported_needed(alice) == {"garden": [(12, [0]), (14, [3])]}  # bob's mark (and turn 15) not in it
    assert exported_needed(bob) == {"garden": [(15, [1])]}
    assert exported_needed(carol) == {"garden": [(12, [0]), (14, [3]), (15, [1])]}  # the adjudicator: all
    assert "of 2** marked queries" in alice.predict(0.5, 0.7, api_name="/recheck_marks")
    assert "of 1** marked queries" in bob.predict(0.5, 0.7, api_name="/recheck_marks")
    assert "of 3** marked queries" in carol.predict(0.5, 0.7, api_name="/recheck_marks")


def test_a_recheck_waits_for_chats_beside_their_queue_and_stops(signed_in_engine, signed_in_app):
    url, _ = signed_in_app
    engine = signed_in_engine
    engine.settings = engine.settings.with_section("runtime", max_new_tokens=4)
    seed(engine, "alice", [(30, 0), (35, 1)], turns=40)
    alice, bob = client(url, "alice"), client(url, "bob")
    chat = engine.gate.chat()
    chat.__enter__()  # a chat is running: the re-check must wait at the gate
    try:
        job = alice.submit(0.5, 0.7, api_name="/recheck_marks")
        time.sleep(3)
        assert not job.done()
        start = time.perf_counter()  # another chat is not queued behind the waiting re-check
        bob.predict("Which animal says moo?", api_name="/accept_message")
        bob.predict(0.5, 0.7, api_name="/generate_replies")
        assert time.perf_counter() - start < 20 and not job.done()
        assert "Stopping" in alice.predict(api_name="/stop_recheck")
    finally:
        chat.__exit__(None, None, None)
    stopped = job.result(timeout=30)
    assert "**Stopped:** you pressed Stop" in stopped and "covered **0 of 2** marks" in stopped

    engine.settings = engine.settings.with_section("limits", recheck_budget_s=1e-6)  # spent by the first step
    spent = alice.predict(0.5, 0.7, api_name="/recheck_marks")
    assert "REA_RECHECK_BUDGET_S" in spent and "covered **0 of 2** marks" in spent


def test_a_note_the_database_cannot_keep_is_refused_in_one_line(signed_in_engine, signed_in_app):
    from app.annotate_auth import Identity
    from app.tabs.annotate import handlers as ah

    url, _ = signed_in_app
    engine = signed_in_engine
    ah.sign_in(engine, Identity("alice", "annotator"))  # the page load's sign-in: seeds the items
    alice = client(url, "alice")
    crafted = RawSession(url, "alice", alice.session_hash)  # the same browser session, by hand
    alice.predict("default", api_name="/annotate_mode")  # an item on screen
    out = crafted.predict("annotate_global", None, LONE, "default")
    assert any("**Not saved:** the note holds a lone surrogate" in str(o) for o in out)
    with engine.db() as db:
        assert si.progress(db, "alice").mine == 0  # nothing stored
    out = alice.predict("fine note", "default", api_name="/annotate_global")
    assert any("Saved: item" in str(o) for o in out)

    seed(engine, "bob", [(9, 1)], turns=10)
    alice.predict("conversations.jsonl", api_name="/inspect_example")
    alice.predict("h3-pronoun-needs-omitted-turn", 0.5, 0.7, api_name="/trace")
    refused = crafted.predict("mark_needed", 9, 0, LONE, None, 0.5, 0.7)
    assert "**Not saved:** the note holds a lone surrogate" in str(refused[0])
    assert exported_needed(alice) == {}  # nothing stored
    marked = alice.predict(9, 0, "needs the plants", 0.5, 0.7, api_name="/mark_needed")
    assert [row[1] for row in marked[1]["data"]] == ["alice"]  # her own marks listed, not bob's

    carol = client(url, "carol")
    carol.predict("conversations.jsonl", api_name="/inspect_example")
    carol.predict("h3-pronoun-needs-omitted-turn", 0.5, 0.7, api_name="/trace")
    listed = carol.predict(9, 0, "", 0.5, 0.7, api_name="/mark_needed")[1]["data"]
    assert sorted(row[1] for row in listed) == ["alice", "bob", "carol"]  # the adjudicator lists all
