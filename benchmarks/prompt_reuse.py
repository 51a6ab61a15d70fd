"""Benchmark: where REA's first token goes in the app's 20-turn chat, and how much of its prompt a
prefix cache can reuse (the packaged SmolLM2-135M with its adapter, in process, REA alone).

1. ``generate``: the questions of ``serving.py ttft`` answered by the shipped REA with KV reuse on;
   per turn: recognizer and HCR seconds, prefill to the first token, prompt tokens and tokens reused.
2. ``replay``: the same chat replayed with those replies (no generation); per turn, the prompt tokens
   shared with the previous prompt and reply (what a prefix cache that saw every turn could reuse),
   and the share from ``--from-turn`` on.

Run: .venv/bin/python benchmarks/prompt_reuse.py [--max-new-tokens 64] [--from-turn 10]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).parent))

from serving import QUESTIONS  # noqa: E402

from rea_core.loading import build_from_settings, load_models  # noqa: E402
from rea_core.reconstruction import TEMPLATE_TOKENS_PER_MESSAGE, rendered_sources  # noqa: E402
from rea_core.settings import Settings  # noqa: E402


def generate(strategy) -> list[tuple[str, str]]:
    session, chat = strategy.new_session(), []
    for turn, question in enumerate(QUESTIONS):
        result = strategy.respond(session, question)
        t, gen = result.timings, result.generation
        row = {
            "turn": turn,
            "prompt_tokens": result.prompt_tokens,
            "reused_tokens": gen.reused_tokens,
            "recognize_s": round(t.recognize_s, 3),
            "retrieve_s": round(t.retrieve_s, 3),
            "prefill_to_first_token_s": round(gen.ttft_s, 3),
            "first_token_s": round(t.recognize_s + t.retrieve_s + gen.ttft_s, 3),
        }
        print(json.dumps(row), flush=True)
        chat.append((question, result.reply))
    return chat


def replay(strategy, chat: list[tuple[str, str]], count_tokens, from_turn: int) -> float:
    session, previous = strategy.new_session(), None
    shared_total = prompt_total = 0
    for turn, (question, reply) in enumerate(chat):
        result = strategy.respond(session, question, reply=reply)
        messages = [message for message, _ in rendered_sources(result.plan)]
        tokens = [count_tokens(m["content"]) + TEMPLATE_TOKENS_PER_MESSAGE for m in messages]
        shared = 0
        for old, new, n in zip(previous or [], messages, tokens):
            if old != new:
                break
            shared += n
        previous = [*messages, {"role": "assistant", "content": reply}]
        print(json.dumps({"turn": turn, "replay_prompt_tokens": sum(tokens), "shared_tokens": shared}), flush=True)
        if turn >= from_turn:
            shared_total, prompt_total = shared_total + shared, prompt_total + sum(tokens)
    return shared_total / max(1, prompt_total)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--from-turn", type=int, default=10)
    args = parser.parse_args()
    settings = Settings.from_env(runtime={"kv_reuse": True, "max_new_tokens": args.max_new_tokens})
    models = load_models()
    strategy = build_from_settings("rea", models, settings, served=True)
    chat = generate(strategy)
    share = replay(strategy, chat, models.generator.count_tokens, args.from_turn)
    print(json.dumps({"shared_share_from_turn": args.from_turn, "share": round(share, 3)}))


if __name__ == "__main__":
    main()
