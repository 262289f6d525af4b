"""What the runtime_env proctor ships to Ray costs at start: seconds and megabytes.

    .venv/bin/python bench/bench_ray_runtime_env.py

Starts the test suite's two-node cluster (head from .venv, second node from a virtualenv that
holds only Ray: tests/support/ray_cluster.py), then, each in a fresh driver process:

- `none`: connect with no runtime_env and run one trivial task on the second node (the baseline:
  a worker started);
- `ship`: connect with proctor's runtime_env (the upload of proctor, MiB as Ray reports it), run
  one task on the second node that imports proctor and its dependencies (the node builds the
  environment: copies its virtualenv, pip-installs the pinned packages), then a second task;
- `ship again`: a new job with the same runtime_env (the node's cached environment).

Prints each time and the size of what the node added, measured side by side in one run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.ray_cluster import NODE_RESOURCE, start  # noqa: E402

from proctor.executors.ray_env import pinned_requirements  # noqa: E402

CHILD = r"""
import json, sys, time
import ray
from proctor.executors.ray_executor import RayExecutor
address, mode = sys.argv[1], sys.argv[2]
env = RayExecutor(address).job_runtime_env() if mode == "ship" else None
t = time.monotonic()
ray.init(address=address, runtime_env=env, include_dashboard=False, log_to_driver=False)
init_s = time.monotonic() - t

@ray.remote(num_cpus=1, resources={NODE: 1})
def bare():
    return 1

@ray.remote(num_cpus=1, resources={NODE: 1})
def shipped():
    import aiohttp, httpx, pydantic, proctor.executors.ray_worker
    return proctor.executors.ray_worker.__file__

task = shipped if mode == "ship" else bare
times = []
for _ in range(2):
    t = time.monotonic()
    where = ray.get(task.remote())
    times.append(time.monotonic() - t)
print(json.dumps({"init_s": init_s, "first_s": times[0], "second_s": times[1], "where": where}))
""".replace("NODE", repr(NODE_RESOURCE))


def child(address: str, mode: str, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, address, mode],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-4000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    pushed = re.search(r"Pushing file package .*\(([\d.]+)MiB\)", done.stderr)
    result["pushed_mib"] = float(pushed.group(1)) if pushed else 0.0
    return result


def pinned_mb() -> float:
    """Installed size of the pinned packages (as on this machine)."""
    total = 0
    for pin in pinned_requirements():
        files = metadata.distribution(pin.split("==")[0]).files or []
        total += sum((f.size or 0) for f in files)
    return total / 1e6


def du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def main() -> None:
    logs = Path("/tmp") / f"bench-ray-{int(time.time())}"
    logs.mkdir()
    t = time.monotonic()
    cluster = start(Path(sys.executable).parent, logs)
    print(f"cluster up in {time.monotonic() - t:.1f} s")
    try:
        rows = [
            ("none", child(cluster.address, "none", cluster.env)),
            ("ship", child(cluster.address, "ship", cluster.env)),
            ("ship again", child(cluster.address, "ship", cluster.env)),
        ]
        built = sorted(cluster.temp_dirs[1].glob("session_*/runtime_resources/pip/*/virtualenv"))
        env_mb = du_mb(built[0]) if built else 0.0
    finally:
        cluster.stop()
    print(f"{'job':<11} {'connect s':>9} {'1st task s':>10} {'2nd task s':>10} {'pushed MiB':>10}")
    for name, r in rows:
        print(
            f"{name:<11} {r['init_s']:>9.2f} {r['first_s']:>10.2f} {r['second_s']:>10.2f} "
            f"{r['pushed_mib']:>10.2f}"
        )
    print(
        f"the node's environment: {env_mb:.0f} MB on its disk (Ray copies the node's virtualenv, "
        f"*.pyc left out, and pip-installs {len(pinned_requirements())} pinned packages, "
        f"{pinned_mb():.1f} MB installed, from the node's index)"
    )


if __name__ == "__main__":
    main()
