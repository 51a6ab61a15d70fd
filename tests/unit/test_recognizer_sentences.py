"""Sentence-level recognition, addressee frames and other languages (issue 26), model-free.

What IM stores is checked through REA as shipped (``rea``: the packaged models, the shipped
recognizer); the rule stage's own verdicts through ``InstructionRecognizer(None)`` (stage 1 alone,
no model).
"""

import pytest

from app.views.memory import im_table
from rea_core import build_strategy
from rea_core.recognizer import GLOBAL, InstructionRecognizer, rule_stage
from rea_core.recognizer.addressee import content_frame
from rea_core.recognizer.multilingual import multilingual_rule
from rea_core.recognizer.sentences import split_message

MIXED = "How many cups are in a liter? And from now on, answer with metric measurements first."
INSTRUCTION = "And from now on, answer with metric measurements first."


@pytest.fixture
def rea(models):
    """REA as shipped: the packaged embedder (revocation's similarity) and the shipped recognizer."""
    return build_strategy("rea", models)


def test_splitter_keeps_the_instruction_sentence_whole_in_each_language():
    assert split_message(MIXED) == ["How many cups are in a liter?", INSTRUCTION]
    assert (
        split_message("Désormais, cite tes sources. Qui a inventé l'imprimerie ?")[0] == "Désormais, cite tes sources."
    )
    assert split_message("O Sr. Silva chegou. A partir de agora, responda curto.")[0] == "O Sr. Silva chegou."
    assert split_message("Just one sentence, no split") == ["Just one sentence, no split"]


def test_a_mixed_message_stores_only_its_instruction_sentence(rea):
    session = rea.new_session()
    verdict = rea.update_instructions(session, MIXED)
    assert verdict.label == GLOBAL and verdict.sentences == (INSTRUCTION,)
    assert session.instructions.texts() == [INSTRUCTION]
    assert InstructionRecognizer(None).recognize(MIXED).instruction(MIXED) == INSTRUCTION


@pytest.mark.parametrize(
    "text",
    [
        "Draft a house rule for my roommates: from now on, dishes must be washed the same day.",
        "Write a short story in which a lighthouse keeper decides that from now on he will answer only in riddles.",
        'Translate into German: "From now on, always reply to customers within a day."',
        "Write a company policy saying employees should always use the VPN when working remotely.",
        "Traduis en anglais : « À partir de maintenant, tous les employés doivent badger à l'entrée. »",
        "Formuliere eine Hausordnung für unsere WG: Ab jetzt wird der Müll abwechselnd rausgebracht.",
    ],
)
def test_a_quoted_or_to_be_written_instruction_is_not_stored(rea, text):
    label, cues = rule_stage(text)
    assert label != GLOBAL and any(c.startswith("frame:") for c in cues), cues
    session = rea.new_session()
    rea.update_instructions(session, text)
    assert session.instructions.texts() == []


def test_the_same_words_addressed_to_the_assistant_are_stored():
    assert content_frame("From now on, answer in French.") is None
    assert content_frame("Write all your answers in lowercase from now on.") is None
    assert rule_stage("From now on, answer in French.")[0] == GLOBAL


@pytest.mark.parametrize(
    "text",
    [
        "À partir de maintenant, réponds-moi toujours en français.",
        "Ab jetzt antworte bitte immer auf Deutsch.",
        "De ahora en adelante, respuestas cortas: tres frases como máximo.",
        "D'ora in poi rispondimi sempre in italiano.",
        "Comece cada resposta com um resumo de uma linha.",
    ],
)
def test_instructions_in_five_other_languages_are_global(text):
    assert multilingual_rule(text)[0] == GLOBAL
    assert InstructionRecognizer(None).recognize(text).label == GLOBAL


def test_a_french_instruction_is_stored_and_a_resolution_or_one_off_is_not(rea):
    session = rea.new_session()
    rea.update_instructions(session, "Désormais, fais des réponses courtes, trois phrases maximum.")
    assert session.instructions.texts() == ["Désormais, fais des réponses courtes, trois phrases maximum."]
    assert multilingual_rule("À partir de maintenant j'essaie de courir trois fois par semaine.")[0] is None
    assert multilingual_rule("Pour cette réponse seulement, réponds en anglais.")[0] is None


def test_a_standing_fact_is_global_and_a_question_about_it_is_not():
    recognizer = InstructionRecognizer(None)
    assert recognizer.recognize(
        "I'm severely allergic to peanuts, so keep that in mind for any food you suggest."
    ).is_global
    assert not recognizer.recognize("I had an allergy test yesterday, how long do the results take?").is_global


def test_a_stored_sentence_is_revoked_by_a_later_message(rea):
    session = rea.new_session()
    rea.update_instructions(session, MIXED)
    assert session.instructions.texts() == [INSTRUCTION]
    verdict = rea.update_instructions(session, "You can stop answering with metric measurements first.")
    assert verdict.label == "revoke" and session.instructions.texts() == []


def test_the_im_panel_shows_the_stored_sentence_and_its_turn(rea):
    session = rea.new_session()
    rea.update_instructions(session, "Hi there.")
    rea.update_instructions(session, MIXED)
    html = im_table(session.instructions, enabled=True)
    entry = session.instructions.entries[0]
    assert INSTRUCTION in html and "How many cups" not in html
    assert f"<td>{entry.turn}</td></tr>" in html
