"""Output rules: which standing instructions decoding keeps by itself, read from IM's text, and the token
keeper that rewrites a breaking choice. Pure functions and real torch tensors; the model test is in
tests/model/test_output_rules_model.py."""

from __future__ import annotations

import pytest
import torch

from rea_core.backends.decoding import Decoding, RuleKeeper, breaks_rule, keep_rules, next_token
from rea_core.memory.output_rules import (
    BULLETS,
    LOWERCASE,
    NO_COMMA,
    UPPERCASE,
    bullet_count,
    output_rules,
    rules_note,
    rules_of,
)


@pytest.mark.parametrize(
    "text, kinds",
    [
        ("From now on, answer only in lowercase letters.", (LOWERCASE,)),
        ("For the rest of our conversation, write everything in lowercase, no capital letters at all.", (LOWERCASE,)),
        ("please never use capital letters when you reply to me", (LOWERCASE,)),
        ("Write in lower-case from here on.", (LOWERCASE,)),
        ("From now on, answer in all capital letters.", (UPPERCASE,)),
        ("Going forward, please write all your replies in uppercase.", (UPPERCASE,)),
        ("Reply in ALL CAPS until I say otherwise.", (UPPERCASE,)),
        ("From now on, do not use any commas in your replies.", (NO_COMMA,)),
        ("For the rest of this chat, never use a comma in your answers.", (NO_COMMA,)),
        ("Lowercase only, and avoid commas.", (LOWERCASE, NO_COMMA)),
        ("Réponds toujours en minuscules.", (LOWERCASE,)),
        ("Antworte ab jetzt nur in Großbuchstaben.", (UPPERCASE,)),
    ],
)
def test_an_instruction_asks_for_the_rules_it_names(text, kinds):
    assert rules_of(text) == kinds


@pytest.mark.parametrize(
    "text",
    [
        "You can stop writing in lowercase now.",
        "You can stop writing in capital letters now.",
        "No longer avoid commas.",
        "Capitalize the first word of every reply.",
        "From now on, answer in French.",
        "Use commas generously.",
        "Answer in lowercase or uppercase, whichever you like.",
        "Don't answer in French, keep it short.",
    ],
)
def test_a_lifted_mixed_or_unrelated_instruction_asks_for_no_rule(text):
    assert rules_of(text) == ()


@pytest.mark.parametrize(
    "text, count",
    [
        ("From now on, answer with exactly 3 markdown bullet points starting with '* '.", 3),
        ("In all your future replies, use exactly three bullet points like '* point'.", 3),
        ("Always answer in five bullets.", 5),
        ("You can stop using bullet points now.", 0),
        ("Stop answering in 3 bullet points.", 0),
        ("Use bullet points when it helps.", 0),
        ("Answer in 40 bullet points.", 0),
    ],
)
def test_a_bullet_list_instruction_names_its_count(text, count):
    assert bullet_count(text) == count


def test_the_later_case_instruction_wins_and_each_rule_names_its_source():
    im = ["From now on, answer only in lowercase letters.", "Never use a comma.", "Answer in all capital letters."]
    rules = output_rules(im)
    assert [(r.kind, r.source) for r in rules] == [(UPPERCASE, im[2]), (NO_COMMA, im[1])]
    assert output_rules(["Be brief.", "Answer in French."]) == ()
    (bullets,) = output_rules(["Use exactly three bullet points."])
    assert (bullets.kind, bullets.count, bullets.label) == (BULLETS, 3, "exactly 3 bullet points")
    assert "capital letters only" in rules_note(rules, enforced=True)
    assert rules_note(rules, enforced=False).startswith("Not kept while decoding")
    assert rules_note((), enforced=True) == ""


def test_a_token_breaks_a_rule_by_its_text_and_a_rewrite_keeps_it():
    assert breaks_rule(LOWERCASE, " Sure") and not breaks_rule(LOWERCASE, " sure") and not breaks_rule(LOWERCASE, "42")
    assert breaks_rule(UPPERCASE, " ok") and not breaks_rule(UPPERCASE, " OK!")
    assert breaks_rule(NO_COMMA, ",") and not breaks_rule(NO_COMMA, ".")
    assert keep_rules((LOWERCASE, NO_COMMA), " Well,") == " well"
    with pytest.raises(ValueError):
        breaks_rule("title", "x")


def _keeper(vocab: list[str], kinds, bullets: int = 0) -> RuleKeeper:
    """A keeper over a toy vocabulary; a text is encoded as one token where the vocabulary has it, else
    character by character."""
    index = {t: i for i, t in enumerate(vocab)}
    mask = torch.tensor([any(breaks_rule(k, t) for k in kinds) for t in vocab])
    return RuleKeeper(
        kinds=tuple(kinds),
        banned_mask=mask,
        token_text=lambda i: "" if i == EOS else vocab[i],
        encode=lambda text: [index[text]] if text in index else [index[c] for c in text if c in index],
        eos_id=EOS,
        bullets=bullets,
        line_break_mask=torch.tensor(["\n" in t for t in vocab]),
    )


EOS = 0


def test_the_keeper_rewrites_the_models_choice_and_falls_back_to_the_best_kept_token():
    vocab = ["<eos>", " Sure", " sure", ",", " and", "\n"]
    keeper = _keeper(vocab, (LOWERCASE, NO_COMMA))
    assert keeper.breaks(1) and not keeper.breaks(2)
    assert keeper.rewrite(1) == [2]  # " Sure" is decoded as " sure"
    assert keeper.rewrite(3) == []  # nothing is left of a comma: the best kept token is chosen instead
    logits = torch.tensor([0.0, 1.0, 0.0, 3.0, 2.0, 0.5])
    assert next_token(logits, [], Decoding(), banned_mask=keeper.banned_mask) == 4
    assert keeper.choose(logits, [4], Decoding()) == [4] and keeper.rewrites == 1
    assert keeper.choose(torch.tensor([0.0, 3.0, 0.0, 0.0, 0.0, 0.0]), [4], Decoding()) == [2]


def _pick(vocab: list[str], token: str) -> torch.Tensor:
    """Logits whose greedy choice is ``token``."""
    logits = torch.zeros(len(vocab))
    logits[vocab.index(token)] = 5.0
    return logits


def test_a_bullet_list_opens_breaks_lines_into_bullets_and_ends_after_the_last():
    vocab = ["<eos>", "* ", "\n* ", "Paris", " is", " big", " and", " old.", "\n", "*", " "]
    keeper = _keeper(vocab, (), bullets=2)
    text = lambda ids: "".join("" if i == EOS else vocab[i] for i in ids)  # noqa: E731
    reply: list[int] = []
    reply += keeper.choose(_pick(vocab, "Paris"), reply, Decoding())  # the reply opens with "* "
    assert text(reply) == "* "
    # a line break at once would leave the bullet empty: the best token that goes on with it instead
    logits = _pick(vocab, "\n")
    logits[vocab.index("Paris")] = 1.0
    reply += keeper.choose(logits, reply, Decoding())
    for word in (" is", " big", " and", " old."):  # a finished sentence of four words starts bullet 2
        reply += keeper.choose(_pick(vocab, word), reply, Decoding())
    assert text(reply) == "* Paris is big and old.\n* "
    reply += keeper.choose(_pick(vocab, "Paris"), reply, Decoding())
    reply += keeper.choose(_pick(vocab, "\n"), reply, Decoding())  # the line break after the last bullet ends it
    assert text(reply) == "* Paris is big and old.\n* Paris" and reply[-1] == EOS
