#!/usr/bin/env bash
# The main job: set up if needed, then chat with REA and vanilla side by side on the packaged model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1}
exec .venv/bin/rea chat "$@"
