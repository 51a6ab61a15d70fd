"""Inspect's Answers panel through gradio_client on the packaged models: a LoCoMo file loads and lists
its questions, a question is answered with the gold answer escaped, and an omitted evidence exchange
of it is marked so that the marks export carries "needed"."""

import json

import pytest
from gradio_client import Client, handle_file

from rea_core import Thresholds

# answer_question outputs (gr.State skipped): note, answer view, evidence table, prompt view, omitted evidence
NOTE, VIEW, EVIDENCE, PROMPT, OMITTED = range(5)


def locomo_file(tmp_path):
    """A small LoCoMo-format conversation: two dated sessions, questions with evidence (one with markup)."""
    data = {
        "sample_id": "mel",
        "speaker_a": "Mel",
        "speaker_b": "Jo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Mel", "dia_id": "D1:1", "text": "I just moved to a new flat in Lisbon."},
            {"speaker": "Jo", "dia_id": "D1:2", "text": "Congratulations! How do you like Lisbon?"},
            {"speaker": "Mel", "dia_id": "D1:3", "text": "I adopted a kitten last week. My cat is named Zorblax."},
            {"speaker": "Jo", "dia_id": "D1:4", "text": "Zorblax is a wonderful name!"},
        ],
        "session_2_date_time": "9:10 am on 9 May, 2023",
        "session_2": [
            {"speaker": "Mel", "dia_id": "D2:1", "text": "I also started learning the cello."},
            {"speaker": "Jo", "dia_id": "D2:2", "text": "The cello is beautiful. Enjoy your lessons!"},
            {"speaker": "Mel", "dia_id": "D2:3", "text": "Any tips for practising every day?"},
            {"speaker": "Jo", "dia_id": "D2:4", "text": "Short daily sessions work better than long ones."},
        ],
        "qa": [
            {
                "question": "What is Mel's <b>cat</b> called?",
                "answer": "Zorblax <b>",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {
                "question": "In which city does Zorblax live?",
                "answer": "Lisbon",
                "evidence": ["D1:1", "D1:3"],
                "category": 1,
            },
            {"question": "Is this adversarial?", "answer": "no", "evidence": ["D1:1"], "category": 5},
        ],
    }
    path = tmp_path / "locomo-mel.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture()
def client(app_url):
    return Client(app_url, verbose=False)


def test_a_locomo_file_loads_and_lists_its_questions(client, tmp_path):
    out = json.dumps(client.predict(handle_file(str(locomo_file(tmp_path))), api_name="/inspect_upload"))
    assert "1 conversation(s) in locomo-mel.json" in out and "2 question(s) with a gold answer" in out
    labels = [c[0] for c in json.loads(out)[6]["choices"]]  # the question picker: plain text in a dropdown
    assert labels == [
        "1. single-hop \u00b7 What is Mel's <b>cat</b> called?",  # numbered from 1 for people
        "2. multi-hop \u00b7 In which city does Zorblax live?",
    ]
    assert "Traced 4 turns" in json.dumps(client.predict("mel", 0.5, 0.7, api_name="/trace"))  # exchanges trace


def test_answering_shows_the_gold_answer_escaped(client, tmp_path):
    client.predict(handle_file(str(locomo_file(tmp_path))), api_name="/inspect_upload")
    out = client.predict("mel", 0, 0.0, 0.0, api_name="/answer_question")
    view = out[VIEW]
    assert "Zorblax &lt;b&gt;" in view and "Mel&#x27;s &lt;b&gt;cat&lt;/b&gt; called?" in view
    assert "<b>cat</b>" not in view and "Zorblax <b>" not in view
    assert "gold answer NLL" in view and "evidence alone (oracle)" in view and "n/a (" not in view
    (row,) = out[EVIDENCE]["data"]
    assert row[0] == 1 and row[1] == "Monday 8 May 2023 13:56" and "Zorblax" in row[5] and row[3] != "omit"
    assert "&lt;b&gt;cat&lt;/b&gt;" in out[PROMPT] and "<b>cat</b>" not in out[PROMPT]


def test_an_omitted_evidence_exchange_of_a_question_is_marked_and_exported(client, tmp_path):
    client.predict(handle_file(str(locomo_file(tmp_path))), api_name="/inspect_upload")
    out = client.predict("mel", 1, 0.99, 0.99, api_name="/answer_question")  # high thresholds: evidence dropped
    omitted = [c[1] for c in out[OMITTED]["choices"]]
    assert omitted, out[EVIDENCE]
    marked = client.predict(omitted[0], "the city", api_name="/mark_question_needed")
    assert f"needed omitted evidence exchange {omitted[0]} of mel q1" in marked[0]
    assert any(r[2] == "mel q1" and r[3] == 4 and r[4] == omitted[0] for r in marked[1]["data"])
    with pytest.raises(Exception, match="not in the list of choices"):  # exchange 3 is no evidence of it
        client.predict(3, "", api_name="/mark_question_needed")
    exported = client.predict(api_name="/export_marks")
    path = exported["value"] if isinstance(exported, dict) else exported
    (case,) = [c for c in map(json.loads, open(path, encoding="utf-8")) if c["id"] == "mel q1"]
    assert len(case["turns"]) == 5 and case["turns"][4]["user"] == "In which city does Zorblax live?"
    assert case["turns"][4]["needed"] == [omitted[0]] and case["turns"][0]["time"] == "2023-05-08T13:56"


