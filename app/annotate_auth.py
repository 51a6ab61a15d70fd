"""Who is signed in, for the annotation studio. Identity comes from a verified login only: a local
account (``REA_AUTH`` or ``REA_AUTH_FILE``) checked by ``app.user_sessions`` when the Annotate or
Review tab's sign-in panel posts it, or Hugging Face OAuth on a Space; never from a text box alone.
Roles come from the server's configuration (``REA_ADJUDICATORS``). The demo tabs need no login.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from rea_core import REAError
from rea_core.settings import AuthSettings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Identity:
    name: str
    role: str  # "annotator" or "adjudicator"


def _split(value: str | None) -> list[str]:
    return [x.strip() for x in (value or "").split(",") if x.strip()]


ROLES = ("annotator", "adjudicator")


class AuthConfigError(REAError, ValueError):
    """REA_AUTH / REA_AUTH_FILE cannot be read; ``rea app`` stops with this one line."""


class AccessDenied(REAError, PermissionError):
    """The caller may not do this under the server's current configuration."""


def _account(entry: str, *, with_role: bool) -> tuple[str, str, str]:
    """(name, password, role) from ``name:password`` (REA_AUTH: the password may hold ':') or
    ``name:password[:role]`` (REA_AUTH_FILE: with a ':' in the password, end the line with the role)."""
    name, sep, rest = entry.strip().partition(":")
    role = "annotator"
    if with_role and ":" in rest:
        rest, _, role = rest.rpartition(":")
        role = role or "annotator"  # "name:password:" as before
        if role not in ROLES:
            raise AuthConfigError(
                f"REA_AUTH_FILE: {name!r} has unknown role {role!r}; use one of {', '.join(ROLES)} "
                "(a password containing ':' needs the role written after it)"
            )
    if not sep or not name.strip() or not rest:
        raise AuthConfigError("REA_AUTH entries are name:password, REA_AUTH_FILE lines name:password[:role]")
    return name.strip(), rest, role


def local_accounts() -> list[tuple[str, str, str]]:
    """(name, password, role) from ``REA_AUTH_FILE`` (lines ``name:password[:role]``) and ``REA_AUTH``
    (``name:password,...``), as they are now: the file is read on every call (parsed again only when
    its bytes changed), so an account removed from it is refused without a restart.

    Raises:
        AuthConfigError: An unreadable file, a malformed entry or an unknown role (never silently an annotator).
    """
    settings = AuthSettings.current()
    path = settings.auth_file
    try:
        raw = Path(path).read_bytes() if path else b""
    except OSError as exc:
        raise AuthConfigError(f"REA_AUTH_FILE {path}: cannot be read ({exc})") from exc
    key = (path, raw, settings.auth)
    with _parsed_lock:
        if _parsed and _parsed[0] == key:
            return list(_parsed[1])
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise AuthConfigError(f"REA_AUTH_FILE {path}: cannot be read ({exc})") from exc
    accounts = [_account(x, with_role=True) for x in lines if x.strip() and not x.lstrip().startswith("#")]
    accounts += [_account(x, with_role=False) for x in _split(settings.auth)]
    with _parsed_lock:
        _parsed[:] = [key, accounts]
    return list(accounts)


_parsed: list = []  # [key, accounts] of the latest parse: (path, file bytes, REA_AUTH) -> its accounts
_parsed_lock = threading.Lock()


def local_sign_in() -> bool:
    """Whether local accounts (REA_AUTH / REA_AUTH_FILE) are configured, even if the file lists none now."""
    settings = AuthSettings.current()
    return bool(settings.auth or settings.auth_file)


def check_password(username: str, password: str) -> bool:
    """Whether this is a current local account: the accounts as they are at this sign-in, compared in constant time.
    An unreadable or malformed file lets no one in (said in the server log), never the last good one."""
    try:
        accounts = local_accounts()
    except AuthConfigError as exc:
        logger.error("sign-in refused: %s", exc)
        return False
    given = password.encode("utf-8", "surrogatepass")
    return any(
        name == username and hmac.compare_digest(secret.encode("utf-8", "surrogatepass"), given)
        for name, secret, _ in accounts
    )


