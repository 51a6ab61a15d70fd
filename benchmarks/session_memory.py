"""Benchmark: server memory while 40 browser sessions each load the largest allowed file into Inspect.

For each cap in ``--caps`` (MB; ``REA_SESSION_STATE_MB``, 0: no cap, which is how the app held state
before the cap), the app runs as a subprocess on the packaged models and a loopback port. Then:
  1. ``--sessions`` gradio_client sessions (each its own browser session) upload the same
     conversation JSONL, built just under ``REA_MAX_UPLOAD_MB`` with ``REA_MAX_TURNS`` turns of
     valid text, to Inspect (``/inspect_upload``), ``--parallel`` at a time;
  2. the server's RSS is sampled from /proc every 50 ms: its level after start-up, its peak during
     the loads and its steady state 5 s after the last one; the server reports what its session
     store holds (values and measured MB);
  3. every session sends one more event (``/inspect_questions``, the conversation picker): how many
     still have their file and how many are told it was dropped.
``--files shaped`` uploads instead a file shaped to dodge a sampling size estimate: 1,000 turns, the big
ones off every 16th position, each holding one emoji so Python keeps it at 4 bytes a character (a
10 MB file holds about 40 MB). ``--files results`` drops results.json files into the Results tab
instead (``--drops`` per session, by HTTP as the browser does): a drawable latency run of 5,000
turns an arm near the upload cap, the same padded with 4 MB of unknown keys, and one padded with
``{}`` values past the loader's value limit (refused).
A trace of the 10 MB file is not run (a 150-turn × 30k-character file took 732 s to trace); instead
``--trace-turns`` turns of short text are traced in this process and the trace's measured size
(``deep_size``, and tracemalloc) is printed, the state an Inspect session holds after tracing.

Run: .venv/bin/python benchmarks/session_memory.py [--sessions 40] [--caps 0 1024 256] [--trace-turns 200]
     [--files honest|shaped|results] [--drops 7]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from chat_beside import free_port  # noqa: E402  (this folder is on the path of a script run from it)

WORDS = "the garden plants water light soil seeds roots leaves summer rain basil tomato pepper weeds".split()


def build_file(path: Path, max_bytes: int, turns: int) -> int:
    """A valid one-conversation JSONL just under ``max_bytes`` with ``turns`` turns; returns its size."""
    per_text = (max_bytes - 4096) // turns // 2 - 40  # user and assistant share each turn's bytes
    rows = []
    for t in range(turns):
        words = [WORDS[(t * 7 + i) % len(WORDS)] for i in range(per_text // 5)]
        text = f"turn {t}: " + " ".join(words)
        rows.append({"user": text[:per_text], "assistant": text[::-1][:per_text]})
    path.write_text(json.dumps({"id": "big", "turns": rows}) + "\n", encoding="utf-8")
    return path.stat().st_size


def build_shaped_file(path: Path, max_bytes: int, turns: int) -> int:
    """``build_file``'s size and turns, shaped: every 16th turn tiny (where a sampling estimate would look),
    the rest big, each with one emoji so Python stores it at 4 bytes a character."""
    big = turns - -(-turns // 16)
    per_text = (max_bytes - 4096 - 200 * turns) // big // 2 - 40
    rows = []
    for t in range(turns):
        if t % 16 == 0:
            rows.append({"user": f"turn {t}?", "assistant": "ok"})
            continue
        words = [WORDS[(t * 7 + i) % len(WORDS)] for i in range(per_text // 5)]
        text = (f"turn {t}: \U0001f331 " + " ".join(words))[:per_text]
        rows.append({"user": text, "assistant": text[::-1]})
    path.write_text(json.dumps({"id": "big", "turns": rows}, ensure_ascii=False) + "\n", encoding="utf-8")
    return path.stat().st_size


def build_results_files(folder: Path, max_bytes: int) -> list[Path]:
    """Results drop-ins near ``max_bytes``: a drawable latency run (5,000 turns an arm), the same with 4 MB
    of unknown keys, and a file padded with ``{}`` past the loader's value limit."""
    row = {"prompt_tokens": 1000, "generated": True, "latency_s": 1.5, "generate_s": 1.4, "retrieve_s": 0.01}
    row |= {"truncated_tokens": 0, "ttft_s": 0.4, "reused_tokens": 10, "new_tokens": 64, "cache_note": ""}
    per_turn = [dict(row, turn=t, prompt_tokens=100 + t) for t in range(5_000)]
    arm = {"mean_latency_s": 1.5, "mean_ttft_s": 0.4, "reused_share": 0.0, "mean_prompt_tokens": 1000.0}
    run = {"task": "latency", "turns": 5_000, "every": 1, "conversations": 1, "model": "m", "context_window": 8192}
    run |= {
        "max_new_tokens": 64,
        "arms": {"vanilla": dict(arm, last_turn_prompt_tokens=8000), "rea": dict(arm, last_turn_prompt_tokens=3000)},
    }
    run |= {"vanilla_over_rea_last_quarter": 2.0, "per_turn": {"vanilla": per_turn, "rea": per_turn}}
    run |= {"provenance": {"command": "benchmarks/session_memory.py --files results"}}
    files = {"drawable.json": run, "padded.json": dict(run, junk=["x" * 100_000 for _ in range(40)])}
    paths = []
    for name, data in files.items():
        paths.append(folder / name)
        paths[-1].write_text(json.dumps(data), encoding="utf-8")
        assert paths[-1].stat().st_size <= max_bytes, name
    empties = folder / "empties.json"
    count = (max_bytes - 64) // 4
    empties.write_text('{"task": "latency", "junk": [' + "{}, " * (count - 1) + "{}]}", encoding="utf-8")
    return [*paths, empties]


