"""Errors REA raises for bad input or unusable models.

Every error here carries a message meant for the person at the keyboard; the CLI and the
app print it as is, without a traceback.
"""


class REAError(Exception):
    """Base class for every error REA reports to a user."""

    @property
    def public(self) -> str:
        """The message for a web visitor: the whole message, unless a subclass says more to the
        operator (``ServingError`` names the model server's address) than a visitor may read."""
        return str(self)


class InputError(REAError, ValueError):
    """A user message that cannot be taken (empty, or over the size limit)."""


class SettingsError(REAError, ValueError):
    """A setting (an environment variable or an option) with a malformed or invalid value, named in the message."""


class ThresholdError(REAError, ValueError):
    """HCR thresholds outside [0, 1] or misordered (tau_low > tau_high)."""


class DataFormatError(REAError, ValueError):
    """A data file that does not parse; the message names the file and line."""


class ModelLoadError(REAError, RuntimeError):
    """A model that cannot be loaded; the message names the model and what to do."""


class UnknownStrategyError(REAError, KeyError):
    """A strategy name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class CapabilityError(REAError, TypeError):
    """A strategy or component built on a backend that lacks what it needs (e.g. token log-probabilities)."""


class ServingError(REAError, RuntimeError):
    """A model call that failed on the way (server down, refused key, rate limit, timeout, cut stream).

    Raised before anything of the turn is stored, so the conversation stays as it was. ``str()`` is
    for the operator (the CLI's error line, the server log) and may name the server's URL; ``public``
    (given as ``public=``) says the same without where the server runs, for the app's visitors.
    """

    def __init__(self, message: str, *, public: str | None = None) -> None:
        super().__init__(message)
        self._public = public

    @property
    def public(self) -> str:
        return self._public if self._public is not None else str(self)


def check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    """Raise ValueError unless ``value`` is one of ``allowed``: every settings class validates its choices so."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
