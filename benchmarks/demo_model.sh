#!/usr/bin/env bash
# The demo model's measurements of BENCHMARKS.md ("The demo model: instruction adapter and decoding"), on the
# packaged SmolLM2-135M-Instruct: the adapter's training, the decoding choice on dev turns, adherence on the
# standard suite at seed 0 (nothing was tuned on it) with today's model and the shipped one, the held-out
# instruction families (seed 3), loops, gold-reply NLL and first-token time. About 80 minutes of training and
# 60 of measurement on a 2-core machine; each `rea eval` resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
REA=.venv/bin/rea
PY=.venv/bin/python
OUT=${OUT:-runs/demo}
mkdir -p "$OUT"
if [ "${TRAIN:-0}" = 1 ]; then  # the shipped adapter: two stages on fresh examples each (seeds 0 and 1)
  $REA train instruct --out runs/instruct/v1 --seed 0 --lr 3e-4 --max-minutes 60
  $REA train instruct --out runs/instruct/v2 --init runs/instruct/v1 --seed 1 --lr 8e-4 --max-prompt-tokens 640 --max-minutes 40 --ship
fi
$PY benchmarks/instruct_adapter.py decoding --n 24                  # dev turns: the decoding choice
$REA data make-adherence --n 10 --turns 24 --seed 0 --out "$OUT/test-seed0.jsonl"
$REA data make-adherence --n 10 --turns 24 --seed 3 --kinds keyword,postscript,quotation --out "$OUT/heldout-seed3.jsonl"
REA_REPETITION_PENALTY=1.0 $REA eval adherence --data "$OUT/test-seed0.jsonl" --strategies vanilla,rea --adapter none --out "$OUT/base-seed0"
$REA eval adherence --data "$OUT/test-seed0.jsonl" --strategies vanilla,rea --out "$OUT/shipped-seed0"
$REA eval adherence --data "$OUT/heldout-seed3.jsonl" --strategies vanilla,rea --out "$OUT/shipped-heldout-seed3"
$PY benchmarks/instruct_adapter.py loops "$OUT/base-seed0" "$OUT/shipped-seed0" "$OUT/shipped-heldout-seed3"
$PY benchmarks/instruct_adapter.py nll --n 100
$PY benchmarks/instruct_adapter.py ttft --n 20
if [ "${STAGE3:-0}" = 1 ]; then  # the third stage tried on 2026-12-05 (not shipped), compared on two dev suites only
  $REA train instruct --out runs/instruct/v3 --init rea_core/adapters/smollm2-135m-instruct-follow --seed 2 --lr 5e-4 \
    --max-prompt-tokens 640 --max-minutes 40 --focus lowercase,uppercase,bullets,no_comma --focus-share 0.6
  $REA data make-adherence --n 5 --turns 24 --seed 5 --out "$OUT/dev-seed5.jsonl"
  $REA data make-adherence --n 6 --turns 24 --seed 7 --out "$OUT/dev-seed7-trained.jsonl" \
    --kinds lowercase,uppercase,bullets,no_comma,title,json,first_letter,word_limit,forbidden_word,end_phrase,french
  for dev in dev-seed5 dev-seed7-trained; do
    $REA eval adherence --data "$OUT/$dev.jsonl" --strategies vanilla,rea --out "$OUT/shipped-$dev"
    $REA eval adherence --data "$OUT/$dev.jsonl" --strategies vanilla,rea --adapter runs/instruct/v3 --out "$OUT/v3-$dev"
  done
fi
