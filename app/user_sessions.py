"""Per-browser state bound to the signed-in user, and local sign-in that follows ``REA_AUTH_FILE``.

Why one ASGI middleware: Gradio keys everything of a browser session (its ``gr.State`` values, the
queue's messages for it, the heartbeat whose end unloads it, Cancel) by the ``session_hash`` the
client sends, whoever sends it. With sign-in on, ``UserBoundSessions`` rewrites that hash, wherever
a request names it, to ``<hash>.<digest of the signed-in user>``: a user who sends another user's
hash reaches a fresh session of their own, never the other's. Gradio and every handler are left as
they are (``gr.Request.session_hash`` is the bound hash).

It also signs out, on their next request, the users whose account left the file or whose password
changed there: a Gradio login cookie names only the user and lives until a restart otherwise.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
from urllib.parse import parse_qsl, urlencode

from .annotate_auth import account_fingerprints, local_sign_in, on_spaces_with_oauth

# The paths that name a session hash: Gradio's routes under /gradio_api (the app may sit under a root path).
_PATH_HASH = re.compile(r"^(?P<head>.*/gradio_api/(?:heartbeat|stream)/)(?P<hash>[^/]+)(?P<tail>(?:/[^/]+){3,})?$")


def bind(session_hash: str, user: str | None, secret: bytes) -> str:
    """``session_hash`` scoped to ``user`` (None: not signed in): the same for one user, apart for two.
    A hash already bound to this user stays as it is (Gradio hands out stream URLs built on it)."""
    who = b"user:" + user.encode("utf-8", "surrogatepass") if user else b"anonymous"
    suffix = "." + hmac.new(secret, who, hashlib.sha256).hexdigest()[:32]
    return session_hash if session_hash.endswith(suffix) else session_hash + suffix


def _signed_in(gr_app, scope) -> str | None:
    """The user a request's login cookie (or Hugging Face OAuth session) names, as Gradio resolves it."""
    cookies = {}
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                key, _, val = part.strip().partition("=")
                cookies.setdefault(key, val)
    cookie_id = getattr(gr_app, "cookie_id", "")
    token = cookies.get(f"access-token-{cookie_id}") or cookies.get(f"access-token-unsecure-{cookie_id}")
    user = getattr(gr_app, "tokens", {}).get(token)
    if user:
        return user
    session = scope.get("session")  # Starlette's SessionMiddleware, on a Space with hf_oauth
    info = session.get("oauth_info") if isinstance(session, dict) else None
    return ((info or {}).get("userinfo") or {}).get("preferred_username") if isinstance(info, dict) else None


class UserBoundSessions:
    """ASGI middleware for Gradio's app (``launch(app_kwargs={"middleware": [...]})``); see the module."""

    def __init__(self, app):
        self.app = app
        self.secret = secrets.token_bytes(32)
        self.oauth = on_spaces_with_oauth()  # "Sign in with Hugging Face" on a Space
        self._accounts: dict[str, str] | None = None  # account fingerprints as of the last request
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        gr_app = scope.get("app")  # Starlette puts the application here
        local = getattr(gr_app, "auth", None) is not None
        if scope["type"] != "http" or not (local or self.oauth):  # no sign-in: no user to bind to
            return await self.app(scope, receive, send)
        if local and local_sign_in():
            self.revoke_changed_accounts(gr_app)
        user = _signed_in(gr_app, scope)
        scope = self._bind_path_and_query(scope, user)
        if scope["method"] == "POST" and _read_as_json(scope):
            receive = await self._bind_body(scope, receive, user)
        return await self.app(scope, receive, send)

    def revoke_changed_accounts(self, gr_app) -> None:
        """Drop the login tokens of users removed from the accounts or whose password changed since the
        last request; Gradio then answers their next call as signed out (401)."""
        current = account_fingerprints()
        with self._lock:
            before, self._accounts = self._accounts, current
        if before == current:
            return
        gone = {name for name, tokens in (before or {}).items() if current.get(name) != tokens}
        tokens = getattr(gr_app, "tokens", {})
        for token, name in list(tokens.items()):
            if name in gone or name not in current:
                tokens.pop(token, None)

    def _bind_path_and_query(self, scope, user: str | None):
        path, query = scope.get("path", ""), scope.get("query_string", b"")
        match = _PATH_HASH.match(path)
        if match and (scope["method"] == "GET" and ("/heartbeat/" in match["head"] or match["tail"])):
            path = match["head"] + bind(match["hash"], user, self.secret) + (match["tail"] or "")
        if query:  # parsed as the app parses it: "session%5Fhash=" names the hash as well
            pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
            if any(k == "session_hash" for k, _ in pairs):
                query = urlencode(
                    [(k, bind(v, user, self.secret) if k == "session_hash" else v) for k, v in pairs]
                ).encode("latin-1")
        if path == scope.get("path") and query == scope.get("query_string", b""):
            return scope
        return {**scope, "path": path, "raw_path": path.encode("utf-8"), "query_string": query}

    async def _bind_body(self, scope, receive, user: str | None):
        """A receive that replays the JSON body with its top-level "session_hash" bound."""
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left: let the app see it
                return _replay([message])
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if body:  # parsed, not searched: an escaped key ("session\\u005fhash") names the hash too
            try:
                data = json.loads(body)
            except (ValueError, RecursionError):
                data = None  # Gradio answers it with its own 4xx
            if isinstance(data, dict) and isinstance(data.get("session_hash"), str):
                data["session_hash"] = bind(data["session_hash"], user, self.secret)
                body = json.dumps(data).encode("utf-8")
                scope["headers"] = [(k, v) for k, v in scope["headers"] if k != b"content-length"] + [
                    (b"content-length", str(len(body)).encode())
                ]
        return _replay([{"type": "http.request", "body": body, "more_body": False}], then=receive)


def _read_as_json(scope) -> bool:
    """Whether FastAPI reads this request's body as JSON: with no content type, or one whose type is
    ``application/json`` or ``application/*+json`` in any letter case, parameters aside."""
    types = [v for k, v in scope["headers"] if k == b"content-type"]
    if not types:
        return True
    kind = types[0].split(b";")[0].strip().lower()
    return kind == b"application/json" or (kind.startswith(b"application/") and kind.endswith(b"+json"))


def _replay(messages: list[dict], then=None):
    async def receive():
        if messages:
            return messages.pop(0)
        return await then() if then is not None else {"type": "http.disconnect"}

    return receive
