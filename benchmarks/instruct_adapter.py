"""The instruction-following adapter and loop-free decoding on the packaged model: the numbers BENCHMARKS.md
reports ("The demo model").

    python benchmarks/instruct_adapter.py nll                 # gold-reply NLL, base vs adapter (held-out replies)
    python benchmarks/instruct_adapter.py decoding            # loop share per decoding setting (dev turns)
    python benchmarks/instruct_adapter.py ttft                # first-token time, base vs adapter and decoding
    python benchmarks/instruct_adapter.py loops RUN [RUN ...] # loop share of `rea eval adherence` runs' replies

Held-out replies: Chit Chat conversations past those the adapter's data reads (``CORPUS_OFFSET`` + 2,500
sessions) and LoCoMo's development half (``../shared/locomo-dev``, read here only). Dev turns for the
decoding choice: ShareGPT and Chit Chat turns the adherence suites and the adapter never read.
A loop is a 5-word sequence three or more times in one reply (``backends.decoding.looping``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rea_core.backends.decoding import Decoding, looping  # noqa: E402
from rea_core.corpora import chitchat_conversations, is_clean_turn, sharegpt_sessions  # noqa: E402
from rea_core.training.instruct_data import CORPUS_OFFSET  # noqa: E402

HELD_OUT_FROM = CORPUS_OFFSET + 2500 + 500  # past every session the adapter's pool reads
LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "locomo-dev"
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
DECODINGS = {
    "greedy": Decoding(),
    "penalty 1.1": Decoding(repetition_penalty=1.1),
    "penalty 1.2": Decoding(repetition_penalty=1.2),
    "penalty 1.1 + no repeated 6-grams": Decoding(repetition_penalty=1.1, no_repeat_ngram=6),
}


def load(adapter: str, decoding: Decoding | None = None):
    from rea_core.backends.hf import HFGenerator

    return HFGenerator.load("packaged", adapter=adapter, decoding=decoding)


def chitchat_cases(n: int) -> list[tuple[list[dict], str]]:
    """(up to three earlier exchanges as messages, the next reply) from held-out Chit Chat conversations."""
    cases = []
    for k, messages in enumerate(chitchat_conversations(HELD_OUT_FROM + 4 * n)):
        if k < HELD_OUT_FROM or len(messages) < 4:
            continue
        cut = 2 * min(3, (len(messages) - 2) // 2) + 1  # an odd count: the reply is the other speaker's
        history = [{"role": "user" if i % 2 == 0 else "assistant", "content": m} for i, m in enumerate(messages[:cut])]
        cases.append((history, messages[cut]))
        if len(cases) >= n:
            break
    return cases


def locomo_cases(n: int) -> list[tuple[list[dict], str]]:
    """(three earlier turns of a session as messages, the next turn), every sixth turn of LoCoMo's development
    half, ``n`` of them spread evenly over the five conversations."""
    cases = []
    for path in sorted(LOCOMO.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        for key in sorted(k for k in conv if re.fullmatch(r"session_\d+", k)):
            turns = conv[key]
            for j in range(3, len(turns), 6):
                history = [
                    {"role": "user" if (j - i) % 2 == 1 else "assistant", "content": turns[i]["text"]}
                    for i in range(j - 3, j)
                ]
                cases.append((history, turns[j]["text"]))
    step = max(1, len(cases) // n)
    return cases[::step][:n]


def mean_nll(generator, cases) -> float:
    total, tokens = 0.0, 0
    for history, reply in cases:
        logprobs = generator.answer_logprobs([SYSTEM, *history], reply)
        total -= sum(logprobs)
        tokens += len(logprobs)
    return total / tokens


def cmd_nll(args) -> None:
    sets = {"chitchat (held out)": chitchat_cases(args.n), "locomo dev": locomo_cases(args.n)}
    rows = {}
    for adapter in ("none", "auto"):
        generator = load(adapter)
        rows[adapter] = {name: mean_nll(generator, cases) for name, cases in sets.items()}
        del generator
    print(f"gold-reply NLL per token ({args.n} replies a set)")
    print(f"{'set':<22} {'base':>8} {'adapter':>8} {'change':>8}")
    for name in sets:
        base, new = rows["none"][name], rows["auto"][name]
        print(f"{name:<22} {base:8.4f} {new:8.4f} {100 * (new - base) / base:+7.2f}%")


def dev_turns(n: int) -> list[str]:
    """User messages the suites and the adapter never read: ShareGPT and Chit Chat past their pools."""
    out = []
    for k, pairs in enumerate(sharegpt_sessions(HELD_OUT_FROM + 3 * n)):
        if k >= HELD_OUT_FROM and pairs and is_clean_turn(*pairs[0]) and len(pairs[0][0]) < 400:
            out.append(pairs[0][0])
        if len(out) >= n // 2:
            break
    for k, messages in enumerate(chitchat_conversations(HELD_OUT_FROM + 3 * n)):
        if k >= HELD_OUT_FROM + n and messages:  # held out from training (NLL may read them: it ignores decoding)
            out.append(messages[0])
        if len(out) >= n:
            break
    return out


def cmd_decoding(args) -> None:
    turns = dev_turns(args.n)
    generator = load(args.adapter)
    print(f"{len(turns)} dev turns, adapter {args.adapter}, {args.max_new_tokens} new tokens at most")
    print(f"{'decoding':<36} {'loops':>6} {'cut':>5} {'mean words':>11} {'s/reply':>8}")
    for name, decoding in DECODINGS.items():
        generator.decoding = decoding
        loops = cut = words = 0
        start = time.perf_counter()
        for text in turns:
            gen = generator.generate([SYSTEM, {"role": "user", "content": text}], max_new_tokens=args.max_new_tokens)
            loops += looping(gen.text)
            cut += gen.cut_at_tokens is not None
            words += len(gen.text.split())
        took = (time.perf_counter() - start) / len(turns)
        print(f"{name:<36} {loops / len(turns):6.1%} {cut / len(turns):5.0%} {words / len(turns):11.1f} {took:8.2f}")


def cmd_ttft(args) -> None:
    """Median time to the first token, the base model greedy against the shipped adapter and decoding, on the
    same prompts (dev turns behind a short history), alternating so that machine noise hits both."""
    from rea_core.backends.decoding import DEFAULT_DECODING

    arms = {"base, greedy": load("none", Decoding()), "adapter, shipped decoding": load("auto", DEFAULT_DECODING)}
    turns = dev_turns(args.n)
    times: dict[str, list[float]] = {name: [] for name in arms}
    for k, text in enumerate(turns):
        history = [{"role": "user", "content": t} for t in turns[max(0, k - 2) : k]]
        history = [m for u in history for m in (u, {"role": "assistant", "content": "Sure."})]
        for name, generator in arms.items():
            gen = generator.generate([SYSTEM, *history, {"role": "user", "content": text}], max_new_tokens=4)
            times[name].append(gen.ttft_s)
    for name, values in times.items():
        print(f"{name:<28} median first token {statistics.median(values):.3f} s over {len(values)} prompts")


def cmd_loops(args) -> None:
    for run in args.runs:
        replies: dict[str, list[str]] = {}
        for line in (Path(run) / "records.jsonl").read_text(encoding="utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                replies.setdefault(row["arm"], []).extend(r["reply"] for r in row["records"])
        for arm, texts in replies.items():
            n = sum(looping(t) for t in texts)
            words = statistics.mean(len(t.split()) for t in texts) if texts else math.nan
            print(f"{run}  {arm:<10} loops {n}/{len(texts)} ({n / len(texts):.1%})  mean words {words:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("nll")
    p.add_argument("--n", type=int, default=100)
    p = sub.add_parser("decoding")
    p.add_argument("--n", type=int, default=30)
    p.add_argument("--adapter", default="auto")
    p.add_argument("--max-new-tokens", type=int, default=128)
    p = sub.add_parser("ttft")
    p.add_argument("--n", type=int, default=20)
    p = sub.add_parser("loops")
    p.add_argument("runs", nargs="+")
    args = parser.parse_args()
    {"nll": cmd_nll, "decoding": cmd_decoding, "ttft": cmd_ttft, "loops": cmd_loops}[args.cmd](args)


if __name__ == "__main__":
    main()
