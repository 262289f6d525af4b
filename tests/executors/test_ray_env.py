"""The runtime_env a Ray run ships: proctor and what its workers import, pinned; a user's file
merged in; forwarded variables and custom resources read strictly. No cluster needed."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="ray is not installed (pip install 'ray[default]')")

from proctor.errors import ConfigError
from proctor.executors.ray_env import (
    WORKER_DISTRIBUTIONS,
    canonical,
    forwarded,
    load_runtime_env,
    merged,
    ours,
    parse_resources,
    pinned_requirements,
    proctor_folder,
)


def pins() -> dict[str, str]:
    return {canonical(p.split("==")[0]): p.split("==")[1] for p in pinned_requirements()}


def test_pins_are_what_this_machine_runs() -> None:
    pinned = pins()
    assert len(pinned) == len(pinned_requirements())  # one pin per distribution
    for name in WORKER_DISTRIBUTIONS:
        assert pinned[canonical(name)] == metadata.version(name)
    assert all("==" in p for p in pinned_requirements())
    assert "ray" not in pinned  # the nodes' own


def test_ours_ships_this_proctor() -> None:
    env = ours()
    assert env["py_modules"] == [proctor_folder()]
    assert (Path(proctor_folder()) / "executors" / "ray_worker.py").is_file()
    assert env["pip"]["packages"] == pinned_requirements()


WORKER = r"""
import asyncio, json, re, sys
from importlib.abc import MetaPathFinder
from importlib.metadata import packages_distributions
import ray
from ray import cloudpickle
assert not [m for m in sys.modules if m.startswith("proctor")]

def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()

allowed = set(json.loads(sys.argv[2]))
owners = packages_distributions()
refused = set()

class OnlyShipped(MetaPathFinder):
    # a worker node holds Ray and what we ship: any other distribution is not there
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        dists = {canonical(d) for d in owners.get(top, [])} - {"proctor-eval"}
        if dists and not dists & allowed:
            refused.add(top)
            raise ModuleNotFoundError(f"No module named {name!r} (not shipped)")
        return None

sys.meta_path.insert(0, OnlyShipped())
import proctor.executors.ray_entry, proctor.executors.ray_worker
from proctor.providers.registry import make_provider
for blob in cloudpickle.loads(open(sys.argv[1], "rb").read()):
    cloudpickle.loads(blob)  # every task, scorers and all

async def providers():
    for model in ("openai-compat/m@http://127.0.0.1:9/v1", "anthropic/c", "fake/const:1"):
        await make_provider(model, environ={"ANTHROPIC_API_KEY": "k"}).aclose()

