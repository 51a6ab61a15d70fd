#!/usr/bin/env bash
# The main job: set up if needed, migrate the database, then serve the REA Studio app on
# http://127.0.0.1:7860 (every interface with sign-in configured or --host 0.0.0.0) with the packaged
# model. Extra arguments go to `rea app`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1}
.venv/bin/rea db upgrade
exec .venv/bin/rea app "$@"