@pytest.fixture()
def engine(models, tmp_path):
    from app.state import AppEngine
    from rea_core import REAConfig, Settings

    # the latest exchange alone in the window and no likely referent: high thresholds omit the rest
    settings = Settings(rea=REAConfig(recent_raw=1, recent_compressed=0, referent_top_k=0))
    return AppEngine(models=models, settings=settings, database_url=f"sqlite:///{tmp_path / 'marks.db'}")


def test_jsonl_answer_turns_are_questions_and_their_marks_keep_the_turn(engine, tmp_path):
    """A JSONL question is a turn of its conversation: its marks go under the conversation's own id at
    that turn, the context ends with the question (its time kept)."""
    from app.tabs.inspect import handlers as ih

    turns = [
        {"user": "I just moved to a new flat in Lisbon.", "assistant": "Nice!", "time": "2023-05-08T13:56"},
        {"user": "My cat is named Zorblax.", "assistant": "Great name!", "time": "2023-05-08T14:00"},
        {"user": "Which city do I live in?", "answer": "Lisbon", "needed": [0], "time": "2023-05-09T09:00"},
    ]
    path = tmp_path / "asked.jsonl"
    path.write_text(json.dumps({"id": "asked", "turns": turns}) + "\n", encoding="utf-8")
    loaded = ih.read_file(engine, path)
    assert [c.id for c in loaded.conversations] == ["asked"] and len(loaded.conversations[0].turns) == 3
    assert ih.question_choices(loaded, "asked") == [("1. turn 2 · Which city do I live in?", 0)]  # 1 for people
    answer = ih.answer_question(engine, loaded, "asked", 0, Thresholds(0.99, 0.99), {})
    assert answer.answer == "Lisbon" and answer.omitted_evidence() == [0]
    ih.mark_question_needed(engine, loaded, answer, 0, "", annotator="tester")
    with engine.db() as db:
        marks = ih._store()
        (case,) = marks.marks_as_conversations(marks.list_failure_marks(db))
    assert case["id"] == "asked" and case["turns"][2] == {
        "user": "Which city do I live in?",
        "time": "2023-05-09T09:00",
        "needed": [0],
    }
    with pytest.raises(ih.MarkError, match="not an omitted evidence exchange"):
        ih.mark_question_needed(engine, loaded, answer, 1, "", annotator="tester")
    with pytest.raises(ih.MarkError, match="sign in"):
        ih.mark_question_needed(engine, loaded, answer, 0, "", annotator=None)
    with pytest.raises(ih.AnswerError, match="no question 6; this conversation has questions 1 to 1"):  # from 1
        ih.answer_question(engine, loaded, "asked", 5, Thresholds(0.5, 0.7), {})


def test_a_broken_locomo_file_is_one_message_without_folders(engine, tmp_path):
    from app.tabs.inspect import handlers as ih
    from rea_core.errors import DataFormatError

    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({"qa": [], "session_1": [{"speaker": "A", "text": "no dia_id"}]}), encoding="utf-8")
    with pytest.raises(DataFormatError) as caught:
        ih.read_file(engine, bad)
    message = ih.without_folders(str(caught.value), bad)
    assert message.startswith("broken.json: LoCoMo conversation 0: ") and str(tmp_path) not in message


def test_answering_a_long_conversation_stops_at_its_time_budget_and_goes_on_when_asked_again(
    signed_in_engine, signed_in_app, tmp_path
):
    """ "Answer with REA" embeds the history in short steps under REA_ANSWER_BUDGET_S: spent, it says how far
    it got and keeps that, so asking again goes on from there, and a budget that suffices answers."""
    url, _ = signed_in_app
    engine = signed_in_engine
    turns = []
    for i in range(20):
        turns.append({"speaker": "Mel", "dia_id": f"D1:{2 * i + 1}", "text": f"Bed {i} has {i + 3} tomato plants."})
        turns.append({"speaker": "Jo", "dia_id": f"D1:{2 * i + 2}", "text": f"Noted: bed {i}."})
    data = {
        "sample_id": "beds",
        "speaker_a": "Mel",
        "speaker_b": "Jo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": turns,
        "qa": [{"question": "How many plants are in bed 7?", "answer": "10", "evidence": ["D1:15"], "category": 1}],
    }
    path = tmp_path / "locomo-beds.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    alice = Client(url, auth=("alice", "pw-alice"), verbose=False)
    alice.predict(handle_file(str(path)), api_name="/inspect_upload")
    engine.settings = engine.settings.with_section("limits", answer_budget_s=1e-6)  # spent by the first step
    first = alice.predict("beds", 0, 0.5, 0.7, api_name="/answer_question")[NOTE]
    assert "time budget of 1e-06 s (REA_ANSWER_BUDGET_S) ran out after embedding 8 of the 20 exchanges" in first
    second = alice.predict("beds", 0, 0.5, 0.7, api_name="/answer_question")[NOTE]
    assert "after embedding 16 of the 20 exchanges" in second  # went on from the first ask's 8
    engine.settings = engine.settings.with_section("limits", answer_budget_s=60.0)
    out = alice.predict("beds", 0, 0.5, 0.7, api_name="/answer_question")
    assert "Answered question 1 of beds" in out[NOTE]
    assert "Gold answer:</b> 10" in out[VIEW] and "Time budget" not in out[VIEW]