def drop_results(url: str, session_hash: str, paths: list[Path]) -> str:
    """Drop ``paths`` into the Results tab of browser session ``session_hash`` as the page does (upload, then
    the queued ``results_upload`` event); returns the status it shows."""
    import httpx

    with httpx.Client(base_url=url, timeout=600) as http:
        config = http.get("config").json()
        (dep,) = [d for d in config["dependencies"] if d.get("api_name") == "results_upload"]
        uploaded = http.post("gradio_api/upload", files=[("files", (p.name, p.read_bytes())) for p in paths])
        files = [
            {"path": where, "orig_name": p.name, "meta": {"_type": "gradio.FileData"}}
            for where, p in zip(uploaded.json(), paths)
        ]
        body = {"data": [files, None], "fn_index": dep["id"], "session_hash": session_hash, "trigger_id": None}
        http.post("gradio_api/queue/join", json=body).raise_for_status()
        with http.stream("GET", f"gradio_api/queue/data?session_hash={session_hash}") as stream:
            for line in stream.iter_lines():
                if '"process_completed"' in line:
                    return line
    return ""


def serve(port: int, stats_path: str) -> None:
    """The app on ``port`` (settings from the environment); writes its session store's figures."""
    from app.main import launch
    from app.state import AppEngine
    from rea_core import Settings

    engine = AppEngine.from_settings(Settings.from_env())
    launch(engine, host="127.0.0.1", port=port, block=False, quiet=True)
    store = engine.session_state
    while True:
        Path(stats_path).write_text(json.dumps({"values": len(store), "bytes": store.total_bytes}))
        time.sleep(0.2)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Sampler(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0.0, True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.05)


def run_cap(cap_mb: float, paths: list[Path], sessions: int, parallel: int, mode: str, drops: int) -> dict:
    from gradio_client import Client, handle_file

    port, stats = free_port(), tempfile.mktemp(suffix=".json")
    env = dict(os.environ, REA_SESSION_STATE_MB=str(cap_mb or 10**6))
    if cap_mb and cap_mb <= 512:
        env["REA_KV_CACHE_MB"] = str(cap_mb / 2)  # the KV prefix cache counts toward the cap
    log = open(stats + ".log", "w")
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), stats], env=env, stdout=log, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}/"
        while not Path(stats).exists():  # written once the app serves
            if server.poll() is not None:
                raise SystemExit(f"the server exited; see {log.name}")
            time.sleep(0.5)
        if mode == "results":
            clients = [f"bench{i:03d}{os.urandom(4).hex()}" for i in range(sessions)]  # browser session hashes
        else:
            clients = [Client(url, verbose=False) for _ in range(sessions)]
        time.sleep(2)
        start = rss_mb(server.pid)
        sampler = Sampler(server.pid)
        sampler.start()
        began = time.perf_counter()

        def load(client) -> str:
            if mode == "results":
                return "".join(drop_results(url, client, paths) for _ in range(drops))
            return json.dumps(client.predict(handle_file(str(paths[0])), api_name="/inspect_upload"))

        with ThreadPoolExecutor(parallel) as pool:
            loaded = list(pool.map(load, clients))
        seconds = time.perf_counter() - began
        time.sleep(5)
        sampler.running = False
        steady = rss_mb(server.pid)
        held = json.loads(Path(stats).read_text())
        result = {
            "cap_mb": cap_mb,
            "load_s": seconds,
            "rss_start_mb": start,
            "rss_peak_mb": max(sampler.peak, steady),
            "rss_steady_mb": steady,
            "held_values": held["values"],
            "held_mb": held["bytes"] / 2**20,
        }
        if mode == "results":
            drawn = sum(out.count("Drawn below: drawable.json") for out in loaded)
            refused = sum(out.count("over the limit of 250,000") for out in loaded)
            return result | {"loaded_ok": drawn, "refused": refused}
        with ThreadPoolExecutor(parallel) as pool:
            after = list(pool.map(lambda c: json.dumps(c.predict("big", api_name="/inspect_questions")), clients))
        return result | {
            "loaded_ok": sum("1 conversation(s)" in out for out in loaded),
            "told_dropped": sum("dropped to free memory" in out for out in after),
            "still_held": sum("dropped" not in out for out in after),
        }
    finally:
        server.terminate()
        server.wait(30)


