"""The library's dependency direction: app and annotations depend on rea_core, never the reverse,
and rea_core's modules import one another without cycles.

Every import counts, also those inside functions (a lazy import is still a dependency) and those
under ``if TYPE_CHECKING:`` (a type-only cycle still ties the modules together for a reader).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rea_core"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Absolute names of the modules ``path`` imports (a ``from pkg import sub`` names ``pkg.sub`` when that
    is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
            found.update(subs or [target])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports(path, name, known) for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among the keys of ``edges`` (depth-first search), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := dfs(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := dfs(node)):
            return cycle
    return None


def test_the_library_never_imports_the_app_or_the_annotation_store():
    offenders = sorted(
        f"{name} imports {dep}"
        for name, deps in graph().items()
        for dep in deps
        if dep.split(".")[0] in ("app", "annotations")
    )
    assert offenders == []


def test_the_library_has_no_import_cycle():
    edges = graph()
    internal = {name: {d for d in deps if d in edges and d != name} for name, deps in edges.items()}
    # The top-level package only re-exports the public API; modules inside it never import it.
    assert not [name for name, deps in internal.items() if "rea_core" in deps], (
        "a module imports the top-level rea_core package"
    )
    assert find_cycle(internal) is None, " -> ".join(find_cycle(internal) or [])


def test_the_checks_see_lazy_imports_and_cycles(tmp_path):
    """The checker itself: lazy and type-checking imports are found, and a two-module cycle is reported."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    import hidden\n\ndef f():\n    from app.main import launch\n"
    )
    assert imports(module, "m", set()) == {"typing", "hidden", "app.main"}
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_only_the_settings_module_reads_the_environment():
    """Every setting is read once, in rea_core/settings.py; everything else receives values."""
    offenders = sorted(
        name
        for name, path in modules().items()
        if name != "rea_core.settings"
        and ("os.environ" in (text := path.read_text(encoding="utf-8")) or "getenv" in text)
    )
    assert offenders == []


def test_memory_and_text_sit_below_retrieval():
    """Episodic Memory and the text helpers need words and BM25 (``rea_core.lexical``), not retrieval:
    retrieval reads memory, never the reverse."""
    edges = graph()
    lower = [m for m in edges if m == "rea_core.text" or m.startswith(("rea_core.memory", "rea_core.lexical"))]
    upward = {m: sorted(i for i in edges[m] if i.startswith("rea_core.retrieval")) for m in lower}
    assert not any(upward.values()), upward
