import pytest

from rea_core import Strategy, available_strategies
from rea_core.errors import InputError, UnknownStrategyError
from rea_core.methods import get_strategy, register_strategy
from rea_core.text import chunk_sentences, text_compress, validate_message


def test_builtins_resolve_lazily():
    assert {"rea", "vanilla"} <= set(available_strategies())
    assert get_strategy("rea").name == "rea" and get_strategy("vanilla").name == "vanilla"


def test_registry_rejects_bad_and_duplicate_names():
    with pytest.raises(ValueError, match="lowercase"):
        register_strategy("REA")
    with pytest.raises(ValueError, match="already registered"):

        @register_strategy("rea")
        class Other(Strategy):
            def build_context(self, session, query):
                raise NotImplementedError

    with pytest.raises(UnknownStrategyError, match="choose from"):
        get_strategy("memgpt")


def test_validate_message():
    assert validate_message("hi", 10) == "hi"
    with pytest.raises(InputError, match="empty"):
        validate_message(" \n\t", 10)
    with pytest.raises(InputError, match="11 characters, over the limit of 10"):
        validate_message("x" * 11, 10)
    with pytest.raises(InputError, match="must be text"):
        validate_message(None, 10)


def test_chunks_and_text_compression():
    assert chunk_sentences("A. B. C. D. E.", 2) == ["A. B. C.", "D. E."]
    assert text_compress("one two three", 5) == "one two three"
    assert text_compress("one two three four", 2) == "one two […]"
