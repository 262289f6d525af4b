"""The key header before a run: one line per variable and host, however many models share it."""

from __future__ import annotations

import io

from proctor.cli.console import SafeConsole
from proctor.cli.keys import print_key_header
from proctor.providers.keys import KeySource

HOST = "127.0.0.1:8000"


def _header(sources: dict[str, KeySource]) -> list[str]:
    out = io.StringIO()
    print_key_header(sources, SafeConsole(file=out, width=400, color_system=None))
    return out.getvalue().splitlines()


def _keyless(name: str) -> KeySource:
    model = f"openai-compat/{name}@http://{HOST}/v1"
    why = f"if it needs one, --api-key-env {name}=VAR names it"
    return KeySource(model, HOST, None, why)


def test_many_keyless_models_on_one_host_share_one_line_naming_model() -> None:
    sources = {s.model: s for s in (_keyless(f"m{i:02}") for i in range(1, 51))}
    lines = _header(sources)
    assert len(lines) == 1, lines
    assert "no key → 127.0.0.1:8000" in lines[0] and "and 44 more" in lines[0]
    assert "--api-key-env MODEL=VAR" in lines[0] and "m01=VAR" not in lines[0]


def test_one_keyless_model_keeps_its_own_name_in_the_hint() -> None:
    only = _keyless("mine")
    (line,) = _header({only.model: only})
    assert "--api-key-env mine=VAR names it" in line


def test_different_variables_stay_on_lines_of_their_own() -> None:
    a = KeySource("openai-compat/a@http://h:1/v1", "h:1", "A_KEY", "named by --api-key-env")
    b = KeySource("openai-compat/b@http://h:1/v1", "h:1", "B_KEY", "named by --api-key-env")
    lines = _header({a.model: a, b.model: b})
    assert len(lines) == 2 and "A_KEY" in lines[0] and "B_KEY" in lines[1]
