"""Who is signed in, for the annotation studio. Identity comes from the login only: Gradio's
auth locally (``REA_AUTH`` or ``REA_AUTH_FILE``) or Hugging Face OAuth on a Space, never from a
text box; roles come from the server's configuration (``REA_ADJUDICATORS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from rea_core import REAError
from rea_core.settings import AuthSettings


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
    (``name:password,...``).

    Raises:
        AuthConfigError: An unreadable file, a malformed entry or an unknown role (never silently an annotator).
    """
    settings = AuthSettings.current()
    path = settings.auth_file
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines() if path else []
    except (OSError, UnicodeDecodeError) as exc:
        raise AuthConfigError(f"REA_AUTH_FILE {path}: cannot be read ({exc})") from exc
    accounts = [_account(x, with_role=True) for x in lines if x.strip() and not x.lstrip().startswith("#")]
    return accounts + [_account(x, with_role=False) for x in _split(settings.auth)]


def gradio_auth() -> list[tuple[str, str]] | None:
    """The ``auth=`` value for ``launch()``, or None when no local accounts are configured."""
    accounts = local_accounts()
    return [(name, password) for name, password, _ in accounts] or None


def on_spaces_with_oauth() -> bool:
    """True on a Hugging Face Space with ``hf_oauth: true`` (the Space sets these variables)."""
    settings = AuthSettings.current()
    return bool(settings.space_id and settings.oauth_client_id)


def sign_in_configured() -> bool:
    settings = AuthSettings.current()
    return on_spaces_with_oauth() or bool(settings.auth or settings.auth_file)


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


NOT_CONFIGURED = (
    "**Sign-in is not enabled, so labels cannot be saved.** Locally, start the app with accounts: "
    "`REA_AUTH='alice:secret1,bob:secret2' REA_ADJUDICATORS=alice rea app` (or `REA_AUTH_FILE` with lines "
    "`name:password[:role]`). On a Hugging Face Space, add `hf_oauth: true` to the README front matter and "
    "sign in with the button."
)
