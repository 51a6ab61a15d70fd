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
    verdict = InstructionRecognizer(None).recognize(text)
    assert verdict.label != GLOBAL and any(c.startswith("frame:") for c in verdict.cues), verdict
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
    label, cues = rule_stage(text)
    assert label is None and cues[0].startswith("lang:")  # the English rules leave it to stage 2
    verdict = InstructionRecognizer(None).recognize(text)
    assert verdict.label == GLOBAL and verdict.stage == "multilingual", verdict


def test_a_french_instruction_is_stored_and_a_resolution_or_one_off_is_not(rea):
    session = rea.new_session()
    rea.update_instructions(session, "Désormais, fais des réponses courtes, trois phrases maximum.")
    assert session.instructions.texts() == ["Désormais, fais des réponses courtes, trois phrases maximum."]
    recognizer = InstructionRecognizer(None)
    assert not recognizer.recognize("À partir de maintenant j'essaie de courir trois fois par semaine.").is_global
    assert not recognizer.recognize("Pour cette réponse seulement, réponds en anglais.").is_global


def test_a_fact_in_another_language_is_stored_and_a_world_question_is_not():
    recognizer = InstructionRecognizer(None)
    assert recognizer.recognize("Ich habe eine Laktoseintoleranz, bitte denk bei Rezepten immer daran.").is_global
    assert not recognizer.recognize("¿Crees que el euro va a seguir subiendo de aquí en adelante?").is_global


def test_short_english_is_not_read_as_another_language():
    """langdetect calls "Call me Sam." Italian; without an Italian word class it stays with the English rules."""
    assert not rule_stage("Call me Sam.")[1][0].startswith("lang:")
    assert InstructionRecognizer(None).recognize("Call me Sam from now on.").is_global


def test_stop_doing_a_habit_of_the_replies_is_a_standing_prohibition_not_a_revocation():
    text = "Stop adding a summary paragraph at the end of your replies, I never read it."
    assert rule_stage(text)[0] == GLOBAL
    assert rule_stage("You can stop answering in French.")[0] == "revoke"
    assert rule_stage("Stop answering in French.")[0] == "revoke"  # no habit named: it lifts the earlier wish


def test_a_prohibition_lifts_the_instruction_it_contradicts_and_is_stored_when_there_is_none(rea):
    session = rea.new_session()
    rea.update_instructions(session, "Start your replies with r.")
    verdict = rea.update_instructions(session, "Stop starting your replies with r.")
    assert verdict.label == "revoke" and session.instructions.texts() == []
    rea.update_instructions(session, "Answer in lowercase.")
    text = "Stop adding a summary paragraph at the end of your replies."
    rea.update_instructions(session, text)
    assert session.instructions.texts() == ["Answer in lowercase.", text]


def test_always_with_the_replies_as_scope_is_standing_and_one_reply_constraint_is_not():
    assert rule_stage("Please always include an example in your explanations.")[0] == GLOBAL
    assert rule_stage("Never recommend Amazon links to me.")[0] == GLOBAL
    assert rule_stage("In your response, each sentence must end with a question mark.")[0] != GLOBAL


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


def test_a_sentence_is_read_in_its_own_language_and_word_classes_settle_spanish_or_portuguese():
    text = "Rispondi sempre in italiano anche se scrivo in inglese. What's the capital of Australia?"
    verdict = InstructionRecognizer(None).recognize(text)
    assert verdict.is_global and verdict.instruction(text) == "Rispondi sempre in italiano anche se scrivo in inglese."
    assert rule_stage("No vuelvas a usar emojis cuando me respondas.")[1] == ("lang:es",)  # langdetect says pt


@pytest.mark.parametrize(
    "text",
    [
        "I'm building a support bot. Write its system prompt: always answer politely and never promise refunds.",
        "How would I say 'from now on, please only speak French with me' in German?",
        "My boss always answers emails in all caps and it stresses me out.",
    ],
)
def test_rules_for_a_bot_a_phrase_to_translate_or_someone_elses_habit_are_not_stored(text):
    assert not InstructionRecognizer(None).recognize(text).is_global


def test_naming_the_user_and_a_complaint_about_the_replies_are_standing():
    assert rule_stage("I'd like you to call me Dani in your replies.")[0] == GLOBAL
    assert rule_stage("Your answers are way too chatty. Tighten them up.")[0] == GLOBAL
    assert rule_stage("Honestly your answers are a bit long, but that's fine.")[0] != GLOBAL


def test_an_instruction_sentence_in_another_language_is_judged_on_the_sentence_threshold():
    text = (
        "Necesito un itinerario de tres días por Lisboa. "
        "Por cierto, en todos los planes de viaje que me hagas incluye opciones baratas."
    )
    verdict = InstructionRecognizer(None).recognize(text)
    assert verdict.is_global and verdict.stage == "multilingual"
    assert verdict.sentences == ("Por cierto, en todos los planes de viaje que me hagas incluye opciones baratas.",)
