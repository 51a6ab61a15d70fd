#!/usr/bin/env bash
# Prepared device check for the latent codec. Untested on a GPU so far: no GPU was lent to the
# sessions that wrote it (issues 3 and 15).
#
# 1. Trains the packaged backbone's codec at the A.2 batch size (effective batch 128, lr 1e-5) for
#    a bounded time and prints steps per second (issue 3).
# 2. Trains the retention-objective codec (issue 15: reconstruction mixed in throughout,
#    content-initialized memory tokens, centered latents; preset retention-gpu, batch 128) for as
#    many steps as fit in RETENTION_MINUTES (default 8), then evaluates it against the shipped codec
#    and the text forms on the same held-out sessions (`rea eval compression`, 20 probes).
#
# Usage: bash benchmarks/codec_train_gpu.sh [MINUTES] [MODEL]
#        SKIP_A2=1 bash benchmarks/codec_train_gpu.sh      # only the retention run and its evaluation
# Ship the retention codec only if its "beyond user-only" gap share beats the CPU codecs (BENCHMARKS).
set -euo pipefail
MINUTES="${1:-6}"
MODEL="${2:-packaged}"
RETENTION_MINUTES="${RETENTION_MINUTES:-8}"
OUT="${OUT:-runs/codec-gpu}"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}"
python -c "import torch; assert torch.cuda.is_available(), 'no GPU visible'; print(torch.cuda.get_device_name(0))"
[ -f runs/codec/sessions.jsonl ] || rea data make-codec-sessions --out runs/codec/sessions.jsonl
if [ -z "${SKIP_A2:-}" ]; then
    rea train compressor --data runs/codec/sessions.jsonl --out "$OUT" --preset gpu --model "$MODEL" \
        --max-minutes "$MINUTES" --max-steps 300
fi
# Retention objective at A.2 batch size; --max-minutes stops it (and saves) inside the limit.
rea train compressor --data runs/codec/sessions.jsonl --out "$OUT-retention" --preset retention-gpu --model "$MODEL" \
    --max-minutes "$RETENTION_MINUTES" --max-steps 2000
rea eval compression --data runs/codec/sessions.jsonl --out "$OUT-retention/eval" --limit 10 --model "$MODEL" \
    --forms raw,omit,user,text,extractive,latent,retrained --retrained "$OUT-retention/codec" --no-retrieval
python - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
for run in (out, out + "-retention"):
    path = f"{run}/codec/codec.json"
    if os.path.exists(path):
        summary = json.load(open(path))["provenance"]
        print(run, json.dumps({k: summary[k] for k in ("steps", "steps_per_s", "examples_seen", "final_loss", "backbone")}))
r = json.load(open(f"{out}-retention/eval/results.json"))
print(json.dumps({"gap_share": r["gap_recovered"], "beyond_user_only": r["reply_gap_recovered"], "rouge_l": r.get("rouge_l")}, indent=1))
PY
