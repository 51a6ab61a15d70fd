"""Shared fixtures. Models are the real packaged ones, loaded once per test session."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def models():
    from rea_core import load_models

    return load_models()


@pytest.fixture(scope="session")
def examples_dir():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "examples"
