#!/usr/bin/env bash
# The tune/test split of BENCHMARKS.md's answer measurements ("Answers", the test split and the order
# of REA's prompt), on the packaged models and LoCoMo's development half (../shared/locomo-dev; never
# copied here). Prompt changes are tuned on conversations 30, 41 and 42 and reported on 26 and 43.
# 1. Tune conversations, 120 questions spread over the three: REA as shipped (best-scored exchange
#    nearest the question), in turn order (the paper's layout), and with the extractive compressed band.
# 2. Test conversations, 60 questions spread evenly over each: REA as shipped (and vanilla with VANILLA=1).
# Gold-answer NLL only (no generated answers). About 45 minutes on a 2-core machine; each command
# resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
REA=$PWD/.venv/bin/rea
OUT=${OUT:-runs}
DATA=../shared/locomo-dev
TUNE=$(mktemp -d)
trap 'rm -rf "$TUNE"' EXIT
for c in 30 41 42; do ln -s "$(realpath "$DATA/$c.json")" "$TUNE/$c.json"; done
qa() { $REA eval qa --format locomo --max-new-tokens 0 "$@"; }
qa --data "$TUNE" --arms none,oracle,rea --limit 120 --out "$OUT/qa-tune-order"
REA_LAYOUT=chronological qa --data "$TUNE" --arms none,oracle,rea --limit 120 --out "$OUT/qa-tune-chronological"
REA_TEXT_COMPRESSION=extractive qa --data "$TUNE" --arms none,oracle,rea --limit 120 --out "$OUT/qa-tune-extractive"
arms=none,oracle,rea
if [ "${VANILLA:-0}" = 1 ]; then arms=$arms,vanilla; fi
for c in 26 43; do
  qa --data "$DATA/$c.json" --arms "$arms" --limit 60 --out "$OUT/qa-test-$c-order"
done
# The window-first layout (BENCHMARKS, "Reading the next prompt's opening ahead"): the same commands
# under REA_LAYOUT=window-first, REA's arms only compared.
if [ "${WINDOW_FIRST:-0}" = 1 ]; then
  REA_LAYOUT=window-first qa --data "$TUNE" --arms none,oracle,rea --limit 120 --out "$OUT/qa-tune-window-first"
  for c in 26 43; do
    REA_LAYOUT=window-first qa --data "$DATA/$c.json" --arms none,oracle,rea --limit 60 --out "$OUT/qa-test-$c-window-first"
  done
fi
