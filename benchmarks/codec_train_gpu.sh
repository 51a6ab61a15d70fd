#!/usr/bin/env bash
# Prepared device check for the latent codec (issue: Latent Episodic Memory, "GPU"): trains the packaged
# backbone's codec at the A.2 batch size (effective batch 128, lr 1e-5) for a bounded time on a GPU and
# prints steps per second from the run summary. Usage: bash benchmarks/codec_train_gpu.sh [MINUTES] [MODEL]
set -euo pipefail
MINUTES="${1:-6}"
MODEL="${2:-packaged}"
OUT="${OUT:-runs/codec-gpu}"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}"
python -c "import torch; assert torch.cuda.is_available(), 'no GPU visible'; print(torch.cuda.get_device_name(0))"
[ -f runs/codec/sessions.jsonl ] || rea data make-codec-sessions --out runs/codec/sessions.jsonl
rea train compressor --data runs/codec/sessions.jsonl --out "$OUT" --preset gpu --model "$MODEL" \
    --max-minutes "$MINUTES" --max-steps 300
python - "$OUT" <<'PY'
import json, sys
summary = json.load(open(f"{sys.argv[1]}/codec/codec.json"))["provenance"]
print(json.dumps({k: summary[k] for k in ("steps", "steps_per_s", "examples_seen", "final_loss", "backbone")}))
PY
