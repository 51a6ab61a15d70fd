from dataclasses import dataclass, field

import pytest

from rea_core import Models, Settings, Strategy, available_strategies, build_strategy
from rea_core.errors import InputError, SettingsError, UnknownStrategyError
from rea_core.loading import build_from_settings
from rea_core.methods import MethodSpec, get_method, get_strategy, register_method, register_strategy, registry
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
    with pytest.raises(ValueError, match="already registered by SeComStrategy"):
        register_method(MethodSpec("secom", "Other", "", "elsewhere:Other"))


def test_each_builtin_folder_declares_its_method():
    """A method is a folder with one spec: its name, title, description, strategy and config class."""
    from rea_core.methods.secom.config import SeComConfig

    spec = get_method("secom")
    assert (spec.title, spec.config_class, get_strategy("secom").config_class) == ("SeCom", SeComConfig, SeComConfig)
    assert get_method("vanilla").config_class is None and Settings().method_config("vanilla") is None
    assert set(registry.builtin_methods()) == {"comedy", "rea", "secom", "vanilla"}


@dataclass(frozen=True)
class EchoConfig:
    width: int = field(default=3, metadata={"env": "REA_TEST_ECHO_WIDTH", "help": "a test method's one setting"})


class EchoStrategy(Strategy):
    def build_context(self, session, query):
        raise NotImplementedError  # never asked to answer here: no model is loaded


ECHO = MethodSpec(
    name="echo",
    title="Echo (test)",
    description="A method registered by a test, from its own spec only.",
    strategy=EchoStrategy,
    config_class=EchoConfig,
)


@pytest.fixture
def echo(monkeypatch):
    """ECHO registered for one test; the registry as it was afterwards."""
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    monkeypatch.setattr(registry, "_CLASSES", dict(registry._CLASSES))
    return register_method(ECHO)


def test_a_method_registered_at_run_time_reaches_every_consumer(echo):
    """One spec, nothing else edited: listed, built, configured from the environment, titled in the app."""
    from app.tabs.compare import handlers, layout
    from rea_core.cli.common import settings_from_options

    assert "echo" in available_strategies() and register_method(ECHO) is ECHO  # the same spec twice is fine
    models = Models(generator=object(), embedder=object())  # nothing generates: the strategy is only built

    settings = Settings.from_env({"REA_TEST_ECHO_WIDTH": "7"})
    assert settings.method_config("echo") == EchoConfig(width=7)
    built = build_from_settings("echo", models, settings)
    assert isinstance(built, EchoStrategy) and built.name == "echo" and built.config.width == 7
    assert build_strategy("echo", models).config == EchoConfig()  # no config given: the method's defaults
    assert Settings().method_config("echo") == EchoConfig()
    assert Settings.from_env({}, echo={"width": 4}).with_section("echo", width=5).method_config("echo").width == 5
    assert Settings.from_dict(settings.to_dict()) == settings
    assert settings_from_options(echo=EchoConfig(width=9)).method_config("echo").width == 9
    with pytest.raises(SettingsError, match="REA_TEST_ECHO_WIDTH"):
        Settings.from_env({"REA_TEST_ECHO_WIDTH": "wide"})

    assert (handlers.strategy_title("echo"), handlers.STRATEGY_BLURBS["echo"]) == (ECHO.title, ECHO.description)
    assert layout.chat_props("echo")["placeholder"] == f"**{ECHO.title}**: {ECHO.description}"
    assert handlers.strategy_title("secom") == "SeCom" and "echo" in handlers.STRATEGY_TITLES

    register_method(MethodSpec("echo-again", "Echo again", "", EchoStrategy, EchoConfig))
    with pytest.raises(ValueError, match="already runs method 'echo'"):
        get_strategy("echo-again")


def test_a_method_registered_after_the_settings_were_read_is_never_silently_defaulted(monkeypatch):
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    monkeypatch.setattr(registry, "_CLASSES", dict(registry._CLASSES))
    settings = Settings.from_env({"REA_TEST_ECHO_WIDTH": "7"})
    register_method(ECHO)
    with pytest.raises(SettingsError, match="registered after these settings were read.*REA_TEST_ECHO_WIDTH"):
        settings.method_config("echo")

    @dataclass(frozen=True)
    class PlainConfig:
        size: int = 2

    register_method(MethodSpec("plain", "Plain", "", EchoStrategy, PlainConfig))
    assert settings.method_config("plain") == PlainConfig()  # it reads no variable: nothing can be ignored


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
