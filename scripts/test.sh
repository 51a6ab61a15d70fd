#!/usr/bin/env bash
# The test suite: set up if needed, then run every test group (unit, model, slow) on the real packaged models.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
