"""Benchmark: when does reusing a cached KV prefix beat a full prefill? (the packaged SmolLM2-135M, CPU)

For prompts of ``--lengths`` random tokens, the time to prefill the whole prompt, and the time to
prefill what follows a cached prefix of each ``--shares`` of it (the prefix prefilled first, not
timed). Medians of ``--repeats``. On a CPU the continuation takes attention's masked path, so
it costs more per new token than a full prefill: a small shared prefix makes a cached reply slower.
``rea_core.backends.kv_cache.reuse_pays`` reads its break-even from these numbers.

Run: .venv/bin/python benchmarks/prefill_reuse.py [--lengths 800 2000 4000] [--shares 0.1 0.25 0.4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[800, 2000, 4000])
    parser.add_argument("--shares", type=float, nargs="+", default=[0.1, 0.25, 0.4])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import torch
    from transformers import DynamicCache

    from rea_core.loading import load_models

    generator = load_models(codec=None).generator
    model, cache_kw = generator.model, generator._cache_kw
    print(json.dumps({"load_average": os.getloadavg(), "cpus": os.cpu_count(), "threads": torch.get_num_threads()}))

    def prefill_s(ids, cached: int) -> float:
        kv = DynamicCache(config=model.config)
        with torch.inference_mode():
            if cached:
                model(input_ids=ids[:, :cached], use_cache=True, logits_to_keep=1, **{cache_kw: kv})
            start = time.perf_counter()
            model(input_ids=ids[:, cached:], use_cache=True, logits_to_keep=1, **{cache_kw: kv})
        return time.perf_counter() - start

    prefill_s(torch.randint(100, 20000, (1, 300)), 0)  # warm-up
    for n in args.lengths:
        ids = torch.randint(100, 20000, (1, n))
        full = statistics.median(prefill_s(ids, 0) for _ in range(args.repeats))
        row = {"prompt_tokens": n, "full_prefill_s": round(full, 3)}
        for share in args.shares:
            cached = int(n * share)
            cont = statistics.median(prefill_s(ids, cached) for _ in range(args.repeats))
            # cost of a new token on top of the cache, relative to one in a full prefill
            factor = cont / (n - cached) / (full / n)
            row[f"reuse_{share:g}"] = {"s": round(cont, 3), "per_token_factor": round(factor, 2)}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
