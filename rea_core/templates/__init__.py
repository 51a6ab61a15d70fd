"""Prompt templates as Markdown files; ``load_template("comedy_task1")`` reads ``comedy_task1.md``."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def load_template(name: str) -> str:
    """The template ``<name>.md`` shipped in this package, stripped; placeholders are ``{name}``."""
    return resources.files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8").strip()


def fill(template: str, **values: str) -> str:
    """Replace ``{key}`` placeholders (plain replacement: braces in the values are left alone)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template
