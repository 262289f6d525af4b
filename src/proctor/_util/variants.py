"""A variant of a matrix run in a model string: `MODEL#prompt=B,lang=zh,temperature=0.7` is
MODEL asked with that prompt, language and temperature (`proctor run --prompt A --prompt B`,
`--temperature 0 --temperature 0.7`, or lists in a set's file). Each variant is a "model" of
the run: answered on the same items and compared paired like models. Pure string work, read by
the providers (who ask MODEL), the executors (who ask it that way) and the reports (who name
the variants)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

VARIANT_MARK = "#"
_KEY = "(?:prompt|lang|temperature)"
_VARIANT = re.compile(rf"#({_KEY}=[^,#=]+(?:,{_KEY}=[^,#=]+)*)$")


def _settings(model: str) -> tuple[str, dict[str, str]]:
    s = model.strip()
    found = _VARIANT.search(s)
    if found is None:
        return s, {}
    settings = dict(part.split("=", 1) for part in found.group(1).split(","))
    if "temperature" in settings and _temperature(settings["temperature"]) is None:
        return s, {}  # not a variant: a model string that merely holds '#…'
    return s[: found.start()], settings


def _temperature(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


@lru_cache(maxsize=1024)  # read for each answer of a run, of a handful of model strings
def split_variant(model: str) -> tuple[str, str | None, str | None]:
    """`MODEL#prompt=B,lang=zh` read: (MODEL, "B", "zh"); a model string without a variant:
    (it, None, None)."""
    bare, settings = _settings(model)
    return bare, settings.get("prompt"), settings.get("lang")


@lru_cache(maxsize=1024)
def variant_temperature(model: str) -> float | None:
    """The temperature a variant is asked at (None: the run's)."""
    found = _settings(model)[1].get("temperature")
    return None if found is None else _temperature(found)


def variant_model(
    model: str, prompt: str | None, lang: str | None, temperature: float | None = None
) -> str:
    """`model` as the variant asked with `prompt`, `lang` and `temperature` (None: not
    varied)."""
    t = None if temperature is None else repr(float(temperature))
    parts = [
        f"{k}={v}" for k, v in (("prompt", prompt), ("lang", lang), ("temperature", t)) if v
    ]
    return f"{model}{VARIANT_MARK}{','.join(parts)}" if parts else model


def matrix_axes(models: Sequence[str]) -> dict[str, list[str]]:
    """What a matrix run varies: per setting ("prompt", "lang", "temperature") its values in
    the order first asked; only the settings some variant sets."""
    axes: dict[str, list[str]] = {"prompt": [], "lang": [], "temperature": []}
    for m in models:
        for key, value in _settings(m)[1].items():
            if value not in axes[key]:
                axes[key].append(value)
    return {k: v for k, v in axes.items() if v}


def matrix_words(models: Sequence[str]) -> str | None:
    """What a matrix run varies, in words ("8 variants of 2 models: prompt × temperature");
    None when no model string is a variant."""
    axes = matrix_axes(models)
    if not axes:
        return None
    bare = len(dict.fromkeys(_settings(m)[0] for m in models))
    varied = " × ".join(axes)
    return f"{len(models)} variants of {bare} model{'s' if bare != 1 else ''}: {varied}"
