"""Saving, checking and finding trained codecs (both adapters, compression tokens, projector).

A codec folder holds ``codec.safetensors`` (every trained tensor, float16) and ``codec.json``
(its ``CodecSpec`` and how it was trained), and optionally ``measurements.json`` (what
``rea eval compression`` measured for each compressed form on this backbone: ``forms.py``).
Codecs for the packaged backbone ship inside the package under ``rea_core/adapters/<backbone>/``
and load by default when the backbone matches.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from ..errors import ModelLoadError
from .codec import CodecSpec, DualLoRACodec

WEIGHTS, META, MEASUREMENTS = "codec.safetensors", "codec.json", "measurements.json"


class AdapterMismatchError(ModelLoadError):
    """A codec trained for another backbone, hidden size or latent count."""


def backbone_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def shipped_codec_dir(backbone: str) -> Path | None:
    """The codec folder shipped for ``backbone``, or None when the package has none."""
    folder = Path(str(resources.files("rea_core").joinpath("adapters", backbone_slug(backbone))))
    return folder if (folder / META).is_file() and (folder / WEIGHTS).is_file() else None


def save_codec(
    codec: DualLoRACodec, folder: str | Path, *, provenance: dict | None = None, dtype: str = "float16"
) -> Path:
    import torch
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cast = getattr(torch, dtype)
    state = {k: v.detach().to("cpu", cast).contiguous() for k, v in codec.state_dict().items()}
    save_file(state, str(folder / (WEIGHTS + ".tmp")))
    (folder / (WEIGHTS + ".tmp")).chmod(
        0o644
    )  # safetensors writes 0600; a shipped codec must be readable by the app's user
    (folder / (WEIGHTS + ".tmp")).replace(folder / WEIGHTS)
    meta = {"format": "rea-codec", "version": 1, "spec": codec.spec.to_dict(), "provenance": provenance or {}}
    (folder / META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return folder


def read_spec(folder: str | Path) -> tuple[CodecSpec, dict]:
    folder = Path(folder)
    try:
        meta = json.loads((folder / META).read_text(encoding="utf-8"))
        if meta.get("format") != "rea-codec":
            raise ValueError("not a rea-codec file")
        return CodecSpec(**meta["spec"]), meta.get("provenance", {})
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelLoadError(f"{folder} is not a REA codec folder ({META} + {WEIGHTS}): {exc}") from exc


def check_compatible(spec: CodecSpec, generator, *, n_latent: int | None = None, folder: Path | str = "") -> None:
    """Refuse a codec made for another backbone, hidden size or latent count, naming both sides."""
    hidden = generator.model.config.hidden_size
    where = f" ({folder})" if folder else ""
    if spec.backbone != generator.name:
        raise AdapterMismatchError(
            f"Codec{where} was trained for backbone '{spec.backbone}', but the generator is '{generator.name}'."
        )
    if spec.hidden_size != hidden:
        raise AdapterMismatchError(
            f"Codec{where} has hidden size {spec.hidden_size}, but '{generator.name}' has {hidden}."
        )
    if n_latent is not None and spec.n_latent != n_latent:
        raise AdapterMismatchError(
            f"Codec{where} makes {spec.n_latent} latent vectors per reply, but {n_latent} were asked for."
        )


def load_codec(generator, folder: str | Path, *, n_latent: int | None = None) -> DualLoRACodec:
    """A codec on ``generator``'s backbone from a saved folder; refuses incompatible ones."""
    from safetensors.torch import load_file

    folder = Path(folder)
    spec, provenance = read_spec(folder)
    check_compatible(spec, generator, n_latent=n_latent, folder=folder)
    codec = DualLoRACodec(generator, spec, provenance=provenance, measurements=read_measurements(folder))
    try:
        codec.load_state_dict(load_file(str(folder / WEIGHTS)))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"Cannot load codec weights from {folder / WEIGHTS}: {exc}") from exc
    return codec


def read_measurements(folder: str | Path) -> dict | None:
    """The measurements record shipped with a codec, or None; a damaged one is an error, not ignored."""
    from .forms import FORMS_FORMAT

    path = Path(folder) / MEASUREMENTS
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("format") != FORMS_FORMAT or not isinstance(record.get("forms"), dict):
            raise ValueError(f"not a {FORMS_FORMAT} record")
    except (OSError, ValueError, AttributeError) as exc:
        raise ModelLoadError(f"{path} is damaged: {exc}") from exc
    return record


def write_measurements(folder: str | Path, record: dict) -> Path:
    path = Path(folder) / MEASUREMENTS
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path
