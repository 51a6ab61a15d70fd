"""Settings saved by earlier releases: a flat method config (one dict for REA, its serving and both
baselines) read into today's sections by ``Settings.from_dict``, so old results files still load."""

from __future__ import annotations

from dataclasses import fields
from typing import Mapping

from .runtime import RuntimeConfig

LEGACY_NAMES = {  # fields of a flat config of earlier releases that were renamed: old -> (new, value map)
    "latent_replies": ("reply_form", {None: "auto", True: "latent", False: "text"}),
    "compressed_form": ("text_compression", None),
}
# Fields of a section renamed since: section -> {old name: new name}.
RENAMED_FIELDS = {"comedy": {"session_turns": "sitting_turns"}}
# The method groups a flat config of earlier releases nested, as a dict or as ``<group>_*`` keys: a record of
# that file format, fixed; methods registered today are saved under their own section or ``methods``.
LEGACY_NESTED = ("secom", "comedy")


def from_flat(flat: dict) -> dict:
    """A flat REAConfig dict of earlier releases as sections (renamed fields mapped to their new names)."""
    out: dict[str, dict] = {**{group: {} for group in LEGACY_NESTED}, "runtime": {}, "rea": {}}
    runtime = {f.name for f in fields(RuntimeConfig)}
    for key, value in flat.items():
        if key in LEGACY_NESTED and isinstance(value, Mapping):
            out[key].update(value)
        elif key.startswith(tuple(f"{group}_" for group in LEGACY_NESTED)):
            group, _, name = key.partition("_")
            out[group][name] = value
        elif key in runtime:
            out["runtime"][key] = value
        elif key in LEGACY_NAMES:
            name, mapping = LEGACY_NAMES[key]
            out["rea"][name] = mapping.get(value, value) if mapping else value
        else:
            out["rea"][key] = value
    return out


def renamed_fields(section: str, values: Mapping | None) -> Mapping | None:
    """A saved section with its renamed fields under their new names."""
    names = RENAMED_FIELDS.get(section)
    if not names or not isinstance(values, Mapping):
        return values
    return {names.get(k, k): v for k, v in values.items()}
