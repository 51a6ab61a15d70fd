"""Benchmark: how much 30 retrieval-failure marks on one long conversation grow the annotations database,
with each mark keeping its own copy of the context (schema 0003) and with contexts stored once (0004,
``annotations.contexts``).

Two ways of marking, 30 marks each, on one conversation of ``--turns`` exchanges:
  * same-query: 30 omitted exchanges marked at the last query turn (every mark has the same context);
  * per-query:  one mark at each of the last 30 query turns (contexts are prefixes of each other).

"0003" writes the rows as the store did before 0004 (the whole context JSON in each mark's row);
"0004" writes through ``annotations.add_failure_mark``. Bytes are the SQLite file after a WAL
checkpoint (page-granular), and on PostgreSQL (``--postgres URL``) the total relation size of the
marks and contexts tables.

Run: .venv/bin/python benchmarks/marks_storage.py [--turns 300] [--chars 900] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import random
import string
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from annotations import add_failure_mark, create_db_engine, session_factory, upgrade

MARKS = 30
INSERT_0003 = text(
    "INSERT INTO retrieval_failure_marks (created_at, annotator, conversation_id, query_turn, exchange_turn, "
    "query_text, exchange_user, exchange_reply, score, tau_low, tau_high, note, source, context) VALUES "
    "(:created_at, :annotator, :conversation_id, :query_turn, :exchange_turn, :query_text, :exchange_user, "
    ":exchange_reply, :score, :tau_low, :tau_high, :note, :source, :context)"
)


def conversation(turns: int, chars: int, seed: int = 0) -> list[dict]:
    """A long conversation of distinct turns, ``chars`` characters per user message and per reply, of
    seeded pseudo-words (so PostgreSQL's TOAST compression finds about as little to share as in real text)."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(3000)]

    def text_of(i: int, who: str) -> str:
        out = [f"{who} {i}:"]
        while sum(len(w) + 1 for w in out) < chars:
            out.append(rng.choice(vocabulary))
        return " ".join(out)[:chars]

    return [{"user": text_of(i, "user"), "assistant": text_of(i, "assistant")} for i in range(turns)]


def plan(talk: list[dict], how: str) -> list[tuple[int, int]]:
    """(query turn, exchange turn) of the 30 marks."""
    last = len(talk) - 1
    if how == "same-query":
        return [(last, e) for e in range(MARKS)]
    return [(q, 0) for q in range(last - MARKS + 1, last + 1)]


def fields(talk: list[dict], query: int, exchange: int) -> dict:
    return dict(
        annotator="anonymous",
        conversation_id="long",
        query_turn=query,
        exchange_turn=exchange,
        query_text=talk[query]["user"],
        exchange_user=talk[exchange]["user"],
        exchange_reply=talk[exchange]["assistant"],
        score=0.1,
        tau_low=0.3,
        tau_high=0.7,
        note="",
        source="long.jsonl",
        context=json.dumps(talk[: query + 1], ensure_ascii=False),
    )


def write(url: str, schema: str, talk: list[dict], how: str) -> float:
    """Write the 30 marks under ``schema``; returns seconds per mark."""
    engine = create_db_engine(url)
    upgrade(engine, schema)
    start = time.perf_counter()
    if schema == "0003":
        for q, e in plan(talk, how):  # one transaction per mark, as the store commits each
            with engine.begin() as c:
                c.execute(INSERT_0003, {**fields(talk, q, e), "created_at": "2027-01-01 00:00:00+00:00"})
    else:
        Session = session_factory(engine)
        for q, e in plan(talk, how):
            with Session() as s:
                add_failure_mark(s, **fields(talk, q, e))
    seconds = (time.perf_counter() - start) / MARKS
    engine.dispose()
    return seconds


def sqlite_bytes(path: Path) -> int:
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as c:
        c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path.stat().st_size


def postgres_bytes(url: str) -> int:
    engine = create_engine(url)
    with engine.connect() as c:
        tables = [t for t in ("retrieval_failure_marks", "mark_contexts") if t in c.dialect.get_table_names(c)]
        total = sum(c.execute(text(f"SELECT pg_total_relation_size('{t}')")).scalar_one() for t in tables)
    engine.dispose()
    return total


def postgres_database(base: str):
    """A throwaway database on the server ``base`` points at, dropped afterwards."""
    name = f"rea_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(make_url(base), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--chars", type=int, default=900, help="characters per user message and per reply")
    parser.add_argument("--postgres", help="a PostgreSQL server URL (a throwaway database is made on it)")
    args = parser.parse_args()
    talk = conversation(args.turns, args.chars)
    context_kb = len(json.dumps(talk, ensure_ascii=False).encode()) / 1024
    print(f"conversation: {args.turns} turns, {context_kb:.0f} KB of context JSON at the last query turn")
    print(
        f"{'backend':<10} {'marking':<11} {'schema':<7} {'empty B':>10} {'30 marks B':>12} {'growth B':>11} "
        f"{'per mark B':>11} {'ms/mark':>8}"
    )
    for how in ("same-query", "per-query"):
        for schema in ("0003", "0004"):
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "marks.db"
                engine = create_db_engine(f"sqlite:///{path}")
                upgrade(engine, schema)
                engine.dispose()
                empty = sqlite_bytes(path)
                seconds = write(f"sqlite:///{path}", schema, talk, how)
                full = sqlite_bytes(path)
            print(
                f"{'sqlite':<10} {how:<11} {schema:<7} {empty:>10,} {full:>12,} {full - empty:>11,} "
                f"{(full - empty) // MARKS:>11,} {seconds * 1000:>8.1f}"
            )
            if args.postgres:
                for url in postgres_database(args.postgres):
                    upgrade(url, schema)
                    empty = postgres_bytes(url)
                    seconds = write(url, schema, talk, how)
                    full = postgres_bytes(url)
                print(
                    f"{'postgres':<10} {how:<11} {schema:<7} {empty:>10,} {full:>12,} {full - empty:>11,} "
                    f"{(full - empty) // MARKS:>11,} {seconds * 1000:>8.1f}"
                )


if __name__ == "__main__":
    main()
