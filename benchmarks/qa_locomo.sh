#!/usr/bin/env bash
# The answer measurements of BENCHMARKS.md ("Answers: can the model answer from each policy's prompt"),
# on the packaged models and LoCoMo's development half (../shared/locomo-dev; never copied here).
# 1. 300 questions spread over the five conversations, the gold answer's NLL only (no generated answers):
#    none, oracle (evidence only), vanilla (the model's window), REA as shipped.
# 2. 30 temporal questions: REA with and without exchange times in the prompt.
# 3. A small run with generated answers (token F1, exact match).
# Nothing here was tuned for it: REA runs at its shipped settings. About 70 minutes on a 2-core machine
# (an REA-sized prompt, ~1,800 tokens, costs ~9 s of prefill per question there); each command resumes
# where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
REA=.venv/bin/rea
OUT=${OUT:-runs}
DATA=../shared/locomo-dev
$REA eval qa --data "$DATA" --format locomo --arms none,oracle,vanilla,rea --limit 300 --max-new-tokens 0 \
  --out "$OUT/qa-dev-300"
$REA eval qa --data "$DATA" --format locomo --arms none,oracle,rea,rea-no-time --categories temporal --limit 30 \
  --max-new-tokens 0 --out "$OUT/qa-dev-temporal-30"
$REA eval qa --data "$DATA" --format locomo --arms none,oracle,rea --limit 20 --out "$OUT/qa-dev-20-answers"
