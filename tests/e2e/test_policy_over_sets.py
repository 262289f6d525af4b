"""`proctor gate --policy release.toml SET [--baseline SET]` through the CLI: an eval set of two
tasks asked of two models on a loopback stub stands for its runs (by id, prefix or name); a
required task the set lacks is NO-GO; an unfinished set shows its task without a run as
INCOMPLETE; and `proctor validate` checks a policy file as it checks a set file."""

from __future__ import annotations

import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from support.stub.config import StubConfig
from support.stub.server import run_stub

from .conftest import flat_cli_or_refusal as cli
from .conftest import policy_file as policy

CRITICAL = '[tasks.arithmetic]\ntier = "critical"\nrequire = ["accuracy>=0.8"]\n'


def _sets(results: Path) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        rows = db.execute("SELECT id, status FROM eval_sets ORDER BY created_at, rowid")
        return [(str(i), str(s)) for i, s in rows]


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two sets of arithmetic and gsm8k × two models: one answered right, one about half right
    (the same port, so the same model names; no cache, so the second set asks again)."""
    results = tmp_path_factory.mktemp("policy-sets") / "results"
    port = 0
    for rate in (1.0, 0.5):
        with run_stub(StubConfig(correct_rate=rate, seed=3), port=port) as stub:
            port = stub.port
            models = [f"openai-compat/{m}@{stub.base_url}" for m in ("a", "b")]
            code, out = cli("run", "arithmetic", "gsm8k", "--limit", "30", "-m", models[0],
                            "-m", models[1], "--cache", "off", "-r", results)  # fmt: skip
            assert code == 0, out
    (good, status_good), (weak, status_weak) = _sets(results)
    assert status_good == status_weak == "complete"
    return results, good, weak


def test_a_set_stands_for_its_runs(sets: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, weak = sets
    file = policy(tmp_path, CRITICAL + '[tasks.gsm8k]\ntier = "advisory"\nrequired = true\n')
    code, out = cli("gate", "--policy", file, good, "-r", results)
    assert code == 0, out
    assert "GO: every critical and supporting check" in out
    assert out.count("accuracy>=0.8") == 2, out  # one row per model
    assert "MISSING" not in out and "INCOMPLETE" not in out
    code, out = cli("gate", "--policy", file, weak[:-3], "-r", results)  # a prefix
    assert code == 1, out
    assert "NO-GO: 2 blocking reason(s), in arithmetic." in out


def test_a_required_task_the_set_lacks_is_no_go(
    sets: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, _ = sets
    file = policy(tmp_path, CRITICAL + '[tasks.mbpp]\ntier = "supporting"\nrequired = true\n')
    code, out = cli("gate", "--policy", file, good, "-r", results)
    assert code == 1, out
    assert "NO-GO: 1 blocking reason(s), in mbpp." in out
    assert "a required task has no run" in out


def test_a_set_against_a_baseline_set(sets: tuple[Path, str, str], tmp_path: Path) -> None:
    results, good, weak = sets
    file = policy(tmp_path, '[tasks.arithmetic]\ntier = "critical"\nmargin = "1pp"\n')
    code, out = cli("gate", "--policy", file, weak, "--baseline", good, "-r", results)
    assert code == 1, out
    assert "INFERIOR" in out


def test_an_unfinished_set_shows_its_task_without_a_run(
    sets: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, _ = sets
    where = "WHERE set_id = ? AND task = 'gsm8k'"
    with closing(sqlite3.connect(results / "proctor.db")) as db, db:
        ((run_id,),) = db.execute(f"SELECT run_id FROM eval_set_runs {where}", (good,)).fetchall()
        db.execute(f"UPDATE eval_set_runs SET run_id = '' {where}",
                   (good,))  # fmt: skip
    file = policy(tmp_path, CRITICAL + '[tasks.gsm8k]\ntier = "supporting"\n')
    try:
        code, out = cli("gate", "--policy", file, good, "-r", results)
    finally:
        with closing(sqlite3.connect(results / "proctor.db")) as db, db:
            db.execute(f"UPDATE eval_set_runs SET run_id = ? {where}",
                       (run_id, good))  # fmt: skip
    assert code == 1, out
    assert "NO-GO: 1 blocking reason(s), in gsm8k." in out
    assert re.search(rf"INCOMPLETE │ blocks │ set {good} has no run of it yet", out), out


def test_a_required_task_whose_run_is_incomplete_is_no_go(
    sets: tuple[Path, str, str], tmp_path: Path
) -> None:
    results, good, _ = sets
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    with closing(sqlite3.connect(copy / "proctor.db")) as db, db:
        db.execute(
            "DELETE FROM records WHERE rowid IN (SELECT rowid FROM records WHERE run_id ="
            " (SELECT run_id FROM eval_set_runs WHERE set_id = ? AND task = 'gsm8k') LIMIT 5)",
            (good,),
        )
    advisory = CRITICAL + '[tasks.gsm8k]\ntier = "advisory"\nrequired = {}\n'
    code, out = cli("gate", "--policy", policy(tmp_path, advisory.format("true")), good, "-r", copy)
    assert code == 1, out
    assert re.search(r"NO-GO: [12] blocking reason\(s\), in gsm8k\.", out), out
    assert re.search(r"run complete │ — │ — │ INCOMPLETE │ blocks", out), out
    code, out = cli(
        "gate", "--policy", policy(tmp_path, advisory.format("false")), good, "-r", copy
    )
    assert code == 0, out
    assert re.search(r"INCOMPLETE │ noted", out), out


def test_validate_checks_a_policy_file(tmp_path: Path) -> None:
    file = policy(tmp_path, '[policy]\nname = "v2"\n' + CRITICAL + "[tasks.gsm8k]\n")
    for kind in ((), ("--kind", "policy")):
        code, out = cli("validate", file, *kind)
        assert code == 0, out
        assert (f"{file}: ok. policy 'v2': 2 tasks: arithmetic (critical, required, "
                "accuracy>=0.8), gsm8k (supporting)") in out  # fmt: skip
    code, out = cli("validate", file, "--kind", "set")
    assert code == 2 and str(file) in out, out


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (CRITICAL + "requires = []\n", "line 4: tasks.arithmetic.requires: unknown field"),
        ('[policy]\nname = "v2"\nmargins = "1pp"\n', "line 3: policy.margins: unknown field"),
        ('[policy]\nname = "v2"\n', "tasks: no [tasks.NAME] table"),
        ('[tasks.a]\ntier = "crucial"\n', "line 2: tasks.a.tier: must be one of"),
        ("[policy\n", "bad TOML"),
    ],
)
def test_validate_refuses_a_bad_policy_naming_file_line_and_field(
    tmp_path: Path, text: str, where: str
) -> None:
    file = policy(tmp_path, text)
    code, out = cli("validate", file)
    assert code == 2, out
    assert str(file) in out and where in out, out


def test_a_set_asking_a_task_twice_is_refused_with_the_way_out(tmp_path: Path) -> None:
    evals = tmp_path / "evals.toml"
    evals.write_text('models = ["fake/const:42"]\nlimit = 2\n[[tasks]]\ntask = "arithmetic"\n'
                     "seeds = [1, 2]\n", encoding="utf-8")  # fmt: skip
    results = tmp_path / "results"
    code, out = cli("run", "--config", evals, "-r", results)
    assert code == 0, out
    ((set_id, _),) = _sets(results)
    code, out = cli("gate", "--policy", policy(tmp_path, CRITICAL), set_id, "-r", results)
    assert code == 2, out
    assert "two candidate runs for task 'arithmetic'" in out
    assert f"set {set_id} asks it more than once: give its runs by id" in out
