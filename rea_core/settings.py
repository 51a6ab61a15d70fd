"""Every setting REA Studio reads from the environment, declared once and read in one place.

Why one module: a variable parsed in three places drifts (it did: ``REA_KV_REUSE`` was off in the
library and on in the app). Each settings class declares its fields; a field with an ``env``
name in its metadata can be set by that variable. ``Settings.from_env()`` reads them all once and
everything else receives values; the README's settings table is ``settings_table.settings_table()``'s output,
and a test checks the two agree.

Method settings follow the method registry (``methods.registry``): ``rea``, ``secom`` and ``comedy`` are
typed sections; a registered method with a config class but no section of its own is read the same way
(its fields' ``env`` variables, then overrides under its name) into ``Settings.methods``.

Example:
    >>> settings = Settings.from_env(rea={"tau_low": 0.3})
    >>> models = load_models(**settings.models.load_kwargs())
    >>> rea = build_strategy("rea", models, settings.rea, runtime=settings.runtime)
"""

from __future__ import annotations

import os
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from .backends.decoding import DEFAULT_DECODING, Decoding
from .backends.packaged import DEFAULT_CACHE_DIR
from .errors import REAError, SettingsError
from .limits import Limits
from .methods.comedy.config import COMEDYConfig
from .methods.rea.config import REAConfig
from .methods.registry import MethodSpec, available_strategies, get_method
from .methods.secom.config import SeComConfig
from .runtime import RuntimeConfig
from .settings_legacy import LEGACY_NESTED, from_flat, renamed_fields

DEFAULT_DATA_DIR = Path.home() / ".local" / "share" / "rea-studio"
FLAG_TRUE, FLAG_FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def env_flag(name: str, raw: str) -> bool:
    """A boolean value; anything but 1/0, true/false, yes/no, on/off is an error, not a silent default."""
    value = raw.strip().lower()
    if value in FLAG_TRUE:
        return True
    if value in FLAG_FALSE:
        return False
    raise ValueError(f"{name} must be 1 or 0 (true/false); got {raw!r}")


class ReadAtCall:
    """A settings section read again from the environment at each use (``current()``), where a change must take
    effect without a restart (sign-in) or each command reads its own (the annotation store)."""

    @classmethod
    def current(cls):
        return read_section(cls, os.environ)


@dataclass(frozen=True)
class ModelSettings:
    """Which models to load: the packaged offline ones unless told otherwise."""

    model: str = field(
        default="packaged",
        metadata={
            "env": "REA_MODEL",
            "help": "generator: a Hugging Face model id, a folder, `packaged` (SmolLM2-135M-Instruct, offline) or "
            "`openai:<model id>` (an OpenAI-compatible server)",
        },
    )
    embedder: str = field(
        default="packaged",
        metadata={"env": "REA_EMBEDDER", "help": "HCR embedder: model id, folder or `packaged` (all-MiniLM-L6-v2)"},
    )
    recognizer_model: str | None = field(
        default=None,
        metadata={
            "env": "REA_RECOGNIZER_MODEL",
            "help": "the recognizer's classifier LLM (stage 2 `llm`; default: the generator)",
        },
    )
    codec: str = field(
        default="auto",
        metadata={
            "env": "REA_CODEC",
            "help": "latent codec: `auto` (the one shipped for the backbone), `none`, or a codec folder",
        },
    )
    adapter: str = field(
        default="auto",
        metadata={
            "env": "REA_ADAPTER",
            "help": "instruction-following LoRA merged into the generator: `auto` (the one shipped for the packaged "
            "model; none for other models), `none`, or an adapter folder from `rea train instruct`",
        },
    )
    repetition_penalty: float = field(
        default=DEFAULT_DECODING.repetition_penalty,
        metadata={
            "env": "REA_REPETITION_PENALTY",
            "help": "in-process generators: divide the score of a token already in the reply by this (1.0: off)",
        },
    )
    no_repeat_ngram: int = field(
        default=DEFAULT_DECODING.no_repeat_ngram,
        metadata={
            "env": "REA_NO_REPEAT_NGRAM",
            "help": "in-process generators: never repeat an n-gram of this many tokens within a reply (0: off)",
        },
    )
    tokenizer: str | None = field(
        default=None,
        metadata={
            "env": "REA_TOKENIZER",
            "help": "a local tokenizer for an `openai:` model's exact token counts (else estimated)",
        },
    )
    cache_dir: Path = field(
        default=DEFAULT_CACHE_DIR,
        metadata={"env": "REA_CACHE_DIR", "help": "where converted packaged models are kept"},
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "cache_dir", Path(self.cache_dir).expanduser())
        self.decoding()  # out-of-range values fail here, with the setting's name

    def decoding(self) -> Decoding:
        return Decoding(repetition_penalty=self.repetition_penalty, no_repeat_ngram=self.no_repeat_ngram)

    def load_kwargs(self) -> dict[str, Any]:
        """``load_models`` arguments for these settings (the OpenAI client's come from ``OpenAISettings``)."""
        return {
            "model": self.model,
            "embedder": self.embedder,
            "recognizer_model": self.recognizer_model,
            "codec": self.codec,
            "tokenizer": self.tokenizer,
            "cache_dir": self.cache_dir,
            "adapter": self.adapter,
            "decoding": self.decoding(),
        }


