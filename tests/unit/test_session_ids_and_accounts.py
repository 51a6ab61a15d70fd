"""Issue 24, sessions: session ids (the KV-cache keys) are made by the server, never read from a file,
and local accounts are read as REA_AUTH_FILE is now, so a removed account cannot sign in."""

import pytest

from app import annotate_auth as auth
from app.user_sessions import bind
from rea_core import ChatSession
from rea_core.session import sessions_from_data


def test_a_loaded_session_gets_a_fresh_id_and_none_can_be_passed_in():
    saved = {"format": "rea-studio-compare", "version": 1, "columns": [ChatSession(strategy="vanilla").to_dict()]}
    saved["columns"][0]["session_id"] = "chosen-by-the-file"
    (first,), (second,) = sessions_from_data(saved), sessions_from_data(saved)
    assert len({first.session_id, second.session_id, "chosen-by-the-file"}) == 3
    assert len(first.session_id) == 32 and first.to_dict()["session_id"] == first.session_id  # kept for reference
    with pytest.raises(TypeError):
        ChatSession(strategy="vanilla", session_id="chosen-by-the-caller")


def test_accounts_file_is_read_at_each_sign_in(tmp_path, monkeypatch):
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("alice:pw-a\nbob:pw-b:adjudicator\n")
    monkeypatch.delenv("REA_AUTH", raising=False)
    monkeypatch.setenv("REA_AUTH_FILE", str(accounts))
    check = auth.password_check()
    assert check("bob", "pw-b") and not check("bob", "pw-a") and not check("eve", "pw-b")
    before = auth.account_fingerprints()
    accounts.write_text("alice:pw-a\n")  # bob removed, no restart
    assert not check("bob", "pw-b") and check("alice", "pw-a") and auth.role_of("bob") == "annotator"
    accounts.write_text("alice:new-pw\n")
    assert not check("alice", "pw-a") and auth.account_fingerprints()["alice"] != before["alice"]
    accounts.write_text("alice:pw:admin\n")  # malformed: no one signs in, never the last good accounts
    assert not check("alice", "pw") and auth.account_fingerprints() == {}
    accounts.write_text("")  # configured but empty: sign-in stays on, with no account
    assert auth.password_check() is check and not check("alice", "new-pw")


def test_a_session_hash_is_bound_to_its_user():
    secret = b"k" * 32
    assert bind("h", "alice", secret) == bind("h", "alice", secret)
    assert len({bind("h", "alice", secret), bind("h", "bob", secret), bind("h", None, secret)}) == 3
    assert bind("h", "alice", secret) != bind("h", "alice", b"j" * 32)  # a per-process secret
    alices = bind("h", "alice", secret)
    assert bind(alices, "alice", secret) == alices  # hers already: a stream URL Gradio built on it
    assert bind(alices, "bob", secret) not in {alices, bind("h", "bob", secret)}  # bob never reaches it


def test_every_place_a_request_names_its_session_hash_is_bound():
    from app.user_sessions import UserBoundSessions

    mw = UserBoundSessions(app=None)
    alice = bind("h1", "alice", mw.secret)
    for path in ("/gradio_api/heartbeat/h1", "/app/gradio_api/stream/h1/run/3/playlist.m3u8"):
        bound = mw._bind_path_and_query({"method": "GET", "path": path, "query_string": b""}, "alice")
        assert bound["path"] == path.replace("h1", alice) and bound["raw_path"] == bound["path"].encode()
    event = {"method": "POST", "path": "/gradio_api/stream/h1", "query_string": b""}  # an event id, not a hash
    assert mw._bind_path_and_query(event, "alice") is event
    query = mw._bind_path_and_query(
        {"method": "GET", "path": "/gradio_api/queue/data", "query_string": b"session_hash=h1&x=1"}, "alice"
    )
    assert query["query_string"] == f"session_hash={alice}&x=1".encode()
