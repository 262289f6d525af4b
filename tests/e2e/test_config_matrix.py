"""Settings matrices written in a set's file, through the CLI against a loopback stub:
`temperature = [0.0, 0.7]` and `prompt = ["A", "B"]` × two models are one run of eight variants
on the same items; the stub is asked each item at each temperature; the variants are compared
paired in results.json and every report's header names each prompt and temperature;
`--resume SET` finds the same runs; the response cache reuses only the temperature-0 variants'
answers; `proctor validate` refuses a setting that cannot be a list (exit 2, file, line and
field), and the CLI's repeated `--temperature` is a matrix too."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from support.stub import StubConfig, run_stub

pytestmark = pytest.mark.slow

N = 6

CONFIG = """\
name = "hot-and-cold"
models = ["{a}", "{b}"]
limit = {n}

[[tasks]]
task = "arithmetic"
prompt = ["A", "B"]
temperature = [0.0, 0.7]
"""


def _results_json(results: Path, run_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(
        (results / "runs" / run_id / "results.json").read_text("utf-8")
    )
    return doc


def test_a_temperature_and_prompt_matrix_from_a_file(tmp_path: Path, cli: Any) -> None:
    results, config = tmp_path / "results", tmp_path / "evals.toml"
    with run_stub(StubConfig(seed=3, correct_rate=0.6)) as stub:
        a, b = (stub.model.replace("stub@", f"{k}@") for k in "ab")
        config.write_text(CONFIG.format(a=a, b=b, n=N))
        checked = cli("validate", str(config), "-r", str(results))
        assert checked.code == 0, checked.output
        assert "1 runs (2 models, up to 8 variants a run), 48 calls" in " ".join(
            checked.out.split()
        )
        done = cli("run", "--config", str(config), "-r", str(results))
        assert done.code == 0, done.output
        asked = stub.stats()
        assert asked.by_temperature == {"0.0": 4 * N, "0.7": 4 * N}
        assert len(asked.by_prompt) == 2 * N  # each item in prompt A and in prompt B

        with closing(sqlite3.connect(results / "proctor.db")) as db:
            ((set_id,),) = db.execute("SELECT id FROM eval_sets").fetchall()
            ((run_id, models),) = db.execute("SELECT id, models FROM runs").fetchall()
        variants = [f"{m}#prompt={p},temperature={t}" for m in (a, b) for p in "AB"
                    for t in ("0.0", "0.7")]  # fmt: skip
        assert json.loads(models) == variants
        doc = _results_json(results, run_id)
        assert sorted(m["model"] for m in doc["models"]) == sorted(variants)
        assert {m["n_items"] for m in doc["models"]} == {N}
        assert doc["run"]["matrix"] == {"prompt": ["A", "B"], "temperature": ["0.0", "0.7"]}
        assert doc["paired"] and all(p["n"] == N for p in doc["paired"])
        # every report names every variant's settings, not the first prompt alone
        summary = (results / "runs" / run_id / "summary.md").read_text("utf-8")
        assert "**prompt**: A, B / en (8 variants of 2 models: prompt × temperature)" in summary
        assert "**generation**: temperature 0.0, 0.7," in summary
        html = (results / "runs" / run_id / "report.html").read_text("utf-8")
        assert "A, B / en (8 variants of 2 models: prompt × temperature)" in html
        assert "prompt A, B / en (8 variants" in " ".join(done.output.split())

        resumed = cli("run", "--resume", set_id, "-r", str(results))
        assert resumed.code == 0, resumed.output
        assert stub.stats().requests == asked.requests, "a finished set asks nothing"

        again = cli("run", "--config", str(config), "-r", str(results))  # a new set
        assert again.code == 0, again.output
        after = stub.stats()
        # temperature 0 is deterministic: its answers come from the cache; 0.7 is asked again
        assert after.requests - asked.requests == 4 * N
        assert after.by_temperature == {"0.0": 4 * N, "0.7": 8 * N}

        cold = cli("run", "arithmetic", "--limit", str(N), "--temperature", "0",
                   "--temperature", "0.7", "-m", a, "-r", str(tmp_path / "cold"))  # fmt: skip
        assert cold.code == 0, cold.output
    with closing(sqlite3.connect(tmp_path / "cold" / "proctor.db")) as db:
        ((models,),) = db.execute("SELECT models FROM runs").fetchall()
    assert json.loads(models) == [f"{a}#temperature=0.0", f"{a}#temperature=0.7"]


def test_validate_refuses_a_setting_that_cannot_be_a_list(tmp_path: Path, cli: Any) -> None:
    config = tmp_path / "evals.toml"
    text = CONFIG.format(a="fake/const:1", b="fake/const:2", n=N)
    config.write_text(text + "max_tokens = [8, 16]\n")
    for args in (("validate", str(config)), ("run", "--config", str(config))):
        done = cli(*args, "-r", str(tmp_path / "results"))
        assert done.code == 2, done.output
        said = " ".join(done.output.split())
        assert "evals.toml:9: field 'tasks[0].max_tokens'" in said
        assert "cannot be a list: only prompt, lang and temperature make a matrix" in said
    assert not (tmp_path / "results").exists()