@dataclass(frozen=True)
class OpenAISettings:
    """The OpenAI-compatible server behind ``--model openai:<model id>``."""

    base_url: str | None = field(
        default=None,
        metadata={
            "env": "REA_OPENAI_BASE_URL",
            "help": "the server's `/v1` URL (default: the HF router when `HF_TOKEN` is set, else `http://127.0.0.1:8000/v1`)",
        },
    )
    api_key: str | None = field(
        default=None,
        metadata={
            "env": "REA_OPENAI_API_KEY",
            "help": "bearer token for that server (default: `HF_TOKEN`)",
            "secret": True,
        },
    )
    hf_token: str | None = field(
        default=None, metadata={"env": "HF_TOKEN", "help": "a Hugging Face token", "secret": True}
    )
    timeout_s: float = field(
        default=60.0, metadata={"env": "REA_OPENAI_TIMEOUT_S", "help": "seconds without a byte before a call fails"}
    )
    max_retries: int = field(
        default=3, metadata={"env": "REA_OPENAI_MAX_RETRIES", "help": "retries before the first token"}
    )

    def __post_init__(self) -> None:
        if self.timeout_s <= 0 or self.max_retries < 0:
            raise ValueError("the OpenAI timeout must be positive and its retries not negative")


@dataclass(frozen=True)
class AppSettings:
    """The web app's own settings (its limits are ``Limits``)."""

    concurrency: int = field(
        default=1, metadata={"env": "REA_APP_CONCURRENCY", "help": "model calls the app runs at once"}
    )
    host: str | None = field(
        default=None,
        metadata={
            "env": "GRADIO_SERVER_NAME",
            "help": "where the app listens (unset: `127.0.0.1`, or `0.0.0.0` where sign-in is configured)",
        },
    )
    port: int = field(default=7860, metadata={"env": "GRADIO_SERVER_PORT", "help": "the app's port"})

    def __post_init__(self) -> None:
        if self.concurrency < 1 or not 0 < self.port < 65536:
            raise ValueError("REA_APP_CONCURRENCY must be at least 1 and GRADIO_SERVER_PORT a port number")


@dataclass(frozen=True)
class StoreSettings(ReadAtCall):
    """Where the annotation store lives."""

    database_url: str | None = field(
        default=None,
        metadata={
            "env": "REA_DATABASE_URL",
            "help": "annotations database (SQLAlchemy URL; default: SQLite in `REA_DATA_DIR`)",
            "secret": True,
        },
    )
    data_dir: Path = field(
        default=DEFAULT_DATA_DIR,
        metadata={"env": "REA_DATA_DIR", "help": "where the default SQLite file `rea-studio.db` lives"},
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "data_dir", Path(self.data_dir).expanduser())


@dataclass(frozen=True)
class AnnotationSettings(ReadAtCall):
    """How the annotation studio hands out work."""

    double_label_share: float = field(
        default=0.1,
        metadata={
            "env": "REA_DOUBLE_LABEL_SHARE",
            "help": "share of items a second annotator labels early, so agreement is measurable from the first day",
        },
    )

    def __post_init__(self) -> None:
        if not 0.0 <= self.double_label_share <= 1.0:
            raise ValueError("REA_DOUBLE_LABEL_SHARE must be between 0 and 1")


