"""Benchmark: streamed replies and KV prefix reuse, on the packaged SmolLM2-135M.

Four parts, each printed as JSON lines and a summary:

* ``ttft``: the real app on a loopback port, one ``gradio_client`` session, a 20-turn conversation
  (both columns, REA left and vanilla right, KV reuse on as in the app): median time to first token
  per column, client-observed (send -> first partial reply of that column in a streamed update) and
  server-side (the turn's stats: recognizer + retrieval + prefill to the first decoded token).
  Targets: vanilla with reuse <= 1.0 s, REA <= 1.5 s. ``--no-kv-reuse`` measures the same without;
  ``--pause-s`` waits between the replies' end and the next message, as a user reading and typing
  does (the time REA reads its next prompt's opening ahead in; 0: the next message at once).
* ``alone``: no app, no second column: each arm (``--arms``, default rea-cached and vanilla-cached) by
  itself in process on the same 20 messages, each sent with its time as the app sends it, the next
  prompt's opening read ahead after each reply (``Strategy.warm``): median time to first token from
  turn 10, split into recognizer, retrieval and prefill, and the tokens each turn reads anew. What
  the side-by-side ``ttft`` cannot separate: a method's own first token from its wait for the other
  column under the one model lock.
* ``load``: ``--sessions`` clients at once, ``--turns`` turns each, streaming: p50 / p95 of the
  client-observed time to first token (any column) and of the whole reply.
* ``tps``: decode tokens per second of the in-process generator and of ``transformers serve``
  (the OpenAI-compatible server of ``transformers[serving]``) on the same machine, same prompt.

Run: .venv/bin/python benchmarks/serving.py ttft|alone|load|tps [--turns 20] [--sessions 8] [--max-new-tokens 128] \\
         [--concurrency 1] [--pause-s 0]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

QUESTIONS = [
    "From now on, answer in lowercase.",
    "Name three colors of the rainbow.",
    "What is the capital of France?",
    "Tell me a fact about whales.",
    "Suggest a name for a coffee shop by the sea.",
    "How many legs does a spider have?",
    "And an insect?",
    "Give me a word that rhymes with cat.",
    "What is bread made of?",
    "Recommend a book for a rainy day.",
    "How do plants make food?",
    "What is a prime number?",
    "Explain what a volcano is.",
    "Give me a tip for learning chess.",
    "What is the tallest animal?",
    "Why is the sky blue?",
    "Name a famous painter.",
    "What should I pack for a beach trip?",
    "How does a bicycle stay upright?",
    "Summarize our chat in one sentence.",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else None


def launch_app(max_new_tokens: int, kv_reuse: bool, concurrency: int):
    from app.main import launch
    from app.state import AppEngine
    from rea_core import Settings

    settings = Settings.from_env(
        runtime={"max_new_tokens": max_new_tokens, "kv_reuse": kv_reuse}, app={"concurrency": concurrency}
    )
    engine = AppEngine.from_settings(settings)
    port = free_port()
    demo = launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    return demo, f"http://127.0.0.1:{port}/"


def chat_text(chat, i):
    content = chat[i]["content"] if chat and len(chat) > i else ""
    return " ".join(c.get("text", "") for c in content) if isinstance(content, list) else str(content or "")


def one_turn(client, text: str, turn: int) -> dict:
    """Send ``text``; returns client-observed first-partial time per column, total time and the server stats lines."""
    client.predict(text, api_name="/accept_message")
    start = time.perf_counter()
    job = client.submit(0.2, 0.36, api_name="/generate_replies")
    first = [None, None]
    seen = 0
    while not job.done():
        outs = job.outputs()
        for out in outs[seen:]:
            for side in (0, 1):
                if (
                    first[side] is None
                    and out
                    and out[side]
                    and len(out[side]) == 2 * turn + 2
                    and chat_text(out[side], 2 * turn + 1).strip("▌ ")
                ):
                    first[side] = time.perf_counter() - start
        seen = len(outs)
        time.sleep(0.01)
    final = job.result()
    total = time.perf_counter() - start
    for side in (0, 1):  # a reply shorter than one update interval arrives whole
        first[side] = first[side] if first[side] is not None else total
    return {
        "client_ttft_s": first,
        "total_s": total,
        "stats": [chat_text(final[side], 2 * turn + 1).rsplit("\n", 1)[-1] for side in (0, 1)],
    }


def server_ttft(stats_line: str) -> float | None:
    for part in stats_line.split("|"):
        part = part.strip(" *")
        if part.startswith("first token"):
            return float(part.split()[2])
    return None


def bench_ttft(args) -> None:
    from gradio_client import Client

    demo, url = launch_app(args.max_new_tokens, not args.no_kv_reuse, 1)
    try:
        client = Client(url, verbose=False)
        rows = []
        for turn, text in enumerate(QUESTIONS[: args.turns]):
            row = one_turn(client, text, turn)
            row["server_ttft_s"] = [server_ttft(s) for s in row["stats"]]
            rows.append(row)
            print(json.dumps({"turn": turn, **row}), flush=True)
            time.sleep(args.pause_s)  # the user reads the replies and types (REA reads its next opening ahead)
        for side, name in ((0, "rea"), (1, "vanilla")):
            client_ttft = [r["client_ttft_s"][side] for r in rows]
            srv = [r["server_ttft_s"][side] for r in rows if r["server_ttft_s"][side] is not None]
            late = [r["client_ttft_s"][side] for r in rows[10:]]
            print(
                json.dumps(
                    {
                        "column": name,
                        "kv_reuse": not args.no_kv_reuse,
                        "turns": len(rows),
                        "median_client_ttft_s": round(statistics.median(client_ttft), 3),
                        "median_server_ttft_s": round(statistics.median(srv), 3) if srv else None,
                        "p95_client_ttft_s": round(pct(client_ttft, 0.95), 3),
                        "pause_s": args.pause_s,
                        "median_client_ttft_from_turn_10_s": round(statistics.median(late), 3) if late else None,
                    }
                )
            )
    finally:
        demo.close()


def bench_alone(args) -> None:
    from datetime import datetime, timedelta, timezone

    from rea_core import Settings
    from rea_core.evals.arms import get_arm
    from rea_core.loading import load_models
    from rea_core.methods.base import turn_summary

    settings = Settings.from_env(runtime={"max_new_tokens": args.max_new_tokens, "kv_reuse": not args.no_kv_reuse})
    models = load_models(adapter="auto")
    start = datetime(2026, 12, 7, 9, 0, tzinfo=timezone.utc)
    for name in args.arms.split(","):
        strategy = get_arm(name).build(models, settings, None)
        session, rows = strategy.new_session(), []
        for turn, text in enumerate(QUESTIONS[: args.turns]):
            sent = (start + timedelta(minutes=turn)).isoformat()
            result = strategy.respond(session, text, time=sent)
            summary, t = turn_summary(result), result.timings  # the stats line's first token, from the turn's start
            warm = strategy.warm(session)  # as the app does once the reply ends
            if warm is not None:
                warm()
            if summary.get("ttft_s") is None:  # no token decoded: no first token to time
                continue
            rows.append(
                {
                    "arm": name,
                    "turn": turn,
                    "recognize_s": round(t.recognize_s, 3),
                    "retrieve_s": round(t.retrieve_s, 3),
                    "prefill_s": round(result.generation.ttft_s, 3),
                    "ttft_s": round(summary["ttft_s"], 3),
                    "prompt_tokens": result.prompt_tokens,
                    "read_anew": result.prompt_tokens - summary["reused_tokens"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
        late = [r for r in rows if r["turn"] >= 10] or rows
        summary = {
            k: statistics.median(r[k] for r in late)
            for k in ("ttft_s", "recognize_s", "retrieve_s", "prefill_s", "read_anew")
        }
        print(
            json.dumps(
                {
                    "arm": name,
                    "turns": len(rows),
                    "from_turn": late[0]["turn"] if late else None,
                    **{f"median_{k}": v for k, v in summary.items()},
                }
            ),
            flush=True,
        )


def bench_load(args) -> None:
    from gradio_client import Client

    demo, url = launch_app(args.max_new_tokens, not args.no_kv_reuse, args.concurrency)
    ttfts, totals, errors = [], [], []

    def run(i: int) -> None:
        try:
            client = Client(url, verbose=False)
            for turn in range(args.turns):
                row = one_turn(client, f"Session {i}: {QUESTIONS[(i + turn) % len(QUESTIONS)]}", turn)
                ttfts.append(min(row["client_ttft_s"]))
                totals.append(row["total_s"])
        except Exception as exc:  # reported at the end
            errors.append(repr(exc))

    try:
        start = time.perf_counter()
        threads = [threading.Thread(target=run, args=(i,)) for i in range(args.sessions)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(
            json.dumps(
                {
                    "sessions": args.sessions,
                    "turns": args.turns,
                    "concurrency": args.concurrency,
                    "kv_reuse": not args.no_kv_reuse,
                    "replies": len(totals),
                    "wall_s": round(time.perf_counter() - start, 1),
                    "ttft_p50_s": round(pct(ttfts, 0.5), 2),
                    "ttft_p95_s": round(pct(ttfts, 0.95), 2),
                    "reply_p50_s": round(pct(totals, 0.5), 2),
                    "reply_p95_s": round(pct(totals, 0.95), 2),
                    "errors": errors,
                }
            )
        )
    finally:
        demo.close()


def bench_tps(args) -> None:
    import httpx

    from rea_core.backends import load_generator
    from rea_core.backends.openai_compat import OpenAIGenerator
    from rea_core.backends.packaged import packaged_generator_dir

    messages = [{"role": "user", "content": "Write a long story about a lighthouse keeper and a storm."}]
    local = load_generator("packaged")

    def rate(gen) -> float:
        decode_s = gen.wall_s - (gen.ttft_s or 0.0)
        return (gen.new_tokens - 1) / decode_s if decode_s > 0 else float("nan")

    results = {"in_process": [], "transformers_serve": []}
    for _ in range(args.repeats):
        gen = local.generate(messages, max_new_tokens=args.max_new_tokens)
        results["in_process"].append((rate(gen), gen.new_tokens, gen.ttft_s))
    folder = str(packaged_generator_dir())
    port = free_port()
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "transformers"),
            "serve",
            folder,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--device",
            "cpu",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(360):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        remote = OpenAIGenerator(folder, base_url=f"http://127.0.0.1:{port}/v1", tokenizer=local.tokenizer)
        remote.generate(messages, max_new_tokens=4)  # warm-up
        for _ in range(args.repeats):
            gen = remote.generate(messages, max_new_tokens=args.max_new_tokens)
            results["transformers_serve"].append((rate(gen), gen.new_tokens, gen.ttft_s))
    finally:
        proc.kill()
        proc.wait()
    for name, rows in results.items():
        print(
            json.dumps(
                {
                    "backend": name,
                    "max_new_tokens": args.max_new_tokens,
                    "repeats": len(rows),
                    "median_tokens_per_s": round(statistics.median(r[0] for r in rows), 1),
                    "median_new_tokens": statistics.median(r[1] for r in rows),
                    "median_ttft_s": round(statistics.median(r[2] for r in rows), 3),
                }
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["ttft", "alone", "load", "tps"])
    parser.add_argument("--arms", default="rea-cached,vanilla-cached", help="alone: the arms, one at a time")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-kv-reuse", action="store_true")
    parser.add_argument(
        "--pause-s", type=float, default=0.0, help="ttft: seconds between the replies' end and the next message"
    )
    args = parser.parse_args()
    print(json.dumps({"load_average": os.getloadavg(), "cpus": os.cpu_count()}), flush=True)
    {"ttft": bench_ttft, "alone": bench_alone, "load": bench_load, "tps": bench_tps}[args.part](args)


if __name__ == "__main__":
    main()
