import json

import pytest

from rea_core import load_conversations
from rea_core.errors import DataFormatError


def write(tmp_path, lines):
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_valid_file(tmp_path):
    path = write(
        tmp_path, [json.dumps({"id": "a", "turns": [{"user": "hi", "assistant": "hello"}, {"user": "bye"}]}), ""]
    )
    (conv,) = load_conversations(path)
    assert conv.id == "a" and conv.turns[0].assistant == "hello" and conv.turns[1].assistant is None


@pytest.mark.parametrize(
    "bad, message",
    [
        ('{"id": "b", "turns": [', "not valid JSON"),
        ('{"turns": [{"user": "x"}]}', 'missing or empty string field "id"'),
        ('{"id": "b", "turns": []}', '"turns" must be a non-empty list'),
        ('{"id": "b", "turns": [{"user": "  "}]}', 'turn 0 needs a non-empty string "user"'),
        ('{"id": "b", "turns": [{"user": "x", "assistant": 3}]}', '"assistant" must be a string'),
        ('{"id": "a", "turns": [{"user": "x"}]}', "duplicate conversation id"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_errors_name_file_and_line(tmp_path, bad, message):
    path = write(tmp_path, [json.dumps({"id": "a", "turns": [{"user": "ok"}]}), bad])
    with pytest.raises(DataFormatError, match=f"c.jsonl:2: .*{message.replace('[', '.').replace(']', '.')}"):
        load_conversations(path)


def test_oversize_user_text(tmp_path):
    path = write(tmp_path, [json.dumps({"id": "a", "turns": [{"user": "x" * 50}]})])
    with pytest.raises(DataFormatError, match="over the limit of 10"):
        load_conversations(path, max_chars=10)


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(DataFormatError, match="no conversations"):
        load_conversations(write(tmp_path, [""]))
    with pytest.raises(DataFormatError, match="Cannot read"):
        load_conversations(tmp_path / "nope.jsonl")


def test_a_saved_chat_reads_as_conversations(tmp_path):
    """Compare's Save (and ``rea chat``'s /save) can be traced: each column with turns is one conversation."""
    from rea_core.session import SAVE_FORMAT, ChatSession, saved_conversations

    talked, empty = ChatSession(strategy="rea"), ChatSession(strategy="vanilla")
    talked.episodes.append("My dog is called Biscuit.", "Nice name!")
    talked.episodes.append("What is my dog called?", "Biscuit.")
    path = tmp_path / "rea-conversation-x.json"
    path.write_text(json.dumps({"format": SAVE_FORMAT, "version": 1, "columns": [talked.to_dict(), empty.to_dict()]}))
    (conv,) = saved_conversations(path)
    assert conv.id == "column 1: rea"
    assert [(t.user, t.assistant) for t in conv.turns] == [
        ("My dog is called Biscuit.", "Nice name!"),
        ("What is my dog called?", "Biscuit."),
    ]
    with pytest.raises(DataFormatError, match="over the limit of 1 per conversation"):
        saved_conversations(path, max_turns=1)
    path.write_text(json.dumps({"format": SAVE_FORMAT, "version": 1, "columns": [empty.to_dict()]}))
    with pytest.raises(DataFormatError, match="no turns to trace"):
        saved_conversations(path)
    path.write_text("{not json")
    with pytest.raises(DataFormatError) as refused:
        saved_conversations(path)
    assert str(tmp_path) not in str(refused.value) and path.name in str(refused.value)  # no server folder