def trace_size(turns: int) -> dict:
    """An Inspect trace of ``turns`` short turns, traced here: its measured size and heap."""
    import tracemalloc

    from app.session_state import deep_size
    from rea_core import load_models
    from rea_core.conversations import Conversation, Turn
    from rea_core.loading import build_from_settings
    from rea_core.retrieval.trace import trace_conversation
    from rea_core.settings import Settings

    strategy = build_from_settings("rea", load_models(), Settings())
    conv = Conversation(
        id="t",
        turns=tuple(
            Turn(
                user=f"Question {t} about {WORDS[t % len(WORDS)]} and {WORDS[(3 * t) % len(WORDS)]}?", assistant="Ok."
            )
            for t in range(turns)
        ),
    )
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    began = time.perf_counter()
    trace = trace_conversation(strategy, conv)
    seconds = time.perf_counter() - began
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    began = time.perf_counter()
    measured = deep_size(("t.jsonl", trace))
    return {
        "turns": turns,
        "trace_s": seconds,
        "deep_size_mb": measured / 2**20,
        "tracemalloc_mb": held / 2**20,
        "measure_s": time.perf_counter() - began,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "STATS"), help=argparse.SUPPRESS)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--parallel", type=int, default=8, help="uploads at once")
    parser.add_argument("--caps", type=float, nargs="+", default=[0, 1024, 256], help="REA_SESSION_STATE_MB; 0: none")
    parser.add_argument("--trace-turns", type=int, default=200, help="0: skip the trace measurement")
    parser.add_argument("--files", choices=["honest", "shaped", "results"], default="honest", help="what is uploaded")
    parser.add_argument("--drops", type=int, default=3, help="--files results: drops per session (3 files each)")
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    from rea_core import Settings

    limits = Settings.from_env().limits
    folder = Path(tempfile.mkdtemp())
    if args.files == "results":
        paths = build_results_files(folder, limits.max_upload_bytes)
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 2**20:.2f} MB" for p in paths)
        print(f"results drop-ins, each session {args.drops} times: {sizes}")
    else:
        build = build_shaped_file if args.files == "shaped" else build_file
        paths = [folder / "largest.jsonl"]
        size = build(paths[0], limits.max_upload_bytes, limits.max_turns)
        print(
            f"{args.files} file: {size / 2**20:.2f} MB, {limits.max_turns} turns "
            f"(REA_MAX_UPLOAD_MB {limits.max_upload_mb:g})"
        )
    for cap in args.caps:
        r = run_cap(cap, paths, args.sessions, args.parallel, args.files, args.drops)
        if args.files == "results":
            outcome = f"{r['loaded_ok']} drawable runs drawn, {r['refused']} padded files refused"
        else:
            outcome = (
                f"{r['loaded_ok']}/{args.sessions} loaded; next event: {r['still_held']} still held, "
                f"{r['told_dropped']} told dropped"
            )
        print(
            f"cap {f'{cap:g} MB' if cap else 'none'}: {outcome} ({r['load_s']:.1f} s); "
            f"RSS {r['rss_start_mb']:.0f} -> peak {r['rss_peak_mb']:.0f}, steady {r['rss_steady_mb']:.0f} MB "
            f"(peak over start: {r['rss_peak_mb'] - r['rss_start_mb']:.0f} MB); "
            f"store holds {r['held_values']} values, {r['held_mb']:.0f} MB",
            flush=True,
        )
    if args.trace_turns:
        t = trace_size(args.trace_turns)
        print(
            f"trace of {t['turns']} short turns: {t['trace_s']:.1f} s; measured {t['deep_size_mb']:.1f} MB "
            f"(tracemalloc {t['tracemalloc_mb']:.1f} MB), measured in {t['measure_s']:.2f} s"
        )


if __name__ == "__main__":
    main()
