"""Gateways as a table (gateway_cases.json): a model string and the environment → where the
model is asked and the variable its key comes from, or the refusal. One test walks every row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.providers.fake import FakeProvider, constant_reply
from proctor.providers.keys import plan_keys
from proctor.providers.registry import PROVIDERS, ModelSpec, make_provider, parse_model

CASES = json.loads(
    (Path(__file__).parent / "cases" / "gateway_cases.json").read_text(encoding="utf-8")
)


def _acme(spec: ModelSpec, key: str | None) -> FakeProvider:
    return FakeProvider(spec.model, constant_reply("1"), keep_prompts=False)


def _walk(row: dict[str, Any]) -> tuple[str, str | None] | str:
    try:
        spec = parse_model(row["model"], row["env"])
        plan = plan_keys([spec.key_target(row["model"])], row.get("named", {}), row["env"])
    except ConfigError as e:
        return f"error: {e}"
    return spec.base_url, plan[row["model"]].var


def test_gateway_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROVIDERS._builtin, "acme", lambda: _acme)
    monkeypatch.setattr(PROVIDERS, "_loaded", {})
    rows = CASES["rows"]
    assert len({r["id"] for r in rows}) == len(rows)
    failures: list[str] = []
    for row in rows:
        got = _walk(row)
        if "error" in row:
            if not (isinstance(got, str) and row["error"] in got):
                failures.append(f"{row['id']}: expected error {row['error']!r}, got {got!r}")
            elif "SECRET" in got:
                failures.append(f"{row['id']}: the refusal repeats the key: {got!r}")
        elif got != (row["base_url"], row["key"]):
            failures.append(f"{row['id']}: expected {(row['base_url'], row['key'])!r}, got {got!r}")
    assert not failures, f"{len(failures)} of {len(rows)} rows failed:\n" + "\n".join(failures)


def test_a_key_planned_for_one_host_is_never_sent_to_another() -> None:
    # Planned where the run starts (no OPENAI_BASE_URL: OpenAI's API, OPENAI_API_KEY) but the
    # provider made where OPENAI_BASE_URL points elsewhere (a Ray worker's own environment).
    here = {"OPENAI_API_KEY": "sk-SECRET-o"}
    there = {"OPENAI_API_KEY": "sk-SECRET-o", "OPENAI_BASE_URL": "http://10.0.0.9:8000/v1"}
    spec = parse_model("openai/gpt-4o", here)
    (source,) = plan_keys([spec.key_target("openai/gpt-4o")], {}, here).values()
    assert source.var == "OPENAI_API_KEY"
    with pytest.raises(ConfigError, match=r"planned for api\.openai\.com:443") as refused:
        make_provider("openai/gpt-4o", source, environ=there)
    assert "SECRET" not in str(refused.value)
