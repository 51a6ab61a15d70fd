import pytest

from rea_core.memory.instructional import InstructionalMemory
from rea_core.types import InstructionEntry


def entry(text, turn=0):
    return InstructionEntry(text=text, turn=turn)


def test_ordered_and_deduplicated_case_and_space_insensitively():
    im = InstructionalMemory()
    assert im.add(entry("Answer in lowercase.", 0))
    assert im.add(entry("Stay under 200 words.", 3))
    assert not im.add(entry("  answer IN   lowercase. ", 5))
    assert im.texts() == ["Answer in lowercase.", "Stay under 200 words."]


def test_capacity_drops_the_oldest():
    im = InstructionalMemory(capacity=2)
    for i, t in enumerate(["a rule", "b rule", "c rule"]):
        im.add(entry(t, i))
    assert im.texts() == ["b rule", "c rule"]


def test_remove_and_errors():
    im = InstructionalMemory(entries=[entry("x"), entry("y")])
    assert im.remove(0).text == "x"
    with pytest.raises(IndexError, match="holds 1"):
        im.remove(4)
    with pytest.raises(ValueError):
        im.add(entry("   "))


def test_revoke_picks_the_matching_entry_or_all():
    im = InstructionalMemory(entries=[entry("Answer in lowercase."), entry("End every reply with a question.")])
    removed = im.revoke("You can stop answering in lowercase now.")
    assert [e.text for e in removed] == ["Answer in lowercase."]
    assert im.texts() == ["End every reply with a question."]
    assert im.revoke("You can stop talking about football.") == []
    im.revoke("Please ignore all my previous instructions.")
    assert len(im) == 0


def test_round_trip():
    im = InstructionalMemory(capacity=3, entries=[InstructionEntry("Be brief.", 2, "recognizer", "classifier", 0.81)])
    again = InstructionalMemory.from_dict(im.to_dict())
    assert again.entries == im.entries and again.capacity == 3


def test_referent_by_shared_words_or_the_latest_when_none_is_named():
    from rea_core.memory.instructional import referent

    texts = [
        "From now on, answer in lowercase.",
        "Always reply like a pirate would.",
        "Use metric units in every answer.",
    ]
    assert referent("forget what I said about lowercase", texts) == 0
    assert referent("Stop talking like a pirate.", texts) == 1
    assert referent("You can stop doing that.", texts) == 2  # no words of its own: the latest
    assert referent("You can stop doing that.", texts, latest_if_none=False) is None
    assert referent("forget what I said about the weather", texts) is None  # no shared word, no similarity given
    assert referent("stop that", []) is None
