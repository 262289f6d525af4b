"""The Ray runtime_env a run ships with its work, so a worker node needs nothing but Ray.

Ours carries proctor itself (`py_modules`: the installed package's folder, zipped and uploaded by
Ray once per job) and what a worker imports of its dependencies (`pip`: the dependency closure of
`WORKER_DISTRIBUTIONS`, pinned to the versions this machine runs). A user's runtime_env
(`--ray-runtime-env FILE`, JSON or YAML) is merged with ours; `--ray-runtime-env none` ships
nothing, for clusters whose nodes already have proctor.

No key is ever put in a runtime_env: Ray writes the whole runtime_env, env_vars included, into
its logs on every node. Variables forwarded with `--ray-forward-env` travel inside the shard's
own (pickled) argument instead."""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import proctor
from proctor.errors import ConfigError

WORKER_DISTRIBUTIONS = ("aiohttp", "httpx", "pydantic")
"""What a worker imports besides proctor and the standard library: the providers' wire (aiohttp,
httpx), the calling layer's rate limiter, and the tasks' data types. A test walks the worker's
real imports and fails if one is missing here."""

NO_PIP_KEYS = ("conda", "uv", "image_uri", "container")
"""runtime_env fields that bring their own packages: with one of them ours adds no `pip`."""

_ENV_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_requirements(roots: Iterable[str] = WORKER_DISTRIBUTIONS) -> list[str]:
    """`name==version` for `roots` and everything they require here (markers evaluated for this
    Python, extras left out), sorted; a root that is not installed is a ConfigError."""
    from packaging.requirements import Requirement  # Ray's own dependency: present with Ray

    seen: dict[str, str] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        key = canonical(name)
        if key in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError as e:
            raise ConfigError(f"cannot ship {name} to Ray workers: it is not installed here") from e
        seen[key] = f"{dist.metadata['Name']}=={dist.version}"
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return sorted(seen.values(), key=str.lower)


def proctor_folder() -> str:
    """The folder of the proctor package this driver runs (an editable checkout's `src/proctor`
    or site-packages' `proctor`): shipped whole as a py_module."""
    return str(Path(proctor.__file__).parent)


def ours() -> dict[str, Any]:
    return {
        "py_modules": [proctor_folder()],
        "pip": {"packages": pinned_requirements(), "pip_check": False},
        "excludes": ["__pycache__/", "*.pyc"],
        # built on a node when its first shard comes, not on every node at the job's start:
        # a head that asks nothing need not copy its environment
        "config": {"eager_install": False},
    }


def load_runtime_env(path: Path) -> dict[str, Any]:
    """A user's runtime_env from a JSON or YAML file (a mapping); ConfigError naming the file
    (and line, where the parser knows it) when it cannot be read or is not a mapping."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the runtime_env file: {e}") from e
    yaml = importlib.import_module("yaml")  # a dependency of proctor; untyped
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}, line {e.lineno}: not JSON: {e.msg}") from e
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: not YAML: {e}") from e
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise ConfigError(f"{path}: a runtime_env must be a mapping of fields (py_modules, pip…)")
    return data


def merged(user: Mapping[str, Any] | None) -> dict[str, Any]:
    """Our runtime_env with the user's merged in: py_modules and excludes added to ours, pip
    packages added (theirs win for a distribution both name), every other field theirs. With
    conda, uv, an image or a container the user's environment brings the packages and ours adds
    no pip."""
    base = ours()
    if not user:
        return base
    out: dict[str, Any] = {k: v for k, v in user.items() if k not in ("py_modules", "pip")}
    for name in ("py_modules", "excludes"):
        theirs = user.get(name, [])
        if not isinstance(theirs, list):
            raise ConfigError(f"runtime_env {name} must be a list")
        out[name] = [*base.get(name, []), *theirs]
    out.setdefault("config", base["config"])
    if any(k in user for k in NO_PIP_KEYS):
        if "pip" in user:
            out["pip"] = user["pip"]
        return out
    out["pip"] = _merged_pip(base["pip"], user.get("pip"))
    return out


def _merged_pip(ours_pip: dict[str, Any], theirs: Any) -> dict[str, Any]:
    if theirs is None:
        return ours_pip
    if isinstance(theirs, str):  # a requirements file, as Ray reads it
        theirs = {"packages": _requirement_lines(Path(theirs))}
    elif isinstance(theirs, list):
        theirs = {"packages": theirs}
    if not isinstance(theirs, dict) or not isinstance(theirs.get("packages", []), list):
        raise ConfigError("runtime_env pip must be a list of packages, a file, or a mapping")
    their_packages = [str(p) for p in theirs.get("packages", [])]
    named = {canonical(_name_of(p)) for p in their_packages}
    kept = [p for p in ours_pip["packages"] if canonical(_name_of(p)) not in named]
    return {**ours_pip, **theirs, "packages": [*kept, *their_packages]}


def _name_of(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def _requirement_lines(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the pip requirements file: {e}") from e
    return [s for s in (line.split("#", 1)[0].strip() for line in lines) if s]


def forwarded(names: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The values of the variables named with `--ray-forward-env`, read here; ConfigError for a
    bad name or one that is not set (an empty value is not set)."""
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for name in names:
        if not _ENV_VAR.fullmatch(name):
            raise ConfigError(f"--ray-forward-env {name!r}: expected the name of a variable")
        value = env.get(name)
        if not value:
            raise ConfigError(f"--ray-forward-env {name}: {name} is not set here")
        out[name] = value
    return out


def parse_resources(entries: Iterable[str]) -> dict[str, float]:
    """`--ray-resources NAME=N` options → {NAME: N}: custom resources every shard asks for."""
    out: dict[str, float] = {}
    for entry in entries:
        name, eq, amount = entry.partition("=")
        try:
            value = float(amount)
        except ValueError:
            value = -1.0
        if not eq or not name.strip() or not value > 0 or value != value or value == float("inf"):
            raise ConfigError(f"bad --ray-resources {entry!r}: expected NAME=N with N > 0")
        out[name.strip()] = value
    return out
