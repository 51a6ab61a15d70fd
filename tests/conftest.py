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
def base_generator():
    """The packaged model without the instruction adapter, decoding greedily: the weights and decoding a plain
    server serves, and a model that counts on for hundreds of tokens."""
    from rea_core.backends.decoding import Decoding
    from rea_core.backends.hf import HFGenerator

    return HFGenerator.load("packaged", adapter="none", decoding=Decoding())


@pytest.fixture(scope="session")
def examples_dir():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "examples"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url(models, tmp_path_factory):
    """The real app on the packaged models, served on a free loopback port for this test session."""
    from app.main import launch
    from app.state import AppEngine
    from rea_core import REAConfig, RuntimeConfig, Settings

    db = tmp_path_factory.mktemp("app") / "app.db"
    # A working-memory window of the latest exchange alone (no band) and one likely referent, so that
    # in these short chats the thresholds decide the rest, as the threshold tests need.
    settings = Settings(
        rea=REAConfig(recent_raw=1, recent_compressed=0, referent_top_k=1), runtime=RuntimeConfig(max_new_tokens=24)
    )
    engine = AppEngine(models=models, settings=settings, database_url=f"sqlite:///{db}")
    port = _free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    yield f"http://127.0.0.1:{port}/"
    demo.close()


@pytest.fixture()
def signed_in_engine(models, tmp_path, monkeypatch):
    """The app's engine with sign-in from an accounts file: alice and bob annotate, carol adjudicates
    (the file's role column). A test may change its settings before ``signed_in_app`` serves it."""
    from app.state import AppEngine

    accounts = tmp_path / "accounts.txt"
    accounts.write_text("alice:pw-alice\nbob:pw-bob\ncarol:pw-carol:adjudicator\n")
    for name in ("REA_AUTH", "REA_ADJUDICATORS", "REA_ANNOTATORS", "SPACE_ID", "OAUTH_CLIENT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REA_AUTH_FILE", str(accounts))
    return AppEngine(models=models, database_url=f"sqlite:///{tmp_path / 'app.db'}")


@pytest.fixture()
def signed_in_app(signed_in_engine, tmp_path):
    """The real app (``signed_in_engine``) with sign-in, on a free loopback port: (url, accounts file)."""
    from app.main import launch

    port = _free_port()
    demo = launch(signed_in_engine, host="127.0.0.1", port=port, block=False, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/", tmp_path / "accounts.txt"
    finally:
        demo.close()
