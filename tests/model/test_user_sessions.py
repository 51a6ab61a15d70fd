"""Issue 24, sessions: a loaded file gets a fresh session id (its KV-cache entry and reuse count are
its own), and with sign-in on a browser session belongs to its user: another user's session_hash
reaches a fresh session, and an account removed from REA_AUTH_FILE is signed out without a restart."""

import json

import pytest
from gradio_client import Client, handle_file

from rea_core import RuntimeConfig, build_strategy, load_sessions, save_sessions

MESSAGE = "My locker code is 4719 and my dog is called Biscuit."


def saved_file(models, path):
    """A real saved conversation of one vanilla column with one exchange."""
    strategy = build_strategy("vanilla", models, runtime=RuntimeConfig(max_new_tokens=4))
    session = strategy.new_session()
    session.episodes.append("Remember that my dog is called Biscuit.", "I will remember Biscuit.")
    save_sessions(path, [(strategy, session)])
    return strategy


def test_two_loads_of_one_file_share_no_kv_cache(models, tmp_path):
    path = tmp_path / "chat.json"
    strategy = saved_file(models, path)
    saved_id = json.loads(path.read_text())["columns"][0]["session_id"]
    (victim,), (prober,) = load_sessions(path), load_sessions(path)
    assert len({saved_id, victim.session_id, prober.session_id}) == 3  # the file's id is never used
    assert strategy.cache_key(victim) != strategy.cache_key(prober)
    strategy.respond(victim, MESSAGE)
    probe = strategy.respond(prober, MESSAGE)  # the exact guess: with a shared key nearly all would be reused
    assert probe.generation.reused_tokens == 0 and "full prefill" in probe.generation.cache_note
    again = strategy.respond(victim, "And my cat?")  # the victim's own entry still serves the victim
    assert again.generation.reused_tokens > 0


@pytest.fixture()
def signed_in_app(models, tmp_path, monkeypatch):
    """The real app with sign-in from an accounts file, on a free loopback port."""
    from conftest import _free_port

    from app.main import launch
    from app.state import AppEngine

    accounts = tmp_path / "accounts.txt"
    accounts.write_text("alice:pw-alice\nbob:pw-bob\n")
    monkeypatch.delenv("REA_AUTH", raising=False)
    monkeypatch.setenv("REA_AUTH_FILE", str(accounts))
    engine = AppEngine(models=models, database_url=f"sqlite:///{tmp_path / 'app.db'}")
    port = _free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/", accounts
    finally:
        demo.close()


def test_another_users_session_hash_reaches_nothing_of_theirs(signed_in_app, models, tmp_path):
    url, accounts = signed_in_app
    path = tmp_path / "biscuit.json"
    saved_file(models, path)
    alice = Client(url, auth=("alice", "pw-alice"), verbose=False)
    loaded = alice.predict(handle_file(str(path)), 0.5, 0.7, api_name="/load_conversation")
    assert "Biscuit" in json.dumps(loaded[2])
    bob = Client(url, auth=("bob", "pw-bob"), verbose=False)
    bob.session_hash = alice.session_hash  # as if bob had read it off alice's page
    seen = bob.predict(0.5, 0.7, api_name="/set_thresholds")
    assert "Biscuit" not in json.dumps(seen)
    bob.predict(0.5, 0.7, api_name="/reset")
    assert "Biscuit" in json.dumps(alice.predict(0.5, 0.7, api_name="/set_thresholds"))  # alice's chat is intact

    accounts.write_text("alice:pw-alice\n")  # bob's account removed while he is signed in; no restart
    with pytest.raises(Exception, match="(?i)401|auth|credentials"):
        bob.predict(0.5, 0.7, api_name="/set_thresholds")
    with pytest.raises(Exception, match="(?i)login|credentials|auth"):
        Client(url, auth=("bob", "pw-bob"), verbose=False)
    assert "Biscuit" in json.dumps(alice.predict(0.5, 0.7, api_name="/set_thresholds"))
    accounts.write_text("alice:new-pw\n")  # a changed password signs her out too
    with pytest.raises(Exception, match="(?i)401|auth|credentials"):
        alice.predict(0.5, 0.7, api_name="/set_thresholds")
    Client(url, auth=("alice", "new-pw"), verbose=False).predict(0.5, 0.7, api_name="/set_thresholds")
