"""The `proctor` command, through typer's CliRunner and as a real process for exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from proctor.cli.app import app
from proctor.providers import registry
from proctor.runs import ask as runner_module
from proctor.store import RunStore

WIDE = {"COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SAMPLE_KEYS = {"id", "input", "target", "category", "difficulty", "answer_type"}


def squash(text: str) -> str:
    """Output without colour codes or whitespace, so rich's wrapping cannot split what we seek."""
    return "".join(_ANSI.sub("", text).split())


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(app, [str(a) for a in args], env=WIDE, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def proctor(*args: str | Path, cwd: Path, columns: int = 400) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.update(WIDE, COLUMNS=str(columns))
    return subprocess.run(
        [sys.executable, "-m", "proctor", *(str(a) for a in args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run every command in a scratch folder, so a default results folder lands there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def runs_in(results: Path) -> list[str]:
    if not (results / "proctor.db").exists():
        return []
    with RunStore.open(results) as store:
        return [r.run_id for r in store.list_runs()]


def record_count(results: Path) -> int:
    with RunStore.open(results) as store:
        return sum(r.n_records for r in store.list_runs())


def accuracies(results: Path, run_id: str) -> dict[str, float]:
    data = json.loads((results / "runs" / run_id / "results.json").read_text(encoding="utf-8"))
    return {m["model"]: m["accuracy"] for m in data["models"]}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Four samples; `fake/const:42` answers two of them right."""
    rows = [
        {"id": "r1", "input": "40 + 2", "target": "42", "category": "add"},
        {"id": "r2", "input": "6 * 7", "target": "42", "category": "mul"},
        {"id": "w1", "input": "1 + 1", "target": "2", "category": "add"},
        {"id": "w2", "input": "2 * 2", "target": "4", "category": "mul"},
    ]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- generate ------------------------------------------------------------------------------------


def test_generate_is_byte_identical_for_a_seed(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    invoke("generate", "arithmetic", "--seed", "42", "--n", "30", "-o", a)
    invoke("generate", "arithmetic", "--seed", "42", "--n", "30", "-o", b)
    invoke("generate", "arithmetic", "--seed", "43", "--n", "30", "-o", c)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    lines = a.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 30
    for line in lines:
        row = json.loads(line)
        assert set(row) >= SAMPLE_KEYS
    assert len({json.loads(line)["id"] for line in lines}) == 30


def test_generate_overwrites_with_the_same_bytes(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    invoke("generate", "arithmetic", "--seed", "5", "--n", "10", "-o", out)
    first = out.read_bytes()
    invoke("generate", "arithmetic", "--seed", "5", "--n", "10", "-o", out)
    assert out.read_bytes() == first


def test_generated_file_runs_as_a_dataset(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    invoke("generate", "arithmetic", "--seed", "1", "--n", "8", "-o", out)
    results = tmp_path / "R"
    invoke("run", "--dataset", out, "-m", "fake/const:42", "-r", results)
    assert len(runs_in(results)) == 1
    assert record_count(results) == 8


# -- run -----------------------------------------------------------------------------------------


def test_run_builtin_task_writes_the_report_files(tmp_path: Path) -> None:
    results = tmp_path / "R"
    out = invoke("run", "arithmetic", "-m", "fake/const:42", "--limit", "5", "-r", results)
    (run_id,) = runs_in(results)
    run_dir = results / "runs" / run_id
    text = squash(out.output)
    assert f"run{run_id}" in text
    assert squash(str(run_dir)) in text
    for name in ("results.json", "samples.csv", "summary.md"):
        assert (run_dir / name).is_file(), name
    assert record_count(results) == 5
    assert list(accuracies(results, run_id)) == ["fake/const:42"]


def test_run_with_a_dataset_file(tmp_path: Path, dataset: Path) -> None:
    results = tmp_path / "R"
    invoke("run", "--dataset", dataset, "-m", "fake/const:42", "-r", results)
    (run_id,) = runs_in(results)
    assert accuracies(results, run_id) == {"fake/const:42": 0.5}
    rows = (results / "runs" / run_id / "samples.csv").read_text(encoding="utf-8")
    for sid in ("r1", "r2", "w1", "w2"):
        assert sid in rows


def test_run_two_models(tmp_path: Path, dataset: Path) -> None:
    results = tmp_path / "R"
    invoke(
        "run", "--dataset", dataset, "-m", "fake/const:42", "--model", "fake/const:2", "-r", results
    )
    (run_id,) = runs_in(results)
    assert accuracies(results, run_id) == {"fake/const:42": 0.5, "fake/const:2": 0.25}
    data = json.loads((results / "runs" / run_id / "results.json").read_text(encoding="utf-8"))
    assert data["run"]["models"] == ["fake/const:42", "fake/const:2"]
    assert record_count(results) == 8


def test_same_command_twice_after_completion_makes_a_second_run(
    tmp_path: Path, dataset: Path
) -> None:
    results = tmp_path / "R"
    invoke("run", "--dataset", dataset, "-m", "fake/const:42", "-r", results)
    invoke("run", "--dataset", dataset, "-m", "fake/const:42", "-r", results)
    assert len(runs_in(results)) == 2


def test_resume_of_a_complete_run_asks_nothing(tmp_path: Path, dataset: Path) -> None:
    results = tmp_path / "R"
    invoke("run", "--dataset", dataset, "-m", "fake/const:42", "-r", results)
    (run_id,) = runs_in(results)
    out = invoke("run", "--resume", run_id, "-r", results)
    assert "asked 0 missing calls" in out.output
    assert runs_in(results) == [run_id]
    assert record_count(results) == 4


# -- score and report ----------------------------------------------------------------------------


@pytest.fixture
def stored_run(tmp_path: Path, dataset: Path) -> tuple[Path, str]:
    results = tmp_path / "R"
    invoke("run", "--dataset", dataset, "-m", "fake/const:42", "-r", results)
    (run_id,) = runs_in(results)
    return results, run_id


@pytest.fixture
def no_model_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(model: str, key: object = None) -> object:
        raise AssertionError(f"a model was made for {model!r}")

    monkeypatch.setattr(registry, "make_provider", refuse)
    monkeypatch.setattr(runner_module, "make_provider", refuse)


@pytest.mark.parametrize("command", ["score", "report"])
@pytest.mark.parametrize("how", ["id", "prefix", "folder", "relative-folder"])
def test_score_and_report_by_any_reference(
    stored_run: tuple[Path, str],
    no_model_calls: None,
    tmp_path: Path,
    command: str,
    how: str,
) -> None:
    results, run_id = stored_run
    run_dir = results / "runs" / run_id
    before = record_count(results)
    (run_dir / "results.json").unlink()
    args: list[str | Path]
    if how == "id":
        args = [command, run_id, "-r", results]
    elif how == "prefix":
        args = [command, run_id[:-3], "-r", results]
    elif how == "folder":
        args = [command, run_dir]
    else:
        args = [command, run_dir.relative_to(tmp_path)]
    out = invoke(*args)
    assert f"run{run_id}" in squash(out.output)
    assert accuracies(results, run_id) == {"fake/const:42": 0.5}
    assert record_count(results) == before
    assert runs_in(results) == [run_id]


def test_score_regrades_after_the_records_alone(stored_run: tuple[Path, str]) -> None:
    results, run_id = stored_run
    for name in ("results.json", "samples.csv", "summary.md"):
        (results / "runs" / run_id / name).unlink()
    invoke("score", run_id, "-r", results)
    for name in ("results.json", "samples.csv", "summary.md"):
        assert (results / "runs" / run_id / name).is_file()


# -- list ----------------------------------------------------------------------------------------


def test_list_everything(stored_run: tuple[Path, str]) -> None:
    results, run_id = stored_run
    text = squash(invoke("list", "-r", results).output)
    assert "arithmetic" in text
    assert run_id in text


def test_list_runs(stored_run: tuple[Path, str]) -> None:
    results, run_id = stored_run
    text = squash(invoke("list", "runs", "-r", results).output)
    assert run_id in text
    assert "complete" in text
    assert "Tasks" not in text


def test_list_tasks(stored_run: tuple[Path, str]) -> None:
    results, run_id = stored_run
    text = squash(invoke("list", "tasks", "-r", results).output)
    assert "arithmetic" in text
    assert run_id not in text


def test_list_runs_without_a_store(tmp_path: Path) -> None:
    out = invoke("list", "runs", "-r", tmp_path / "empty")
    assert "no runs" in out.output
    assert not (tmp_path / "empty").exists()


# -- exit codes of the real command --------------------------------------------------------------


def assert_clean_error(proc: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error:" in proc.stderr or "Error" in proc.stderr
    assert fragment in squash(proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "Traceback" not in proc.stdout


def test_main_runs_and_exits_zero(tmp_path: Path) -> None:
    proc = proctor(
        "run", "arithmetic", "-m", "fake/const:42", "--limit", "2", "-r", "R", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    (run_id,) = runs_in(tmp_path / "R")
    assert run_id in squash(proc.stdout)


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("nonsense", "badmodelstring"),
        ("fake/x", "unknownfakemodel"),
        ("openai-compat/m@ftp://host/v1", "badbaseURL"),
        ("cohere/command", "unknownprovider"),
    ],
)
def test_bad_model_string_exits_2(tmp_path: Path, model: str, fragment: str) -> None:
    proc = proctor("run", "arithmetic", "-m", model, "--limit", "2", "-r", "R", cwd=tmp_path)
    assert_clean_error(proc, fragment)
    assert proc.stderr.lstrip().startswith("error:")


def test_openai_without_a_key_exits_2(tmp_path: Path) -> None:
    env_free = {"PROCTOR_API_KEY", "OPENAI_API_KEY"}
    env = {k: v for k, v in os.environ.items() if k not in env_free}
    env.update(WIDE)
    proc = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "arithmetic", "-m", "openai/x", "--limit", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_clean_error(proc, "PROCTOR_API_KEY")


def test_bad_model_string_stores_no_run(tmp_path: Path) -> None:
    proc = proctor("run", "arithmetic", "-m", "fake/x", "--limit", "2", "-r", "R", cwd=tmp_path)
    assert proc.returncode == 2
    assert runs_in(tmp_path / "R") == []


def test_unknown_task_exits_2(tmp_path: Path) -> None:
    proc = proctor("run", "nope", "-m", "fake/const:42", "-r", "R", cwd=tmp_path)
    assert_clean_error(proc, "unknowntask'nope'")
    assert "arithmetic" in proc.stderr


def test_score_without_a_store_exits_2(tmp_path: Path) -> None:
    proc = proctor("score", "some-run", "-r", tmp_path / "missing", cwd=tmp_path)
    assert_clean_error(proc, "norunstore")


def test_score_unknown_run_exits_2(tmp_path: Path) -> None:
    assert (
        proctor(
            "run", "arithmetic", "-m", "fake/const:1", "--limit", "1", "-r", "R", cwd=tmp_path
        ).returncode
        == 0
    )
    proc = proctor("score", "no-such-run", "-r", "R", cwd=tmp_path)
    assert_clean_error(proc, "norun'no-such-run'")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--prompt", "C"], "unknownpromptvariant"),
        (["--lang", "fr"], "unknownpromptlanguage"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_run_options_exit_2(tmp_path: Path, args: list[str], fragment: str) -> None:
    proc = proctor("run", "arithmetic", "-m", "fake/const:42", *args, "-r", "R", cwd=tmp_path)
    assert_clean_error(proc, fragment)
    assert runs_in(tmp_path / "R") == []


def test_missing_dataset_file_exits_2(tmp_path: Path) -> None:
    proc = proctor("run", "--dataset", "nope.jsonl", "-m", "fake/const:42", "-r", "R", cwd=tmp_path)
    assert_clean_error(proc, "nope.jsonl")


def test_run_without_task_or_dataset_exits_2(tmp_path: Path) -> None:
    proc = proctor("run", "-m", "fake/const:42", "-r", "R", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_list_unknown_kind_exits_2(tmp_path: Path) -> None:
    proc = proctor("list", "run", "-r", "R", cwd=tmp_path)
    assert proc.returncode == 2


def test_list_runs_shows_whole_run_ids_at_80_columns(tmp_path: Path) -> None:
    assert (
        proctor(
            "run", "arithmetic", "-m", "fake/const:1", "--limit", "1", "-r", "R", cwd=tmp_path
        ).returncode
        == 0
    )
    (run_id,) = runs_in(tmp_path / "R")
    proc = proctor("list", "runs", "-r", "R", cwd=tmp_path, columns=80)
    assert proc.returncode == 0
    assert run_id in squash(proc.stdout)


def test_a_set_estimate_prices_each_task_by_the_given_table(tmp_path: Path) -> None:
    """`proctor run A B --estimate --prices FILE`: every task of the set is priced by the table
    `proctor run` read (here a prompt token costs one dollar), not by the built-in one."""
    prices = tmp_path / "prices.toml"
    prices.write_text(
        '[models."fake/*"]\ninput_per_mtok = 1000000.0\noutput_per_mtok = 0.0\n', encoding="utf-8"
    )
    out = invoke(
        "run", "arithmetic", "arithmetic", "--n", "3", "-m", "fake/const:42", "--prices", prices,
        "--estimate", "-r", tmp_path / "results",
    ).output  # fmt: skip
    lines = [line for line in out.splitlines() if "calls in all" in line]
    assert len(lines) == 2, out
    for line in lines:
        cost = float(line.split("at most $")[1].split(".")[0].replace(",", ""))
        assert cost > 0, line  # a fake model has no built-in price: the table was read
    assert not (tmp_path / "results" / "proctor.db").exists()
