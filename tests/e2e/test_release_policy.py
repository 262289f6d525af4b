"""`proctor gate --policy release.toml RUN… [--baseline RUN…]` through the CLI, over runs asked
of a loopback stub: GO, NO-GO (a required task missing, a margin lost), INCONCLUSIVE (exit 7),
the Markdown for a pull request, and a wrong policy file refused with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.store import RunStore
from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import flat_cli_or_refusal as cli
from .conftest import policy_file as policy


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A baseline (every answer right) and a weaker candidate (about half), 60 items each."""
    results = tmp_path_factory.mktemp("policy") / "results"
    ids = []
    for rate in (1.0, 0.5):
        with run_stub(StubConfig(correct_rate=rate, seed=7)) as stub:
            # no cache: should the OS hand out the same port twice, the model names match
            code, out = cli("run", "arithmetic", "--n", "60", "-m", stub.model, "--cache", "off",
                            "-r", results)  # fmt: skip
            assert code == 0, out
        with RunStore.open(results) as store:  # the one run not seen before: two runs of
            # one second sort by their ids' random tails, so the largest id may be the first
            (new,) = {r.run_id for r in store.list_runs()} - set(ids)
            ids.append(new)
    return results, ids[0], ids[1]


def test_a_missing_required_task_is_no_go(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, _ = runs
    file = policy(tmp_path, """
[tasks.arithmetic]
tier = "critical"
require = ["accuracy>=0.8"]

[tasks.gsm8k]
tier = "supporting"
required = true
""")
    md = tmp_path / "pr.md"
    code, out = cli("gate", "--policy", file, good, "--markdown", md, "-r", results)
    assert code == 1, out
    assert "NO-GO: 1 blocking reason(s), in gsm8k." in out
    assert "MISSING" in out and "a required task has no run" in out
    text = md.read_text(encoding="utf-8")
    assert "❌ NO-GO" in text and "| gsm8k | supporting |" in text


def test_all_clear_is_go(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, _ = runs
    file = policy(tmp_path, '[tasks.arithmetic]\ntier = "critical"\nrequire = ["accuracy>=0.9"]\n'
                            '[tasks.gsm8k]\ntier = "advisory"\n')  # fmt: skip
    code, out = cli("gate", "--policy", file, good, "-r", results)
    assert code == 0, out
    assert "GO: every critical and supporting check" in out
    assert "not run (not required)" in out


def test_a_critical_check_without_evidence_is_inconclusive(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, _ = runs
    file = policy(tmp_path, '[tasks.arithmetic]\ntier = "critical"\nrequire = ["accuracy>=0.97"]\n')
    code, out = cli("gate", "--policy", file, good, "-r", results)
    assert code == 7, out  # 60 of 60 right: the interval reaches down to 94 %
    assert "INCONCLUSIVE: nothing blocks" in out
    code, _ = cli("gate", "--policy", file, good, "--allow-inconclusive", "-r", results)
    assert code == 0


def test_a_lost_margin_against_the_baseline_is_no_go(
    runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, weak = runs
    file = policy(tmp_path, '[policy]\nmargin = "1pp"\n[tasks.arithmetic]\ntier = "critical"\n')
    code, out = cli("gate", "--policy", file, weak, "--baseline", good, "-r", results)
    assert code == 1, out
    assert "within 1 points of" in out and "INFERIOR" in out
    # the same answers again: 60 items cannot show "within 1 point" (the interval is ±3.2) …
    code, out = cli("gate", "--policy", file, good, "--baseline", good, "-r", results)
    assert code == 7, out
    assert "paired items would decide it" in out
    # … but they can show "within 5 points"
    wide = policy(tmp_path, '[tasks.arithmetic]\ntier = "critical"\nmargin = "5pp"\n')
    code, out = cli("gate", "--policy", wide, good, "--baseline", good, "-r", results)
    assert code == 0, out
    assert "EQUIVALENT" in out


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('[tasks.arithmetic]\ntier = "crucial"\n', "line 2: tasks.arithmetic.tier: must be one of"),
        ('[tasks.a]\nrequire = ["acuracy>=0.9"]\n', "line 2: tasks.a.require: unknown metric"),
        ('[tasks.a]\n\nmargin = "lots"\n', "line 3: tasks.a.margin: margin is a number"),
        ('[tasks.a]\ntiers = "critical"\n', "line 2: tasks.a.tiers: unknown field"),
        ("[policy]\nname = 'x'\n", "tasks: no [tasks.NAME] table"),
        ("[tasks.a\n", "bad TOML"),
    ],
)
def test_a_wrong_policy_is_refused_naming_file_line_and_field(
    tmp_path: Path, text: str, where: str
) -> None:
    file = policy(tmp_path, text)
    code, out = cli("gate", "--policy", file)
    assert code == 2
    assert str(file) in out and where in out, out


def test_a_valid_policy_alone_is_checked(tmp_path: Path) -> None:
    file = policy(tmp_path, '[tasks.arithmetic]\ntier = "critical"\nrequire = ["accuracy>=0.9"]\n')
    code, out = cli("gate", "--policy", file)
    assert code == 0 and "is valid: arithmetic (critical, required, accuracy>=0.9)" in out
