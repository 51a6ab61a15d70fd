"""Benchmark: a Compare chat's time while Inspect re-checks one user's ``--marks`` retrieval-failure marks,
against the same chat alone (issue acceptance: under 1.5x its quiet time).

Launches the real app on a loopback port with the packaged models, the shipped limits (re-check budget,
``REA_TRACE_SHARE`` pacing, the chats-first model gate) and sign-in (two accounts), then
  1. stores ``--marks`` marks for "marker" in the app's database, as Inspect stores them (each with its
     conversation up to the query): ``--conversations`` conversations of ``--turns`` turns, the marks
     spread over their last query turns;
  2. "chatter" sends ``--replies`` short messages, one after another (both columns answer each): each
     one's client-observed seconds (send -> both replies back);
  3. "marker" starts "Re-check marks"; once it runs, "chatter" sends the same messages again.
Prints p50 / p95 / max of both phases, the p95 and median ratios (target < 1.5x), the re-check's steps
during the chats, and how the re-check ended.

Run: .venv/bin/python benchmarks/marks_recheck.py [--marks 500] [--conversations 5] [--turns 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import numpy as np  # noqa: E402
from chat_beside import WORDS, CountingGate, free_port, replies, summary  # noqa: E402
from gradio_client import Client  # noqa: E402

from annotations import add_failure_mark  # noqa: E402
from app.main import launch  # noqa: E402
from app.state import AppEngine  # noqa: E402
from rea_core import Settings, load_models  # noqa: E402


def conversation(seed: int, turns: int, chars: int) -> list[dict]:
    rng = np.random.default_rng(seed)

    def text() -> str:
        return " ".join(WORDS[int(i)] for i in rng.integers(len(WORDS), size=max(1, chars // 7)))[:chars]

    return [{"user": f"{i}: {text()}", "assistant": text()} for i in range(turns)]


def store_marks(engine: AppEngine, annotator: str, marks: int, conversations: int, turns: int, chars: int) -> int:
    """``marks`` marks of ``annotator`` over ``conversations`` conversations: per conversation, marks at its
    last query turns, each naming up to 4 earlier exchanges. Returns the marked query turns."""
    per = -(-marks // conversations)
    queries, stored = 0, 0
    with engine.db() as db:
        for c in range(conversations):
            talk = conversation(c, turns, chars)
            left = min(per, marks - stored)
            pairs = [(q, e) for q in range(turns - 1, 0, -1) for e in range(min(4, q))][:left]
            queries += len({q for q, _ in pairs})
            for q, e in pairs:
                add_failure_mark(
                    db,
                    annotator=annotator,
                    conversation_id=f"bench-{c}",
                    query_turn=q,
                    exchange_turn=e,
                    query_text=talk[q]["user"],
                    exchange_user=talk[e]["user"],
                    exchange_reply=talk[e]["assistant"],
                    score=0.1,
                    tau_low=0.2,
                    tau_high=0.36,
                    source="bench.jsonl",
                    context=json.dumps(talk[: q + 1]),
                )
            stored += len(pairs)
    return queries


def rechecker(marker: Client, result: dict) -> None:
    try:
        job = marker.submit(0.2, 0.36, api_name="/recheck_marks")
        result["started"] = time.perf_counter()
        result["text"] = job.result(timeout=3600)
        result["seconds"] = time.perf_counter() - result["started"]
    except Exception as exc:  # reported at the end
        result["error"] = f"{type(exc).__name__}: {exc}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--marks", type=int, default=500)
    parser.add_argument("--conversations", type=int, default=5)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--chars", type=int, default=300, help="characters per user message and per reply")
    parser.add_argument("--replies", type=int, default=10)
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--warmup-s", type=float, default=5.0, help="seconds the re-check runs before the replies")
    parser.add_argument("--wait-s", type=float, default=0.0, help="seconds to wait for the re-check's end afterwards")
    args = parser.parse_args()

    folder = tempfile.mkdtemp()
    accounts = os.path.join(folder, "accounts.txt")
    with open(accounts, "w", encoding="utf-8") as handle:
        handle.write("marker:pw-marker\nchatter:pw-chatter\n")
    os.environ.pop("REA_AUTH", None)
    os.environ["REA_AUTH_FILE"] = accounts
    settings = Settings.from_env()
    engine = AppEngine(
        models=load_models(),
        settings=settings.with_section("runtime", max_new_tokens=args.max_new_tokens),
        database_url=f"sqlite:///{folder}/bench.db",
    )
    gate = engine.gate = CountingGate()
    start = time.perf_counter()
    queries = store_marks(engine, "marker", args.marks, args.conversations, args.turns, args.chars)
    print(
        f"stored {args.marks} marks ({queries} marked query turns) of one user on {args.conversations} "
        f"conversations x {args.turns} turns x {args.chars} characters in {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    port = free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        chatter = Client(url, auth=("chatter", "pw-chatter"), verbose=False)
        marker = Client(url, auth=("marker", "pw-marker"), verbose=False)
        replies(chatter, 2)  # warm-up: first calls load lazy parts
        alone = replies(chatter, args.replies)
        print(summary("without a re-check", alone), flush=True)
        rechecked: dict = {}
        thread = threading.Thread(target=rechecker, args=(marker, rechecked), daemon=True)
        thread.start()
        while "started" not in rechecked and "error" not in rechecked:
            time.sleep(0.2)
        time.sleep(args.warmup_s)
        before = gate.steps
        beside = replies(chatter, args.replies)
        print(summary("beside the re-check", beside), flush=True)
        p95 = np.percentile(beside, 95) / np.percentile(alone, 95)
        p50 = statistics.median(beside) / statistics.median(alone)
        print(
            f"re-check steps: {before} before the replies, {gate.steps - before} during them; "
            f"ratio p50 {p50:.2f}x, p95 {p95:.2f}x (target < 1.5x); re-check still running: {thread.is_alive()}",
            flush=True,
        )
        thread.join(args.wait_s)
        if "text" in rechecked or "error" in rechecked:
            ended = rechecked.get("text") or rechecked["error"]
            print(f"re-check ({rechecked.get('seconds', 0):.0f} s wall): {ended}")
        else:
            print(f"re-check: still running {time.perf_counter() - rechecked['started']:.0f} s after it started")
        limits = engine.limits
        print(
            f"limits: REA_RECHECK_BUDGET_S {limits.recheck_budget_s:g}, REA_TRACE_SHARE {limits.trace_share:g}, "
            f"concurrency {engine.concurrency}; load average {os.getloadavg()[0]:.1f}"
        )
    finally:
        demo.close()


if __name__ == "__main__":
    main()
