"""The ``rea`` command line (``main.py`` builds it from one module per command group). What other
command lines built on it (``rea app``, ``rea annotate``) share: error reporting, settings from the
options, and the options themselves."""

from .common import checked_out, quiet_libraries, reported_errors, settings_from_options
from .options import (
    AdapterOpt,
    EmbedderOpt,
    ModelOpt,
    OutputRulesOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    RecognizerModelOpt,
    TauHighOpt,
    TauLowOpt,
)

__all__ = [
    "AdapterOpt",
    "EmbedderOpt",
    "ModelOpt",
    "OutputRulesOpt",
    "RecentCompressedOpt",
    "RecentRawOpt",
    "RecentRawTokensOpt",
    "RecognizerModelOpt",
    "TauHighOpt",
    "TauLowOpt",
    "checked_out",
    "quiet_libraries",
    "reported_errors",
    "settings_from_options",
]
