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


def _bound_hashes(raw: str, user: str) -> list[str]:
    """The hash each running server's middleware gives ``user``'s session ``raw``, as a stream URL
    would show it to that user (an earlier test's server may still be in memory)."""
    import gc

    from app.user_sessions import UserBoundSessions, bind

    return [bind(raw, user, o.secret) for o in gc.get_objects() if isinstance(o, UserBoundSessions)]


def _queue_call(url: str, who: tuple[str, str], api_name: str, data: list, session_hash: str, content_type) -> str:
    """One queued call by hand, as a script would send it: join with a body under ``content_type``
    (None: no header), then read the session's stream through a percent-encoded ``session%5Fhash``."""
    import httpx

    with httpx.Client(base_url=url, timeout=60) as http:
        http.post("login", data={"username": who[0], "password": who[1]}).raise_for_status()
        config = http.get("config").json()
        (dep,) = [d for d in config["dependencies"] if d.get("api_name") == api_name]
        kinds = {c["id"]: c["type"] for c in config["components"]}
        given = iter(data)  # a session's State inputs go as null: the server fills them from the session
        data = [None if kinds[i] == "state" else next(given) for i in dep["inputs"]]
        body = {
            "data": data,
            "fn_index": dep["id"],
            "session_hash": session_hash,
            "event_data": None,
            "trigger_id": None,
        }
        headers = {"content-type": content_type} if content_type else {}
        http.post("gradio_api/queue/join", content=json.dumps(body), headers=headers).raise_for_status()
        seen = []
        with http.stream("GET", f"gradio_api/queue/data?session%5Fhash={session_hash}") as stream:
            for line in stream.iter_lines():
                seen.append(line)
                if '"process_completed"' in line:
                    return "\n".join(seen)
    return "\n".join(seen)


@pytest.mark.parametrize("content_type", ["Application/JSON; charset=utf-8", "application/vnd.gradio+json"])
def test_session_binding_holds_for_every_body_and_query_spelling(signed_in_app, models, tmp_path, content_type):
    """Bob holds Alice's session hash (say, off a stream URL of hers) and calls the app by hand with a
    body FastAPI reads as JSON under another content type, and a percent-encoded query key: he still
    reaches a fresh session of his own."""
    url, _ = signed_in_app
    path = tmp_path / "biscuit.json"
    saved_file(models, path)
    alice = Client(url, auth=("alice", "pw-alice"), verbose=False)
    alice.predict(handle_file(str(path)), 0.5, 0.7, api_name="/load_conversation")

    def alices(bound):
        return _queue_call(url, ("alice", "pw-alice"), "set_thresholds", [0.5, 0.7], bound, content_type)

    (stolen,) = [bound for bound in _bound_hashes(alice.session_hash, "alice") if "Biscuit" in alices(bound)]
    # ^ the same call by Alice reaches her chat: the test can tell a leak from a fresh session
    answer = _queue_call(url, ("bob", "pw-bob"), "set_thresholds", [0.5, 0.7], stolen, content_type)
    assert "process_completed" in answer and "Biscuit" not in answer


def test_the_sign_in_form_checks_the_password_and_refuses_other_sites(signed_in_app):
    """The Annotate panel's form as a browser without JavaScript sends it: a wrong password sets no
    cookie and comes back to the tab saying so; the right one sets Gradio's login cookies, which Gradio
    resolves to the user; another site's page cannot sign anyone in; signing out ends that login."""
    import httpx

    url, _ = signed_in_app

    def user(http) -> str | None:
        return http.get("gradio_api/user").json()

    with httpx.Client(base_url=url, timeout=60) as http:
        assert http.get("").status_code == 200 and user(http) is None  # the page itself needs no login
        form = {"username": "alice", "password": "pw-bob", "tab": "review"}
        wrong = http.post("rea/sign-in", data=form)
        assert (wrong.status_code, wrong.headers["location"]) == (303, "../?tab=review&sign_in=failed")
        assert "set-cookie" not in wrong.headers and user(http) is None
        other_site = http.post(
            "rea/sign-in", data=form | {"password": "pw-alice"}, headers={"sec-fetch-site": "cross-site"}
        )
        assert other_site.status_code == 403 and "set-cookie" not in other_site.headers
        right = http.post("rea/sign-in", data=form | {"password": "pw-alice"})
        assert (right.status_code, right.headers["location"]) == (303, "../?tab=review")
        assert user(http) == "alice"
        token = dict(http.cookies)
        out = http.post("rea/sign-out", data={"tab": "annotate"}, headers={"accept": "application/json"})
        assert out.json() == {"ok": True} and user(http) is None
    with httpx.Client(base_url=url, timeout=60, cookies=token) as stale:  # the cookie kept: its login is gone
        assert user(stale) is None
