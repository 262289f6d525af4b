"""The exit-code tables of README.md and docs/exit-codes.md name the codes `proctor.runs.state`
decides, and state its order of precedence."""

from __future__ import annotations

import re

import pytest

from proctor.runs import state
from support.doc_blocks import REPO

PAGES = ["README.md", "docs/exit-codes.md"]


def _codes() -> set[int]:
    return {v for k, v in vars(state).items() if k.startswith("EXIT_") and isinstance(v, int)}


@pytest.mark.parametrize("name", PAGES)
def test_the_table_names_every_code_and_no_other(name: str) -> None:
    text = (REPO / name).read_text(encoding="utf-8")
    table = text.split("| code | meaning |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| ")]
    said = {int(code) for row in rows for code in re.findall(r"\d+", row)}
    assert said == _codes()


@pytest.mark.parametrize("name", PAGES)
def test_the_order_of_precedence_is_the_codes(name: str) -> None:
    text = " ".join((REPO / name).read_text(encoding="utf-8").split())
    found = re.search(r"the first in this order wins: ([\d, ()]+)\.", text)
    assert found is not None
    said = [int(code) for code in re.findall(r"\d+", found[1])]
    interrupted = [state.EXIT_INTERRUPTED, state.EXIT_TERMINATED, state.EXIT_HANGUP]
    expected = [c for code in state.PRECEDENCE for c in (interrupted if code == 130 else [code])]
    assert said == expected