@dataclass(frozen=True)
class AuthSettings(ReadAtCall):
    """Who may sign in to the studio and who adjudicates. Read again at each sign-in (``AuthSettings.current``),
    so an account removed from the file is refused without a restart."""

    auth: str | None = field(
        default=None,
        metadata={"env": "REA_AUTH", "help": "local accounts, `name:password` separated by commas", "secret": True},
    )
    auth_file: str | None = field(
        default=None,
        metadata={"env": "REA_AUTH_FILE", "help": "a file of accounts, one `name:password[:role]` per line"},
    )
    adjudicators: str | None = field(
        default=None,
        metadata={
            "env": "REA_ADJUDICATORS",
            "help": "comma-separated names that may adjudicate, train and switch recognizers",
        },
    )
    annotators: str | None = field(
        default=None,
        metadata={
            "env": "REA_ANNOTATORS",
            "help": "comma-separated names allowed to label (default: every signed-in user)",
        },
    )
    space_id: str | None = field(default=None, metadata={"env": "SPACE_ID", "help": "set by Hugging Face Spaces"})
    oauth_client_id: str | None = field(
        default=None,
        metadata={"env": "OAUTH_CLIENT_ID", "help": "set by Spaces with `hf_oauth: true`: sign in with Hugging Face"},
    )


@dataclass(frozen=True)
class Settings:
    """All settings, by purpose: which models, how strategies are served, each method's own, the app's."""

    models: ModelSettings = field(default_factory=ModelSettings)
    openai: OpenAISettings = field(default_factory=OpenAISettings)
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)
    rea: REAConfig = field(default_factory=REAConfig)
    secom: SeComConfig = field(default_factory=SeComConfig)
    comedy: COMEDYConfig = field(default_factory=COMEDYConfig)
    limits: Limits = field(default_factory=Limits)
    app: AppSettings = field(default_factory=AppSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    annotation: AnnotationSettings = field(default_factory=AnnotationSettings)
    auth: AuthSettings = field(default_factory=AuthSettings)
    # registered methods with a config class but no section above, by name (defaults unless from_env read them)
    methods: Mapping[str, Any] = field(default_factory=lambda: _method_defaults(), hash=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Mapping[str, Any] | None) -> Settings:
        """Defaults, then the environment, then ``overrides`` per section (``rea={"tau_low": 0.3}``, or a
        registered method's name; None values are dropped, so unset command-line options leave the
        environment's value).

        Raises:
            REAError: a malformed or invalid value, naming its variable.
        """
        environ = os.environ if environ is None else environ
        extra = _extra_methods()
        unknown = set(overrides) - {f.name for f in settings_sections()} - {s.name for s in extra}
        if unknown:
            raise TypeError(f"unknown settings sections: {', '.join(sorted(unknown))}")
        return cls(
            **{f.name: read_section(section_class(f), environ, overrides.get(f.name)) for f in settings_sections()},
            methods={s.name: read_section(s.config_class, environ, overrides.get(s.name)) for s in extra},
        )

    def method_config(self, name: str):
        """The method settings of strategy ``name``: its section, or its entry in ``methods`` for a registered
        method without one; None for a method without settings (vanilla) or an unknown name.

        A method registered after these settings were built has no entry: it gets its config's defaults when
        that config reads no variable, and a SettingsError otherwise, never defaults that ignore a set variable.
        """
        spec = _find_method(name)
        if spec is None or spec.config_class is None:
            return None
        held = getattr(self, name) if name in _section_names() else self.methods.get(name)
        if isinstance(held, spec.config_class):
            return held
        if held is not None:
            raise SettingsError(f"method {name!r} shares its name with the settings section {name!r}")
        if _variables(spec.config_class):
            raise SettingsError(
                f"method {name!r} was registered after these settings were read, so its variables "
                f"({', '.join(_variables(spec.config_class))}) were not: register it before Settings.from_env()"
            )
        return spec.config_class()

    def with_section(self, name: str, **values) -> Settings:
        """A copy with some fields of one section (or registered method) replaced
        (``settings.with_section("rea", tau_low=0.3)``)."""
        if name in self.methods and name not in _section_names():
            return replace(self, methods={**self.methods, name: replace(self.methods[name], **values)})
        return replace(self, **{name: replace(getattr(self, name), **values)})

    def with_method_config(self, name: str, config) -> Settings:
        """A copy with method ``name``'s settings replaced whole (``with_method_config("secom", SeComConfig())``).

        Raises:
            TypeError: ``config`` is not that method's config class.
        """
        spec = get_method(name)
        if spec.config_class is None or not isinstance(config, spec.config_class):
            wanted = spec.config_class.__name__ if spec.config_class else "no method config"
            raise TypeError(f"method {name!r} takes {wanted}, got {type(config).__name__}")
        if name in _section_names():
            return replace(self, **{name: config})
        return replace(self, methods={**self.methods, name: config})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Settings from ``to_dict``'s output. Also reads a flat method config saved by earlier releases:
        its ``secom_*`` / ``comedy_*`` keys go to those sections, serving keys to ``runtime``, the rest to ``rea``."""
        data = dict(data)
        sections_held = {f.name for f in fields(cls)} - set(LEGACY_NESTED)
        if not any(isinstance(v, Mapping) and k in sections_held for k, v in data.items()):
            data = from_flat(data)
        data = {key: renamed_fields(key, values) for key, values in data.items()}
        sections = {f.name: _known(section_class(f), data.get(f.name)) for f in settings_sections()}
        saved = data.get("methods") or {}
        methods = {s.name: _known(s.config_class, saved.get(s.name)) for s in _extra_methods()}
        return cls(**sections, methods=methods)

    def to_dict(self) -> dict:
        """The settings as JSON-ready data, secret fields left out (results files record what they ran under;
        ``methods`` only where a registered method has settings outside the sections)."""
        out = {f.name: _public(getattr(self, f.name)) for f in settings_sections()}
        if self.methods:
            out["methods"] = {name: _public(config) for name, config in self.methods.items()}
        return out


def settings_sections() -> list:
    """Settings' typed sections: every field but ``methods``."""
    return [f for f in fields(Settings) if section_class(f) is not None]


def _section_names() -> set[str]:
    return {f.name for f in settings_sections()}


def _find_method(name: str) -> MethodSpec | None:
    return get_method(name) if name in available_strategies() else None


def _extra_methods() -> list[MethodSpec]:
    """Registered methods with a config class and no section of their own in Settings."""
    specs = (get_method(name) for name in available_strategies() if name not in _section_names())
    return [s for s in specs if s.config_class is not None]


def _method_defaults() -> dict[str, Any]:
    return {s.name: s.config_class() for s in _extra_methods()}


def _known(section, values: Mapping[str, Any] | None):
    """One section from saved values, keys it does not have dropped (a results file of another release)."""
    known = {g.name for g in fields(section)}
    return section(**{k: v for k, v in dict(values or {}).items() if k in known})


def _variables(cls) -> list[str]:
    """The environment variables a settings class reads, nested sections included."""
    out = []
    for f in fields(cls):
        nested = section_class(f)
        out += _variables(nested) if nested is not None else [f.metadata["env"]] if f.metadata.get("env") else []
    return out


def read_section(cls, environ: Mapping[str, str], overrides: Mapping[str, Any] | None = None):
    """One settings class from its fields' variables (nested sections too), then ``overrides``."""
    values: dict[str, Any] = {}
    variables = []
    for f in fields(cls):
        nested = section_class(f)
        if nested is not None:
            values[f.name] = read_section(nested, environ)
            continue
        name = f.metadata.get("env")
        raw = environ.get(name) if name else None
        if raw is None or not raw.strip():
            continue
        variables.append(name)
        values[f.name] = _parse(name, raw, _type_name(f))
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, REAError):
            raise
        where = f" (from {', '.join(variables)})" if variables else ""
        raise SettingsError(f"{exc}{where}") from None


