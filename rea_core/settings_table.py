"""The README's settings table: every ``REA_*`` variable with its section, meaning and default, written from
the settings classes' field metadata (``scripts/settings_table.py``; a test checks the README agrees)."""

from __future__ import annotations

from dataclasses import MISSING, fields
from pathlib import Path

from .methods.rea.config import REAConfig
from .settings import section_class, settings_sections


def settings_table() -> str:
    """The README's table of every variable: section, variable, meaning, default (from the field metadata)."""
    rows = ["| section | variable | meaning | default |", "| --- | --- | --- | --- |"]
    for section in settings_sections():
        rows += _rows(section.name, section_class(section))
    return "\n".join(rows) + "\n"


def _rows(section: str, cls) -> list[str]:
    rows = []
    for f in fields(cls):
        nested = section_class(f)
        if nested is not None:
            rows += _rows(f"{section}.{f.name}", nested)
            continue
        name = f.metadata.get("env")
        if not name:
            continue
        default = "calibrated for the scorer" if (cls is REAConfig and f.name.startswith("tau_")) else _default_text(f)
        rows.append(f"| {section} | `{name}` | {f.metadata['help']} | {default} |")
    return rows


def _default_text(f) -> str:
    value = f.default if f.default is not MISSING else None
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, Path):
        return f"`~/{value.relative_to(Path.home())}`" if value.is_relative_to(Path.home()) else f"`{value}`"
    if isinstance(value, (int, float)):
        return f"{value:g}"
    return f"`{value}`"


TABLE_BEGIN, TABLE_END = "<!-- settings-table:begin -->", "<!-- settings-table:end -->"


def write_readme_table(readme: Path) -> bool:
    """Put ``settings_table()`` between the README's markers; True when the file changed."""
    text = readme.read_text(encoding="utf-8")
    head, _, rest = text.partition(TABLE_BEGIN)
    _, _, tail = rest.partition(TABLE_END)
    new = f"{head}{TABLE_BEGIN}\n{settings_table()}{TABLE_END}{tail}"
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text
