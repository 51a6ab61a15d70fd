"""Local sign-in for the Annotate and Review tabs, and per-browser state bound to the signed-in user.

Why one ASGI middleware: the demo tabs are public, so Gradio's own ``auth`` (a login page before
the whole app) stays off, and ``UserBoundSessions`` checks local accounts itself. It answers the
sign-in panel's ``POST rea/sign-in`` and ``rea/sign-out`` (``app.views.sign_in``) and API clients'
``POST login`` (as Gradio's would: ``gradio_client.Client(url, auth=...)``), and sets the very
cookies Gradio's ``/login`` sets, with the token in ``gr_app.tokens``, so Gradio resolves
``gr.Request.username`` from them as under its own auth.

Gradio keys everything of a browser session (its ``gr.State`` values, the queue's messages for it,
the heartbeat whose end unloads it, Cancel) by the ``session_hash`` the client sends, whoever sends
it. With sign-in on, this middleware rewrites that hash, wherever a request names it, to
``<hash>.<digest of the signed-in user>``: a user who sends another user's hash reaches a fresh
session of their own, never the other's. Gradio and every handler are left as they are
(``gr.Request.session_hash`` is the bound hash).

It also signs out, on their next request, the users whose account left the file or whose password
changed there: a login cookie names only the user and lives until a restart otherwise. An API call
still carrying such a token is answered 401 (so a script learns it was signed out), and every answer
to it clears the cookies; the page itself serves them as any visitor.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from .annotate_auth import account_fingerprints, check_password, local_sign_in, on_spaces_with_oauth

# The paths that name a session hash: Gradio's routes under /gradio_api (the app may sit under a root path).
_PATH_HASH = re.compile(r"^(?P<head>.*/gradio_api/(?:heartbeat|stream)/)(?P<hash>[^/]+)(?P<tail>(?:/[^/]+){3,})?$")


def bind(session_hash: str, user: str | None, secret: bytes) -> str:
    """``session_hash`` scoped to ``user`` (None: not signed in): the same for one user, apart for two.
    A hash already bound to this user stays as it is (Gradio hands out stream URLs built on it)."""
    who = b"user:" + user.encode("utf-8", "surrogatepass") if user else b"anonymous"
    suffix = "." + hmac.new(secret, who, hashlib.sha256).hexdigest()[:32]
    return session_hash if session_hash.endswith(suffix) else session_hash + suffix


TABS = ("annotate", "review")  # the tabs with a sign-in panel; the panel's form names its own
WRONG_PASSWORD = "Wrong name or password."
CROSS_SITE = "Sign in from the studio's own page."
_ROUTES = {"/rea/sign-in": "sign-in", "/rea/sign-out": "sign-out", "/login": "login", "/login/": "login"}


def _token(gr_app, scope) -> str | None:
    """The login token a request's cookies carry, read as Gradio's ``get_current_user`` reads them."""
    cookies = {}
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                key, _, val = part.strip().partition("=")
                cookies.setdefault(key, val)
    cookie_id = getattr(gr_app, "cookie_id", "")
    return cookies.get(f"access-token-{cookie_id}") or cookies.get(f"access-token-unsecure-{cookie_id}")


def _cookie_names(gr_app) -> tuple[str, str]:
    cookie_id = getattr(gr_app, "cookie_id", "")
    return f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"


def _set_login(response: Response, gr_app, token: str) -> None:
    """The two cookies Gradio's own ``/login`` sets, so its ``get_current_user`` finds the user."""
    secure, unsecure = _cookie_names(gr_app)
    response.set_cookie(key=secure, value=token, httponly=True, samesite="none", secure=True)
    response.set_cookie(key=unsecure, value=token, httponly=True)


def _clear_login(response: Response, gr_app) -> None:
    secure, unsecure = _cookie_names(gr_app)
    response.delete_cookie(key=secure, path="/", httponly=True, samesite="none", secure=True)
    response.delete_cookie(key=unsecure, path="/", httponly=True)


def _header(scope, name: bytes) -> str:
    return next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name), "")


def _own_route(scope) -> str | None:
    """Which of its own routes (sign-in, sign-out, login) a POST is for, else None. The panel posts to
    a relative path, so under a root path only the part after it counts."""
    if scope.get("method") != "POST":
        return None
    path, root = scope.get("path", ""), scope.get("root_path", "")
    if root and path.startswith(root + "/"):
        path = path[len(root) :]
    return _ROUTES.get(path)


def _signed_in(gr_app, scope) -> str | None:
    """The user a request's login cookie (or Hugging Face OAuth session) names, as Gradio resolves it."""
    token = _token(gr_app, scope)
    user = getattr(gr_app, "tokens", {}).get(token)
    if user:
        return user
    session = scope.get("session")  # Starlette's SessionMiddleware, on a Space with hf_oauth
    info = session.get("oauth_info") if isinstance(session, dict) else None
    return ((info or {}).get("userinfo") or {}).get("preferred_username") if isinstance(info, dict) else None


