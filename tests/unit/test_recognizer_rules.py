import pytest

from rea_core.recognizer import GLOBAL, OTHER, REVOKE, InstructionRecognizer, rule_stage
from rea_core.recognizer.rules import standing_prohibition


@pytest.mark.parametrize(
    "text",
    [
        "From now on, answer in lowercase.",
        "from now on be concise",
        "For the rest of this conversation, respond in JSON.",
        "Going forward, please use metric units.",
        "In all of your future responses, avoid the word 'very'.",
        "From here on, begin each response with the letter r and stay under 200 words.",
        "Until I say otherwise, you must reply in French.",
        "Call me Captain.",  # naming the user is standing by nature
    ],
)
def test_persistence_marker_with_directive_is_global_by_rules(text):
    label, cues = rule_stage(text)
    assert label == GLOBAL and cues


@pytest.mark.parametrize(
    "text",
    [
        "Always answer in French.",
        "Never use the letter z.",
        "Please keep your answers under 50 words.",
        "Write a poem about the sea in lowercase.",
        "From now on I will be working at a bakery.",  # a marker but no directive: the classifier decides
    ],
)
def test_weak_cues_go_to_the_classifier(text):
    label, cues = rule_stage(text)
    assert label is None and cues


@pytest.mark.parametrize(
    "text",
    [
        "What is the capital of France?",
        "Can you explain how photosynthesis works?",
        "Thanks, that was helpful!",
        "Summarize the plot of Hamlet.",
        "How often should I water them?",
    ],
)
def test_inputs_without_cues_are_ordinary_by_rules(text):
    assert rule_stage(text) == (OTHER, ())


@pytest.mark.parametrize(
    "text",
    [
        "You can stop answering in lowercase now.",
        "Please ignore my earlier instructions.",
        "You no longer need to use JSON.",
    ],
)
def test_revocations(text):
    assert rule_stage(text)[0] == REVOKE


def test_without_classifier_weak_cues_are_not_global():
    rec = InstructionRecognizer(None)
    r = rec.recognize("Always answer in French.")
    assert (r.label, r.stage) == ("other", "rules") and r.cues
    r = rec.recognize("From now on, answer in French.")
    assert (r.label, r.stage, r.score) == ("global", "rules", 1.0)


@pytest.mark.parametrize(
    "text",
    [
        "Could you please stop adding a summary paragraph at the end of everything? I read the whole thing already.",
        "I'd like you to stop ending every answer with a question asking if I need anything else.",
        "pls stop using emojis in ur replies, its distracting",
    ],
)
def test_stop_asked_of_the_assistant_about_its_habit_is_standing_not_a_revocation(text):
    label, cues = rule_stage(text)
    assert label == GLOBAL, cues
    assert standing_prohibition(text)  # not read as lifting an earlier wish
    assert rule_stage("You can stop adding a summary paragraph now.")[0] == REVOKE
