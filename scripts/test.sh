#!/usr/bin/env bash
# The test suite: set up if needed, then run every test group (unit, model, slow, browser) on the
# real packaged models, a real database and a real Chromium. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Browser tests drive Debian's Chromium (never `playwright install`).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test: installing Debian's chromium for the browser tests" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "test: chromium is missing; install it (apt-get install chromium) or set REA_CHROMIUM" >&2
  fi
fi
export HF_HUB_OFFLINE=1 GRADIO_ANALYTICS_ENABLED=False
exec .venv/bin/python -m pytest "$@"
