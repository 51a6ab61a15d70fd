"""Marks' conversation contexts, stored once and shared: a hash chain of turns.

Why: a retrieval-failure mark keeps the conversation up to its query, so the marks export as
retrieval test cases. Stored whole in each mark, 30 marks on an 800-turn conversation took 16.5 MB.
Here a context of n turns is one row (its last turn) pointing at the context of its first n-1
turns, keyed by a sha256 over that parent's key and the turn. Equal contexts are one row, and
contexts that share a prefix (marks at different query turns of one conversation) share its rows;
the store grows with the distinct turns marked, not with the marks.

The text a mark reads back is ``json.dumps(turns, ensure_ascii=False)``, the form the app wrote
into the mark itself before contexts were shared.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, TableClause, insert, select
from sqlalchemy.orm import Session

from .models import MarkContext

CHUNK = 500  # hashes per IN (...) list: well under SQLite's and PostgreSQL's parameter limits


@dataclass(frozen=True)
class ContextRow:
    """One stored context: its key, the key of the context one turn shorter (None for one turn), its last turn."""

    sha256: str
    parent: str | None
    turn: str  # JSON of one turn record


def node_key(parent: str | None, turn: str) -> str:
    """The sha256 of a context: its parent's key and its last turn's JSON (surrogates kept, never an error)."""
    return hashlib.sha256(f"{parent or ''}\n{turn}".encode("utf-8", "surrogatepass")).hexdigest()


def parse_turns(context: str | list | None) -> list[Any] | None:
    """A mark's context as a list of turns: JSON text or a list; None or an empty list mean no context.

    Raises:
        TypeError: Not a JSON list.
    """
    if context is None:
        return None
    turns = context
    if isinstance(context, str):
        try:
            turns = json.loads(context)
        except ValueError as exc:
            raise TypeError(f"a mark's context must be a JSON list of turns ({exc})") from None
    if not isinstance(turns, list):
        raise TypeError(f"a mark's context must be a JSON list of turns; got {type(turns).__name__}")
    return turns or None


def chain(turns: list[Any]) -> list[ContextRow]:
    """The rows of a context, its first turn first; the last row's key is the whole context's."""
    rows, parent = [], None
    for turn in turns:
        text = json.dumps(turn, ensure_ascii=False)
        key = node_key(parent, text)
        rows.append(ContextRow(key, parent, text))
        parent = key
    return rows


def _chunks(items: list[str]) -> list[list[str]]:
    return [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]


def store_context(db: Session | Connection, turns: list[Any], table: Table | TableClause | None = None) -> str:
    """Store a context's missing rows (inside the caller's transaction); returns its key.

    A context whose row exists has every row before it too (each points at its parent), so only
    the rows not found are written, parents first. ``table``: the contexts table as a migration
    spells it (default: the model's).
    """
    rows = chain(turns)
    table = MarkContext.__table__ if table is None else table
    found: set[str] = set()
    for part in _chunks([r.sha256 for r in rows]):
        found.update(db.execute(select(table.c.sha256).where(table.c.sha256.in_(part))).scalars())
    missing = [{"sha256": r.sha256, "parent": r.parent, "turn": r.turn} for r in rows if r.sha256 not in found]
    if missing:
        db.execute(insert(table), missing)  # in chain order: each parent is written before its child
    return rows[-1].sha256


def load_contexts(
    db: Session | Connection, keys: set[str], table: Table | TableClause | None = None
) -> dict[str, str]:
    """The context text of each key, read in one recursive query per chunk of keys.

    Raises:
        ValueError: A key's chain is broken or loops (the database was edited by hand).
    """
    table = MarkContext.__table__ if table is None else table
    nodes: dict[str, tuple[str | None, str]] = {}
    for part in _chunks(sorted(keys)):
        heads = select(table.c.sha256, table.c.parent, table.c.turn).where(table.c.sha256.in_(part))
        walk = heads.cte("context_chain", recursive=True)
        walk = walk.union(
            select(table.c.sha256, table.c.parent, table.c.turn).join(walk, table.c.sha256 == walk.c.parent)
        )
        for key, parent, turn in db.execute(select(walk.c.sha256, walk.c.parent, walk.c.turn)):
            nodes[key] = (parent, turn)
    return {key: assemble(nodes, key) for key in keys}


def assemble(nodes: dict[str, tuple[str | None, str]], key: str) -> str:
    """The JSON text of the context ``key`` from its rows (``json.dumps`` of the list of turns).

    Raises:
        ValueError: A row is missing or the chain loops.
    """
    turns: list[str] = []
    seen: set[str] = set()
    current: str | None = key
    while current is not None:
        if current in seen or current not in nodes:
            raise ValueError(f"mark context {key[:12]}… is broken at row {current[:12]}…")
        seen.add(current)
        current, turn = nodes[current]
        turns.append(turn)
    return "[" + ", ".join(reversed(turns)) + "]"  # json.dumps' own list separator
