#!/usr/bin/env bash
# The working-memory measurements of BENCHMARKS.md ("Working memory"), on the packaged models:
# retrieval on the follow-up test half (short and long variants), the old back-reference set and
# LoCoMo's development half; adherence on the compliant-history and standard suites (seed 0, the
# split not used for tuning: the window was chosen on seed 1 and the development families).
# About 90 minutes on a 2-core machine; each command resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
REA=.venv/bin/rea
OUT=${OUT:-runs/working-memory}
mkdir -p "$OUT"
for set in test-short test-long dev-short dev-long; do
  $REA eval retrieval --data "benchmarks/data/followups/$set.jsonl" --policies rea,rea-hybrid-plain,recency --out "$OUT/followups-$set"
done
$REA eval retrieval --data benchmarks/data/backrefs.jsonl --policies rea,rea-hybrid-plain,recency --out "$OUT/backrefs"
$REA eval retrieval --data ../shared/locomo-dev --format locomo --policies rea,bm25,recency --out "$OUT/locomo-dev"
$REA data make-adherence --n 10 --turns 24 --seed 0 --compliant-history --out "$OUT/compliant.jsonl"
$REA data make-adherence --n 10 --turns 24 --seed 0 --out "$OUT/standard.jsonl"
$REA eval adherence --data "$OUT/compliant.jsonl" --strategies vanilla,rea,rea-latest-only --out "$OUT/adherence-compliant"
$REA eval adherence --data "$OUT/standard.jsonl" --strategies vanilla,rea,rea-latest-only --out "$OUT/adherence-standard"
.venv/bin/python benchmarks/hcr_scoring.py --repeats 30
