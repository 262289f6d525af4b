"""`is_policy_file`: `proctor validate` tells a release policy from a set file by its tables,
also when the TOML is broken (then the right reader names the error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.runs.policy_file import is_policy_file


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ('[policy]\nname = "v2"\n', True),
        ('[tasks.arithmetic]\ntier = "critical"\n', True),
        ("[tasks.a]\ntier = \n", True),  # broken, but its tables say policy
        ('[ policy ]\nname = "v2\n', True),
        ('models = ["fake/const:1"]\n[[tasks]]\ntask = "arithmetic"\n', False),
        ('models = ["fake/const:1"]\n[[tasks]]\ntask = \n', False),  # broken set file
        ("", False),
        ("tasks = 3\n", False),
    ],
)
def test_kind_is_told_by_the_tables(tmp_path: Path, text: str, policy: bool) -> None:
    file = tmp_path / "f.toml"
    file.write_text(text, encoding="utf-8")
    assert is_policy_file(file) is policy


def test_an_unreadable_file_goes_to_the_set_reader(tmp_path: Path) -> None:
    assert is_policy_file(tmp_path / "missing.toml") is False