def section_class(f):
    """The settings class of a nested section field, or None for a plain value."""
    factory = f.default_factory
    return factory if factory is not MISSING and is_dataclass(factory) else None


def _type_name(f) -> str:
    """The field's type without ``| None`` (annotations are strings under ``from __future__ import annotations``)."""
    name = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    return name.replace(" | None", "").strip()


def _parse(name: str, raw: str, kind: str):
    raw = raw.strip()
    if kind == "bool":
        try:
            return env_flag(name, raw)
        except ValueError as exc:
            raise SettingsError(str(exc)) from None
    try:
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not {'a whole number' if kind == 'int' else 'a number'}") from None
    if kind == "Path":
        return Path(raw).expanduser()
    return raw


def _public(section) -> dict:
    """One section as plain data, without the fields whose metadata marks them secret."""
    return {f.name: _plain(getattr(section, f.name)) for f in fields(section) if not f.metadata.get("secret")}


def _plain(value):
    if is_dataclass(value):
        return {k: _plain(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    return value


def quiet_libraries() -> None:
    """Keep library chatter off the terminal (conversion progress still shows); a caller's own choice wins."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def use_offline_hub() -> None:
    """Packaged models never need the hub: say so before transformers looks for one."""
    os.environ["HF_HUB_OFFLINE"] = "1"


def hub_offline() -> bool:
    """Whether the Hugging Face hub is switched off (``HF_HUB_OFFLINE=1``): nothing can be fetched."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in FLAG_TRUE