def account_fingerprints() -> dict[str, str]:
    """Each current account's name and a digest of its password; {} when the file cannot be used.

    Why: a login cookie names only the user, so ``app.user_sessions`` compares these between requests
    and signs out the users whose account was removed or whose password changed."""
    try:
        accounts = local_accounts()
    except AuthConfigError as exc:
        logger.error("every local account is refused until REA_AUTH_FILE is fixed: %s", exc)
        return {}
    prints: dict[str, set[str]] = {}
    for name, secret, _ in accounts:
        prints.setdefault(name, set()).add(hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest())
    return {name: ",".join(sorted(digests)) for name, digests in prints.items()}


def password_check() -> Callable[[str, str], bool] | None:
    """``check_password`` when local accounts are configured, else None; checked once at ``launch()``.

    Raises:
        AuthConfigError: The accounts cannot be read at startup (``rea app`` stops with one line).
    """
    if not local_sign_in():
        return None
    local_accounts()
    return check_password


def on_spaces_with_oauth() -> bool:
    """True on a Hugging Face Space with ``hf_oauth: true`` (the Space sets these variables)."""
    settings = AuthSettings.current()
    return bool(settings.space_id and settings.oauth_client_id)


def sign_in_configured() -> bool:
    return on_spaces_with_oauth() or local_sign_in()


def role_of(name: str) -> str:
    adjudicators = set(_split(AuthSettings.current().adjudicators))
    try:
        adjudicators |= {n for n, _, role in local_accounts() if role == "adjudicator"}
    except (OSError, ValueError):
        pass
    return "adjudicator" if name in adjudicators else "annotator"


def identity(request: gr.Request | None, profile: gr.OAuthProfile | None) -> Identity | None:
    """The signed-in person, or None. On Spaces ``REA_ANNOTATORS`` (comma list) restricts who may label."""
    name = None
    if profile is not None and on_spaces_with_oauth():
        name = profile.username
        allowed = _split(AuthSettings.current().annotators)
        if allowed and name not in allowed:
            return None
    elif request is not None and getattr(request, "username", None):
        name = request.username
    return Identity(name, role_of(name)) if name else None


def mark_author(request: gr.Request | None, profile: gr.OAuthProfile | None) -> str | None:
    """Whose Inspect mark this is: the signed-in name (Hugging Face users under their own), or
    "anonymous" only where no sign-in is configured at all; None (refused) on a signed-in
    deployment without a login. Resolved on every call, like every other write."""
    who = identity(request, profile)
    if who is not None:
        return who.name
    return None if sign_in_configured() else "anonymous"


@dataclass(frozen=True)
class MarksReader:
    """Whose Inspect marks a visitor lists, exports and re-checks: their own, or everyone's for an adjudicator."""

    name: str  # the signed-in name ("anonymous" where no sign-in is configured)
    everyone: bool  # an adjudicator now: every annotator's marks

    @property
    def owner(self) -> str | None:
        """The store's annotator filter: None for everyone's."""
        return None if self.everyone else self.name


def marks_reader(request: gr.Request | None, profile: gr.OAuthProfile | None) -> MarksReader | None:
    """The caller as a reader of marks, or None (refused: a signed-in deployment without a login).

    Why per owner: marks carry whole conversations and notes; annotators see their own, and the
    role comes from the current configuration on every call, as for every other write."""
    name = mark_author(request, profile)
    if name is None:
        return None
    who = identity(request, profile)
    return MarksReader(name, everyone=who is not None and who.role == "adjudicator")


def require_adjudicator(who: Identity | None) -> Identity:
    """The caller, if the server's current configuration makes them an adjudicator.

    Why here and not the database: the stored role is only refreshed at sign-in, so a person
    removed from ``REA_ADJUDICATORS`` would keep it until their next page load.

    Raises:
        AccessDenied: Not signed in, or not an adjudicator now.
    """
    if who is None or who.role != "adjudicator":
        raise AccessDenied("only adjudicators may do this; whoever runs the studio can give you that role")
    return who


# What a visitor reads on Annotate and Review: no setting names (the README's annotation studio section
# tells whoever runs the studio how to add accounts), and where an account comes from.
NOT_CONFIGURED = (
    "Labeling needs an account, and this studio has none set up: you can read the guideline and look around, "
    "but not save labels. To label, ask whoever runs this studio for an account."
)
SIGN_IN_TO_LABEL = "Labeling needs an account: sign in above. No account yet? Ask whoever runs this studio for one."
SIGN_IN_TO_REVIEW = "Reviewing needs an account: sign in above. No account yet? Ask whoever runs this studio for one."
