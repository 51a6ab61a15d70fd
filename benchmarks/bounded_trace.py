"""Benchmark: short Compare replies beside a maximal Inspect trace, against the same replies alone.

Launches the real app on a loopback port with the packaged models and the shipped limits (token
cap, reply and trace budgets, ``REA_TRACE_SHARE``, the model gate), then
  1. one gradio_client session sends ``--replies`` short messages, one after another (both columns
     answer each): the client-observed latency of each (send -> both replies back);
  2. a second client uploads a conversation of ``--trace-turns`` turns of ``--turn-chars``
     characters each (user text and reply half each; by default 150 x 30,000 characters, 4.5 MB,
     the security review's file, within every limit) to Inspect and traces it; once the trace
     runs, the first client sends the same number of messages again.
Prints p50 / p95 of both phases, their ratio (target <= 1.5x) and how the trace ended.

Run: .venv/bin/python benchmarks/bounded_trace.py [--replies 10] [--trace-turns 150] [--turn-chars 30000]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import numpy as np  # noqa: E402
from chat_beside import WORDS, CountingGate, free_port, replies, summary  # noqa: E402
from gradio_client import Client, handle_file  # noqa: E402

from app.main import launch  # noqa: E402
from app.state import AppEngine  # noqa: E402
from rea_core import Settings, load_models  # noqa: E402


def text_of(rng: np.random.Generator, chars: int) -> str:
    words, size = [], 0
    while size < chars:
        word = WORDS[int(rng.integers(len(WORDS)))]
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:chars]


def trace_file(turns: int, chars: int) -> str:
    rng = np.random.default_rng(0)
    path = os.path.join(tempfile.mkdtemp(), "maximal.jsonl")
    rows = [{"user": text_of(rng, chars // 2), "assistant": text_of(rng, chars - chars // 2)} for _ in range(turns)]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "maximal", "turns": rows}) + "\n")
    return path


def tracer(url: str, path: str, result: dict) -> None:
    try:
        client = Client(url, verbose=False)
        client.predict(handle_file(path), api_name="/inspect_upload")
        result["started"] = time.perf_counter()
        out = client.predict("maximal", 0.2, 0.36, api_name="/trace")
        result["seconds"] = time.perf_counter() - result["started"]
        result["status"] = next((o for o in out if isinstance(o, str) and ("Traced" in o or "Stopped" in o)), "")
    except Exception as exc:  # reported at the end
        result["error"] = f"{type(exc).__name__}: {exc}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=10)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--trace-turns", type=int, default=150)
    parser.add_argument("--turn-chars", type=int, default=30_000)
    parser.add_argument("--warmup-s", type=float, default=10.0, help="seconds the trace runs before the replies")
    parser.add_argument("--no-gate", action="store_true", help="let trace turns run beside chats (pacing only)")
    parser.add_argument("--wait-s", type=float, default=0.0, help="seconds to wait for the trace's end afterwards")
    args = parser.parse_args()

    settings = Settings.from_env()
    engine = AppEngine(
        models=load_models(),
        settings=settings.with_section("runtime", max_new_tokens=args.max_new_tokens),
        database_url=f"sqlite:///{tempfile.mkdtemp()}/bench.db",
    )
    gate = engine.gate = CountingGate(wait=not args.no_gate)
    port = free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        chatter = Client(url, verbose=False)
        replies(chatter, 2)  # warm-up: first calls load lazy parts
        alone = replies(chatter, args.replies)
        print(summary("without a trace", alone), flush=True)
        path = trace_file(args.trace_turns, args.turn_chars)
        size = os.path.getsize(path) / 2**20
        traced: dict = {}
        thread = threading.Thread(target=tracer, args=(url, path, traced), daemon=True)
        thread.start()
        while "started" not in traced and "error" not in traced:
            time.sleep(0.2)
        time.sleep(args.warmup_s)
        before = gate.steps
        beside = replies(chatter, args.replies)
        print(summary("beside the trace", beside), flush=True)
        print(
            f"trace turns started: {before} before the replies, {gate.steps - before} during them "
            f"({'gate on' if gate.wait else 'no gate: pacing only'})"
        )
        ratio = np.percentile(beside, 95) / np.percentile(alone, 95)
        print(
            f"trace file: {args.trace_turns} turns x {args.turn_chars:,} characters ({size:.1f} MB); "
            f"p95 ratio {ratio:.2f}x (target <= 1.5x); trace still running after the replies: {thread.is_alive()}"
        )
        thread.join(args.wait_s)
        if "seconds" in traced or "error" in traced:
            print(f"trace: {traced.get('status') or traced.get('error')} ({traced.get('seconds', 0):.0f} s wall)")
        else:
            running = time.perf_counter() - traced["started"]
            print(f"trace: still running {running:.0f} s after it started (not waited for)")
        limits = engine.limits
        print(
            f"limits: REA_TRACE_BUDGET_S {limits.trace_budget_s:g}, REA_TRACE_SHARE {limits.trace_share:g}, "
            f"REA_REPLY_BUDGET_S {limits.reply_budget_s:g}, REA_MAX_MESSAGE_TOKENS {limits.max_message_tokens}, "
            f"concurrency {engine.concurrency}; load average {os.getloadavg()[0]:.1f}"
        )
    finally:
        demo.close()


if __name__ == "__main__":
    main()
