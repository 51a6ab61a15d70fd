"""The app and the annotation studio use the library's public API only: ``rea_core`` and its first-level
modules and packages, and from a package only the names its ``__init__`` lists in ``__all__``. A module
inside a package (``rea_core.recognizer.default``, ``rea_core.evals.qa``) is that package's own business,
so it can be split or renamed without touching the app."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ("app", "annotations")


def rea_core_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every ``import rea_core...`` / ``from rea_core... import`` in ``path``,
    also those inside functions."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("rea_core"):
            found.append((node.lineno, node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names if a.name.startswith("rea_core")]
    return sorted(found)


def client_files() -> list[Path]:
    return sorted(p for folder in CLIENTS for p in (ROOT / folder).rglob("*.py"))


def public_api_breaches() -> list[str]:
    breaches = []
    for path in client_files():
        where = path.relative_to(ROOT)
        for line, module, names in rea_core_imports(path):
            if module.count(".") > 1:
                breaches.append(f"{where}:{line}: {module} is inside a package")
                continue
            target = importlib.import_module(module)
            if not hasattr(target, "__path__"):  # a first-level module: its public names are its own
                breaches += [f"{where}:{line}: {module}.{n} is private" for n in names if n.startswith("_")]
                continue
            exported = set(getattr(target, "__all__", ()))
            breaches += [f"{where}:{line}: {module}.{n} is not in its __all__" for n in names if n not in exported]
    return breaches


def test_the_app_and_the_studio_import_only_the_public_api():
    assert public_api_breaches() == []


@pytest.mark.parametrize(
    "package", ["rea_core", "rea_core.memory", "rea_core.retrieval", "rea_core.recognizer", "rea_core.evals"]
)
def test_every_name_a_package_exports_exists(package):
    module = importlib.import_module(package)
    assert module.__all__ == sorted(set(module.__all__), key=module.__all__.index)  # no name twice
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


def test_the_check_sees_a_reach_into_a_package(tmp_path, monkeypatch):
    """The check is not vacuous: a client file that imports a package's inner module is named."""
    client = tmp_path / "app"
    client.mkdir()
    (client / "view.py").write_text(
        "def f():\n    from rea_core.recognizer.default import provenance_line\n"
        "from rea_core.recognizer import _private\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert public_api_breaches() == [
        "app/view.py:2: rea_core.recognizer.default is inside a package",
        "app/view.py:3: rea_core.recognizer._private is not in its __all__",
    ]
