"""A generated answer without the speaker name the model copied from LoCoMo's "Name: text" turns
(``rea_core.evals.qa``: the short answer Inspect shows and scores)."""

import pytest

from rea_core.evals.cases import RetrievalCase, RetrievalQuery
from rea_core.evals.qa.answer import shown_answer
from rea_core.evals.qa.metrics import answer_scores, speaker_names, without_speaker


@pytest.mark.parametrize(
    "generated, shown",
    [
        ("Jo: at 3:30", "at 3:30"),
        ("Mel : Lisbon", "Lisbon"),
        ("jo: Mel: Lisbon", "Lisbon"),  # any case, and one copied after another
        ("Note: 3:30", "Note: 3:30"),  # no speaker of this conversation
        ("Lisbon at 3:30", "Lisbon at 3:30"),
        ("Jo:", "Jo:"),  # nothing would be left
        ("Joanne: hi", "Joanne: hi"),  # a longer name that begins like a speaker's
        ("Lisbon, Jo: yes", "Lisbon, Jo: yes"),  # leading only
    ],
)
def test_a_leading_speaker_name_is_taken_off_only_where_it_is_a_speaker(generated, shown):
    assert without_speaker(generated, {"Jo", "Mel"}) == shown


def test_speakers_are_the_names_the_turns_begin_with_and_none_means_nothing_is_taken_off():
    texts = ["Mel: I moved to Lisbon.", "Jo Ann: Nice!", "Note 3:30 pm", "", "12: not a name", "A" * 40 + ": long"]
    assert speaker_names(texts) == {"Mel", "Jo Ann"}
    assert without_speaker("Mel: Lisbon", ()) == "Mel: Lisbon"


def test_the_short_answer_of_a_reply_is_its_first_line_without_a_speaker_of_the_case_and_scores_as_such():
    case = RetrievalCase(
        id="ines-kofi",
        exchanges=(("Kofi: I adopted a greyhound, Biscuit.", "Ines: Lovely name!"),),
        queries=(RetrievalQuery(position=1, text="What is Kofi's dog called?", needed=(0,), answer="Biscuit"),),
    )
    said = shown_answer("\n  Kofi: Biscuit\nIt is a greyhound.", case)
    assert said == "Biscuit"
    assert answer_scores(said, "Biscuit") == {"f1": 1.0, "em": 1.0}
    assert answer_scores("Kofi: Biscuit", "Biscuit")["f1"] < 1.0  # what a copied name cost before
    assert shown_answer("Marta: Porto", case) == "Marta: Porto"  # not a speaker of this conversation
