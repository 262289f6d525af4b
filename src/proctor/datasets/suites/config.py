"""A suite's optional defaults: a small TOML (or YAML) file beside the suite with the same stem,
e.g. `cases.csv` + `cases.toml`. Every key is optional; an unknown key is an error.

    name = "support-desk"           # shown in reports
    lang = "zh"                     # prompt language when a case does not say (else guessed)
    system = "你是一名严谨的助理。"     # a system message for every case
    max_tokens = 256                # reply length limit (the CLI's --max-tokens wins)
    match = "exact"                 # extraction match mode when a case does not say
    refusal_phrases = ["资料中查不到"]  # more phrases that count as "the material does not say"
    judge = "local"                 # judge model for `proctor run --suite` (the CLI's --judge wins)
    judge_kinds = ["summary", "rewrite"]   # kinds the judge grades (default: all)
    judge_max_tokens = 160

    [gate]                          # what `proctor gate RUN` requires when given no --require
    require = ["accuracy>=0.8", "kind=extraction:accuracy>=0.9"]
    alpha = 0.05

YAML needs PyYAML, which proctor does not install; TOML needs nothing.
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proctor._util.untrusted import (
    MAX_JSON_DEPTH,
    Refused,
    loads_toml_bounded,
    nesting_depth,
    read_input_file,
)
from proctor.datasets.suites.case import KINDS, Kind
from proctor.errors import ConfigError

CONFIG_SUFFIXES = (".toml", ".yaml", ".yml")
MAX_CONFIG_BYTES = 1024 * 1024


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    require: list[str] = Field(default_factory=list)
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0)


class SuiteConfig(BaseModel):
    # strict: `max_tokens = "256"` is a mistake to point at, not a string to coerce.
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = ""
    lang: Literal["zh", "en"] | None = None
    system: str = ""
    max_tokens: int = Field(default=256, ge=1)
    match: Literal["exact", "contains"] = "exact"
    refusal_phrases: list[str] = Field(default_factory=list)
    judge: str | None = None
    judge_kinds: list[Kind] = Field(default_factory=lambda: list(KINDS))
    judge_max_tokens: int = Field(default=256, ge=1)
    gate: GateConfig = Field(default_factory=GateConfig)


def config_path_for(suite: Path) -> Path | None:
    """The config file beside `suite`, if there is one; two candidates are an error."""
    # Whatever is there counts (a FIFO or a folder too): it is refused when read, never
    # silently skipped, which would run the suite without the config its author wrote.
    found = [
        p for p in (suite.with_suffix(s) for s in CONFIG_SUFFIXES) if p.exists() or p.is_symlink()
    ]
    if len(found) > 1:
        names = " and ".join(str(p) for p in found)
        raise ConfigError(f"two configs for suite {suite}: {names}; keep one")
    return found[0] if found else None


def _read(path: Path) -> Any:
    try:
        text = read_input_file(path, max_bytes=MAX_CONFIG_BYTES).decode("utf-8-sig")
    except Refused as e:
        raise ConfigError(f"{path}: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if path.suffix == ".toml":
        try:
            return loads_toml_bounded(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: bad TOML: {e}") from None
        except Refused as e:
            raise ConfigError(f"{path}: refused: {e}") from None
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:
        raise ConfigError(
            f"{path}: reading YAML needs PyYAML (pip install pyyaml); or write the config as TOML"
        ) from None
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: bad YAML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: refused: nested deeper than {MAX_JSON_DEPTH} levels") from None
    if nesting_depth(data) > MAX_JSON_DEPTH:
        raise ConfigError(
            f"{path}: refused: nested deeper than {MAX_JSON_DEPTH} levels, or an alias (&/*) "
            "that repeats a list or table"
        )
    return data


def load_config(path: Path | None) -> SuiteConfig:
    """The config in `path`, or the defaults when None."""
    if path is None:
        return SuiteConfig()
    data = _read(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a table of settings at the top")
    try:
        return SuiteConfig.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"{path}: {where}: {err['msg']}") from None