class UserBoundSessions:
    """ASGI middleware for Gradio's app (``launch(app_kwargs={"middleware": [...]})``); see the module."""

    def __init__(self, app, local: bool | None = None):
        """``local``: whether local accounts were configured at launch (None: whether they are now)."""
        self.app = app
        self.secret = secrets.token_bytes(32)
        self.local = local_sign_in() if local is None else local
        self.oauth = on_spaces_with_oauth()  # "Sign in with Hugging Face" on a Space
        self._accounts: dict[str, str] | None = None  # account fingerprints as of the last request
        self._revoked: set[str] = set()  # login tokens of accounts removed or changed since they signed in
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        gr_app = scope.get("app")  # Starlette puts the application here
        if scope["type"] != "http" or not (self.local or self.oauth):  # no sign-in: no user to bind to
            return await self.app(scope, receive, send)
        if self.local and local_sign_in():
            self.revoke_changed_accounts(gr_app)
        if self.local and (route := _own_route(scope)):
            return await self._account_route(route, gr_app, scope, receive, send)
        if self.local and _token(gr_app, scope) in self._revoked:
            if "/gradio_api/" in scope.get("path", ""):
                response = JSONResponse({"detail": "Signed out: sign in again on the Annotate tab."}, 401)
                _clear_login(response, gr_app)
                return await response(scope, receive, send)
            send = _clearing_login(send, gr_app)
        user = _signed_in(gr_app, scope)
        scope = self._bind_path_and_query(scope, user)
        if scope["method"] == "POST" and _read_as_json(scope):
            receive = await self._bind_body(scope, receive, user)
        return await self.app(scope, receive, send)

    def revoke_changed_accounts(self, gr_app) -> None:
        """Drop the login tokens of users removed from the accounts or whose password changed since the
        last request; their next API call is answered 401, and from then on they are signed out."""
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
                self._revoked.add(token)

    async def _account_route(self, route: str, gr_app, scope, receive, send) -> None:
        """Sign in with a local account (the panel's form, or an API client's ``login``), or sign out
        this browser. The password is checked against the accounts as they are now, in constant time."""
        request = Request(scope, receive)
        try:
            form = await request.form(max_files=0, max_fields=8)
        except Exception:  # noqa: BLE001 - any malformed body: refused like a wrong password, in one line
            form = {}
        tab = form.get("tab") if form.get("tab") in TABS else TABS[0]
        wants_json = "application/json" in _header(scope, b"accept")  # the panel's fetch; a bare form: redirects
        tokens = getattr(gr_app, "tokens", {})
        old = _token(gr_app, scope)
        if route == "sign-out":
            tokens.pop(old, None)
            response = JSONResponse({"ok": True}) if wants_json else RedirectResponse(f"../?tab={tab}", 303)
            _clear_login(response, gr_app)
            return await response(scope, receive, send)
        if _header(scope, b"sec-fetch-site") == "cross-site":  # another site's page posting a login (CSRF)
            return await JSONResponse({"error": CROSS_SITE, "detail": CROSS_SITE}, 403)(scope, receive, send)
        name, password = form.get("username"), form.get("password")
        name = name.strip() if isinstance(name, str) else ""
        ok = bool(name) and isinstance(password, str) and check_password(name, password)
        if not ok:
            if route == "login":  # Gradio's own answer, which gradio_client reads
                response = JSONResponse({"detail": "Incorrect credentials."}, 400)
            elif wants_json:
                response = JSONResponse({"ok": False, "error": WRONG_PASSWORD}, 401)
            else:
                response = RedirectResponse(f"../?tab={tab}&sign_in=failed", 303)
            return await response(scope, receive, send)
        tokens.pop(old, None)  # a browser holds one login: the one it signed in with last
        token = secrets.token_urlsafe(32)
        tokens[token] = name
        if route == "login":
            response = JSONResponse({"success": True})
        else:
            response = JSONResponse({"ok": True}) if wants_json else RedirectResponse(f"../?tab={tab}", 303)
        _set_login(response, gr_app, token)
        return await response(scope, receive, send)

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


def _clearing_login(send, gr_app):
    """A send that adds the cookie deletions to the response's headers."""
    cleared = Response()
    _clear_login(cleared, gr_app)
    extra = [(k, v) for k, v in cleared.raw_headers if k == b"set-cookie"]

    async def wrapped(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return wrapped


def _replay(messages: list[dict], then=None):
    async def receive():
        if messages:
            return messages.pop(0)
        return await then() if then is not None else {"type": "http.disconnect"}

    return receive
