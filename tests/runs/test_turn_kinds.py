"""The light check "is this run a turn run?" agrees with the kinds' table, and a run of samples
is reported without loading the dialogue and workflow machinery."""

from __future__ import annotations

import subprocess
import sys

from proctor.runs.turn_kinds import TURN_KIND_NAMES, turn_kind
from proctor.runs.turns import TURN_KINDS


def test_names_are_the_tables_keys() -> None:
    assert set(TURN_KIND_NAMES) == set(TURN_KINDS)
    for name in TURN_KINDS:
        assert turn_kind(name) is TURN_KINDS[name]


def test_a_task_of_samples_is_no_turn_kind() -> None:
    for task in ("arithmetic", "gsm8k", "Dialogue", "workflow ", ""):
        assert turn_kind(task) is None


def test_reporting_a_run_of_samples_does_not_import_the_turn_machinery() -> None:
    code = (
        "import sys\n"
        "import proctor.runs.rereport, proctor.runs.gate, proctor.runs.listing\n"
        "from proctor.runs.turn_kinds import turn_kind\n"
        "assert turn_kind('arithmetic') is None\n"
        "loaded = [m for m in ('proctor.runs.turns', 'proctor.workflow.checks', 'jsonschema',"
        " 'markdown_it') if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
