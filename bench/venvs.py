"""Virtualenvs for the other harnesses, outside the repository (never /work/main/.venv).

`python bench/venvs.py` creates (or reuses) them; the benchmark scripts call `ensure()` and skip
a harness whose install fails, saying why."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("PROCTOR_BENCH_VENVS", Path.home() / ".cache/proctor/bench-venvs"))

# The versions the issue measured; pinned so a rerun compares the same code.
HARNESSES: dict[str, list[str]] = {
    "lm-eval": ["lm-eval[api]==0.4.13"],
    "inspect": ["inspect-ai==0.3.285", "openai"],
}
INSTALL_TIMEOUT_S = float(os.environ.get("PROCTOR_BENCH_INSTALL_TIMEOUT", "900"))


@dataclass(frozen=True)
class Venv:
    name: str
    python: Path | None
    why_not: str = ""


def _python(root: Path) -> Path:
    return root / "bin" / "python"


def ensure(name: str, *, timeout_s: float = INSTALL_TIMEOUT_S) -> Venv:
    root = CACHE / name
    marker = root / ".installed"
    if marker.exists():
        return Venv(name, _python(root))
    fail = root / ".failed"
    if fail.exists() and not os.environ.get("PROCTOR_BENCH_RETRY_INSTALL"):
        return Venv(name, None, fail.read_text().strip())
    root.parent.mkdir(parents=True, exist_ok=True)
    log = CACHE / f"{name}.install.log"
    started = time.monotonic()
    try:
        with log.open("wb") as out:
            subprocess.run([sys.executable, "-m", "venv", "--clear", str(root)], check=True,
                           stdout=out, stderr=subprocess.STDOUT, timeout=120)  # fmt: skip
            subprocess.run(
                [str(_python(root)), "-m", "pip", "install", "-q", *HARNESSES[name]],
                check=True, stdout=out, stderr=subprocess.STDOUT,
                timeout=max(1.0, timeout_s - (time.monotonic() - started)),
            )  # fmt: skip
    except subprocess.TimeoutExpired:
        why = f"install of {' '.join(HARNESSES[name])} took over {timeout_s:g} s (log: {log})"
        fail.write_text(why)
        return Venv(name, None, why)
    except (subprocess.CalledProcessError, OSError) as e:
        tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
        why = f"install of {' '.join(HARNESSES[name])} failed ({e}): {' | '.join(tail)}"
        if root.exists():
            fail.write_text(why)
        return Venv(name, None, why)
    marker.write_text(" ".join(HARNESSES[name]))
    return Venv(name, _python(root))


if __name__ == "__main__":
    for n in sys.argv[1:] or list(HARNESSES):
        v = ensure(n)
        print(n, v.python or f"SKIPPED: {v.why_not}", flush=True)
