"""Repetition control and the loop measure: pure functions over real torch tensors."""

from __future__ import annotations

import pytest
import torch

from rea_core.backends.decoding import Decoding, banned_tokens, looping, next_token
from rea_core.errors import SettingsError
from rea_core.settings import Settings


def test_banned_tokens_complete_only_an_ngram_already_in_the_reply():
    # 5 7 9 5 7 -> the next token 9 would repeat the 3-gram (5, 7, 9)
    assert banned_tokens([5, 7, 9, 5, 7], 3) == {9}
    assert banned_tokens([5, 7, 9, 5, 8], 3) == set()
    assert banned_tokens([5, 7], 3) == set()


def test_greedy_is_argmax_and_the_penalty_moves_a_repeated_token_down():
    logits = torch.tensor([0.0, 2.0, 1.9, -1.0])
    assert next_token(logits, [1], Decoding()) == 1
    assert next_token(logits, [1], Decoding(repetition_penalty=1.2)) == 2  # 2.0 / 1.2 < 1.9
    negative = torch.tensor([-1.0, -1.05, -3.0])
    assert next_token(negative, [0], Decoding(repetition_penalty=1.1)) == 1  # -1.0 * 1.1 < -1.05


def test_no_repeat_ngram_bans_the_loop_but_never_the_end_of_turn():
    logits = torch.tensor([0.0, 0.0, 5.0, 4.0])  # token 2 would close the repeated bigram (1, 2)
    assert next_token(logits, [1, 2, 1], Decoding(no_repeat_ngram=2)) == 3
    assert next_token(logits, [1, 2, 1], Decoding(no_repeat_ngram=2), eos_id=2) == 2  # stopping stays allowed


def test_looping_counts_a_five_word_sequence_three_times():
    assert looping("The user asked, " * 4 + "why")
    assert not looping("one two three four five one two three four five and more words here")
    assert looping("She's a bit of a bit of a bit of a bit of a bit of a bit")


@pytest.mark.parametrize(
    ("name", "value"),
    [("REA_REPETITION_PENALTY", "0.5"), ("REA_REPETITION_PENALTY", "3"), ("REA_NO_REPEAT_NGRAM", "1")],
)
def test_out_of_range_decoding_settings_are_refused_with_their_variable(name, value):
    with pytest.raises(SettingsError, match=name):
        Settings.from_env(environ={name: value})


def test_decoding_describes_itself_for_the_details_panel():
    assert Decoding().describe() == "greedy"
    assert Decoding(repetition_penalty=1.1, no_repeat_ngram=6).describe() == (
        "greedy, repetition penalty 1.1, no repeated 6-grams"
    )