asyncio.run(providers())
print(json.dumps(sorted(refused)))
"""


def test_a_worker_with_only_ray_and_what_we_ship_can_ask(tmp_path: Path) -> None:
    # The worker's path (entry, worker, the providers it may build, every task unpickled) in a
    # process that refuses every distribution a node would not have; optional imports (httpx
    # tries click, rich, pygments) may be refused, a needed one fails the run. `local` models need
    # llama-cpp-python on the node, as docs/ray.md says.
    from ray import cloudpickle

    from proctor.tasks.registry import TASKS, get_task

    blobs = tmp_path / "tasks.pkl"
    blobs.write_bytes(cloudpickle.dumps([cloudpickle.dumps(get_task(n)) for n in TASKS]))
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    allowed = set(pins()) | {canonical(p.split("==")[0]) for p in pinned_requirements(["ray"])}
    done = subprocess.run(
        [sys.executable, str(script), str(blobs), json.dumps(sorted(allowed))],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    # refused and not needed: httpx's optional command line (httpx._main tries them)
    assert set(json.loads(done.stdout)) <= {"click", "rich", "pygments"}


def test_a_users_runtime_env_is_merged_with_ours() -> None:
    user = {
        "py_modules": ["/opt/mine"],
        "pip": {"packages": ["pydantic==2.0.0", "orjson"], "pip_install_options": ["--no-index"]},
        "env_vars": {"TZ": "UTC"},
        "working_dir": "/srv/job",
        "excludes": ["*.log"],
    }
    env = merged(user)
    assert env["py_modules"] == [proctor_folder(), "/opt/mine"]
    assert env["excludes"] == ["__pycache__/", "*.pyc", "*.log"]
    assert env["config"] == {"eager_install": False}
    assert merged({"config": {"eager_install": True}})["config"] == {"eager_install": True}
    assert env["env_vars"] == {"TZ": "UTC"} and env["working_dir"] == "/srv/job"
    packages = env["pip"]["packages"]
    assert "pydantic==2.0.0" in packages and "orjson" in packages
    assert not [p for p in packages if p.startswith("pydantic==") and p != "pydantic==2.0.0"]
    assert env["pip"]["pip_install_options"] == ["--no-index"]
    assert len(packages) == len(pinned_requirements()) + 1  # ours but pydantic, and orjson


def test_a_pip_list_or_file_is_added(tmp_path: Path) -> None:
    assert merged({"pip": ["orjson==3"]})["pip"]["packages"][-1] == "orjson==3"
    req = tmp_path / "requirements.txt"
    req.write_text("# mine\norjson==3  # fast\n\nhttpx==0.27.0\n")
    packages = merged({"pip": str(req)})["pip"]["packages"]
    assert packages[-2:] == ["orjson==3", "httpx==0.27.0"]
    assert not [p for p in packages if p.startswith("httpx==") and p != "httpx==0.27.0"]


@pytest.mark.parametrize("field", ["conda", "uv", "image_uri", "container"])
def test_an_environment_that_brings_its_packages_gets_no_pip_from_us(field: str) -> None:
    env = merged({field: "x"})
    assert "pip" not in env and env["py_modules"] == [proctor_folder()] and env[field] == "x"
    assert merged({field: "x", "pip": ["orjson"]})["pip"] == ["orjson"]  # theirs, alone


@pytest.mark.parametrize(
    ("user", "fragment"),
    [
        ({"py_modules": "/opt/mine"}, "py_modules must be a list"),
        ({"excludes": "*.log"}, "excludes must be a list"),
        ({"pip": 3}, "pip must be a list"),
        ({"pip": {"packages": "orjson"}}, "pip must be a list"),
    ],
)
def test_a_bad_runtime_env_field_is_refused(user: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        merged(user)


def test_runtime_env_files(tmp_path: Path) -> None:
    (tmp_path / "e.json").write_text('{"env_vars": {"A": "1"}}')
    (tmp_path / "e.yaml").write_text("pip:\n  - orjson\n")
    assert load_runtime_env(tmp_path / "e.json") == {"env_vars": {"A": "1"}}
    assert load_runtime_env(tmp_path / "e.yaml") == {"pip": ["orjson"]}
    bad = {
        "bad.json": ('{"pip": [', "bad.json, line 1: not JSON"),
        "bad.yaml": ("pip:\n  - a\n b: [\n", "bad.yaml, line 3: not YAML"),
        "list.yaml": ("- a\n", "must be a mapping"),
        "empty.yaml": ("", "must be a mapping"),
    }
    for name, (text, fragment) in bad.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ConfigError, match=fragment):
            load_runtime_env(tmp_path / name)
    with pytest.raises(ConfigError, match=r"missing\.yaml: cannot read"):
        load_runtime_env(tmp_path / "missing.yaml")


def test_forwarded_variables_are_read_here_and_must_be_set() -> None:
    env = {"OPENAI_API_KEY": "sk-SECRET", "EMPTY": ""}
    assert forwarded(["OPENAI_API_KEY"], env) == {"OPENAI_API_KEY": "sk-SECRET"}
    for name, fragment in (("EMPTY", "EMPTY is not set"), ("NOPE", "NOPE is not set")):
        with pytest.raises(ConfigError, match=fragment) as info:
            forwarded([name], env)
        assert "SECRET" not in str(info.value)
    with pytest.raises(ConfigError, match="expected the name of a variable"):
        forwarded(["sk-SECRET"], env)


def test_custom_resources() -> None:
    assert parse_resources(["gpu_box=1", " net = 0.5"]) == {"gpu_box": 1.0, "net": 0.5}
    for bad in ("x", "x=", "=1", "x=0", "x=-1", "x=nan", "x=inf", "x=one"):
        with pytest.raises(ConfigError, match="expected NAME=N"):
            parse_resources([bad])
