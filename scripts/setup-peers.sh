#!/usr/bin/env bash
# The peers' own readers, for tests/foreign/test_export_peers.py (they skip without it): Inspect
# AI and lm-evaluation-harness in a virtualenv of their own (.venv-peers), apart from proctor's:
# their dependencies are not ours, and proctor never imports them. About two minutes of pip.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv-peers/bin/python ] || "$PYTHON" -m venv .venv-peers
.venv-peers/bin/python -m pip install --quiet "inspect-ai==0.3.285" "lm-eval==0.4.13"
echo "peers: $(.venv-peers/bin/python -c 'import inspect_ai, lm_eval; print("inspect-ai", inspect_ai.__version__, "· lm-eval", lm_eval.__version__)')"
