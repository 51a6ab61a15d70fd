"""Benchmark: the app under 8 concurrent sessions, and the server time of a slider move.

Launches the real app on a loopback port with the packaged models, then
  1. 8 gradio_client sessions send 10 turns each at once (both columns answer every turn):
     p50 / p95 of the client-observed reply latency (send -> both replies back), and a leakage
     check (each session's secret word must appear in its own pages only);
  2. builds a 200-exchange conversation (replayed with given replies), loads it into a session
     and measures a tau move: the server-side handler time (re-decide both columns from cached
     scores + prompt views + charts, no model call) and the client round trip. Target < 100 ms.

  3. with ``--tracer-turns N``: the chat phase again with one more client that uploads an
     N-turn conversation to Inspect and traces it meanwhile; the others' p95 with and without it.

Run: .venv/bin/python benchmarks/app_load.py [--sessions 8] [--turns 10] [--max-new-tokens 32] [--tracer-turns 800]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import tempfile
import threading
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import numpy as np  # noqa: E402
from gradio_client import Client, handle_file  # noqa: E402

from app.main import launch  # noqa: E402
from app.state import AppEngine  # noqa: E402
from app.tabs.compare import handlers  # noqa: E402
from rea_core import RuntimeConfig, Settings, Thresholds, load_models

TOPICS = [
    "gardening",
    "chess openings",
    "the French revolution",
    "bread baking",
    "jazz piano",
    "volcanoes",
    "marathon training",
    "tax forms",
    "black holes",
    "knitting",
    "sourdough",
    "the Roman empire",
    "python decorators",
    "coffee roasting",
    "sailing knots",
    "bird migration",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def session_run(url: str, secret: str, turns: int, latencies: list[float], pages: dict, errors: list) -> None:
    try:
        client = Client(url, verbose=False)
        out = None
        for i in range(turns):
            text = (
                f"My code word is {secret}. Question {i}: tell me one "
                f"fact about {TOPICS[(i + hash(secret)) % len(TOPICS)]}."
            )
            start = time.perf_counter()
            client.predict(text, api_name="/accept_message")
            out = client.predict(0.5, 0.7, api_name="/generate_replies")
            latencies.append(time.perf_counter() - start)
        pages[secret] = json.dumps(out[:4])
    except Exception as exc:  # reported at the end
        errors.append(f"{secret}: {type(exc).__name__}: {exc}")


def chat_phase(url: str, sessions: int, turns: int) -> tuple[list[float], dict, list, float]:
    """``sessions`` clients chatting at once; (latencies, last pages, errors, wall seconds)."""
    latencies: list[float] = []
    pages: dict[str, str] = {}
    errors: list[str] = []
    secrets = [f"SECRET{i:02d}X" for i in range(sessions)]
    start = time.perf_counter()
    threads = [threading.Thread(target=session_run, args=(url, s, turns, latencies, pages, errors)) for s in secrets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, pages, errors, time.perf_counter() - start


def tracer_run(url: str, n_turns: int, result: dict) -> None:
    """One client uploading an ``n_turns`` conversation to Inspect and tracing it."""
    path = os.path.join(tempfile.mkdtemp(), "long.jsonl")
    turns = [
        {
            "user": f"Turn {i}: what should I know about {TOPICS[i % len(TOPICS)]}?",
            "assistant": f"Some facts about {TOPICS[i % len(TOPICS)]}. It has a long history. Turn {i} ends here.",
        }
        for i in range(n_turns)
    ]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "long", "turns": turns}) + "\n")
    try:
        client = Client(url, verbose=False)
        start = time.perf_counter()
        client.predict(handle_file(path), api_name="/inspect_upload")
        status = client.predict("long", 0.5, 0.7, api_name="/trace")
        result["seconds"] = time.perf_counter() - start
        result["status"] = json.dumps(status)[:200]
    except Exception as exc:  # reported at the end
        result["error"] = f"{type(exc).__name__}: {exc}"


def long_conversation_file(engine: AppEngine, n: int) -> str:
    columns = [engine.new_column("rea"), engine.new_column("vanilla")]
    rng = np.random.default_rng(0)
    for i in range(n):
        topic = TOPICS[int(rng.integers(len(TOPICS)))]
        for column in columns:
            handlers.respond_column(
                engine,
                column,
                f"Turn {i}: what should I know about {topic}?",
                Thresholds(0.5, 0.7),
                reply=f"Here are some facts about {topic}. It has a long "
                f"history. Many people enjoy it. Turn {i} ends here.",
            )
    return handlers.save_columns(engine, columns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--exchanges", type=int, default=200)
    parser.add_argument(
        "--tracer-turns",
        type=int,
        default=0,
        help="also rerun the chats while one client traces an upload of this many turns",
    )
    parser.add_argument("--skip-slider", action="store_true", help="stop after the chat phases")
    args = parser.parse_args()

    engine = AppEngine(
        models=load_models(),
        settings=Settings(runtime=RuntimeConfig(max_new_tokens=args.max_new_tokens)),
        database_url=f"sqlite:///{tempfile.mkdtemp()}/bench.db",
    )
    port = free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        latencies, pages, errors, wall = chat_phase(url, args.sessions, args.turns)
        secrets = list(pages)
        leaks = sum(other in page for s, page in pages.items() for other in secrets if other != s)
        missing = sum(s not in page for s, page in pages.items())
        print(
            f"{args.sessions} sessions x {args.turns} turns (both columns, "
            f"max_new_tokens {args.max_new_tokens}, concurrency {engine.concurrency}): "
            f"{len(latencies)} replies in {wall:.1f} s"
        )
        print(
            f"reply latency p50 {statistics.median(latencies):.2f} s, "
            f"p95 {np.percentile(latencies, 95):.2f} s, max {max(latencies):.2f} s"
        )
        print(f"cross-session leaks: {leaks}; sessions missing their own text: {missing}; errors: {len(errors)}")
        for e in errors:
            print("  ", e)
        if args.tracer_turns:
            traced: dict = {}
            tracer = threading.Thread(target=tracer_run, args=(url, args.tracer_turns, traced))
            tracer.start()
            time.sleep(2)  # the upload is in and the trace has started when the chats begin
            with_tracer, _, errors2, wall2 = chat_phase(url, args.sessions, args.turns)
            tracer.join()
            base95, load95 = np.percentile(latencies, 95), np.percentile(with_tracer, 95)
            print(
                f"with one client tracing a {args.tracer_turns}-turn upload: "
                f"{len(with_tracer)} replies in {wall2:.1f} s, "
                f"p50 {statistics.median(with_tracer):.2f} s, "
                f"p95 {load95:.2f} s = {load95 / base95:.2f}x the p95 without it "
                f"(target <= 1.5x); errors {len(errors2)}; "
                f"trace {traced.get('seconds', float('nan')):.1f} s {traced.get('error', '')}"
            )
        if args.skip_slider:
            return

        path = long_conversation_file(engine, args.exchanges)
        columns = handlers.load_columns(engine, path)
        for column in columns:  # what a loaded conversation holds after one more turn: a cached latest query
            handlers.respond_column(
                engine, column, "What should I know about volcanoes and bread?", Thresholds(0.5, 0.7), reply="Facts."
            )
        server_ms = []
        for k in range(30):
            lo, hi = (0.3, 0.6) if k % 2 else (0.45, 0.75)
            t = time.perf_counter()
            for column in columns:
                handlers.column_views(engine, column, Thresholds(lo, hi))
            server_ms.append((time.perf_counter() - t) * 1000)
        client = Client(url, verbose=False)
        client.predict(handle_file(path), 0.5, 0.7, api_name="/load_conversation")
        client.predict("What should I know about volcanoes and bread?", api_name="/accept_message")
        client.predict(0.5, 0.7, api_name="/generate_replies")
        round_ms = []
        for k in range(20):
            t = time.perf_counter()
            client.predict(0.3 if k % 2 else 0.45, 0.75, api_name="/set_thresholds")
            round_ms.append((time.perf_counter() - t) * 1000)
        print(
            f"slider move on a {args.exchanges}-exchange conversation (both "
            f"columns): server {statistics.median(server_ms):.1f} ms median, "
            f"p95 {np.percentile(server_ms, 95):.1f} ms; client round trip {statistics.median(round_ms):.1f} ms median"
        )
    finally:
        demo.close()


if __name__ == "__main__":
    main()
