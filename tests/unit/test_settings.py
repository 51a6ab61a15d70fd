"""Settings: one reader of the environment, sections by purpose, and the README's table generated from them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rea_core import REAConfig, RuntimeConfig, Settings
from rea_core.errors import REAError
from rea_core.settings_table import settings_table

ROOT = Path(__file__).resolve().parents[2]


def test_each_variable_reaches_its_section_and_explicit_values_win():
    env = {
        "REA_TAU_LOW": "0.3",
        "REA_MAX_NEW_TOKENS": "64",
        "REA_KV_REUSE": "0",
        "REA_OPTIMIZE_STEPS": "7",
        "REA_MODEL": "openai:m",
        "REA_REPLY_FORM": "text",
        "REA_MAX_TURNS": "12",
        "REA_APP_CONCURRENCY": "2",
    }
    s = Settings.from_env(env, rea={"tau_high": 0.9}, runtime={"max_new_tokens": None})
    assert (s.rea.tau_low, s.rea.tau_high, s.rea.reply_form, s.rea.latent_fit.max_steps) == (0.3, 0.9, "text", 7)
    assert (s.runtime.max_new_tokens, s.runtime.kv_reuse, s.models.model, s.limits.max_turns, s.app.concurrency) == (
        64,
        False,
        "openai:m",
        12,
        2,
    )
    assert Settings.from_env({}) == Settings()  # nothing set: the defaults, one of each
    assert Settings().runtime.kv_reuse is True  # one default for the library, the app and the chat


@pytest.mark.parametrize(
    "env, message",
    [
        ({"REA_KV_REUSE": "maybe"}, "REA_KV_REUSE must be 1 or 0"),
        ({"REA_TAU_LOW": "0.9", "REA_TAU_HIGH": "0.1"}, "tau_low"),
        ({"REA_SCORER": "magic"}, "REA_SCORER"),
        ({"REA_OPTIMIZE_STEPS": "many"}, "REA_OPTIMIZE_STEPS='many' is not a whole number"),
    ],
)
def test_bad_values_name_their_variable(env, message):
    with pytest.raises(REAError, match=message):
        Settings.from_env(env)


def test_method_configs_are_per_method_and_runtime_is_shared():
    s = Settings(rea=REAConfig(tau_low=0.4), runtime=RuntimeConfig(max_new_tokens=9))
    assert (
        s.method_config("rea").tau_low == 0.4
        and s.method_config("secom") is s.secom
        and s.method_config("vanilla") is None
    )
    assert Settings.from_dict(s.to_dict()) == s


def test_readme_settings_table_is_generated_from_the_fields():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert settings_table() in readme, "README.md's settings table is out of date: run scripts/settings_table.py"
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts/settings_table.py"), "--check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr


def test_a_strategy_refuses_another_methods_config():
    """Old code passing one config for everything gets a clear error, not a silent default (no model is reached)."""
    from rea_core.methods.secom.strategy import SeComStrategy
    from rea_core.methods.vanilla.strategy import VanillaStrategy

    with pytest.raises(TypeError, match="takes no method config, got REAConfig"):
        VanillaStrategy(object(), None, REAConfig())
    with pytest.raises(TypeError, match="takes a SeComConfig, got REAConfig"):
        SeComStrategy(object(), object(), REAConfig())
