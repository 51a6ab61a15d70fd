#!/usr/bin/env bash
# The answer measurements of BENCHMARKS.md ("Answers: can the model answer from each policy's prompt"),
# on the packaged models and LoCoMo's development half (../shared/locomo-dev; never copied here).
# 1. 300 questions spread over the five conversations, the gold answer's NLL only (no generated answers):
#    none, oracle (evidence only), vanilla (the model's window), REA as shipped, BM25 at REA's tokens.
# 2. Every temporal question: REA with and without exchange times in the prompt.
# 3. A smaller run with generated answers (token F1, exact match) for the same arms.
# Nothing here was tuned: REA runs at its shipped settings. About 75 minutes on a 2-core machine;
# each command resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
REA=.venv/bin/rea
OUT=${OUT:-runs}
DATA=../shared/locomo-dev
$REA eval qa --data "$DATA" --format locomo --arms none,oracle,vanilla,rea,bm25 --limit 300 --max-new-tokens 0 \
  --out "$OUT/qa-dev-300"
$REA eval qa --data "$DATA" --format locomo --arms none,oracle,rea,rea-no-time --categories temporal \
  --max-new-tokens 0 --out "$OUT/qa-dev-temporal"
$REA eval qa --data "$DATA" --format locomo --arms none,oracle,vanilla,rea,bm25 --limit 60 --out "$OUT/qa-dev-60-answers"
