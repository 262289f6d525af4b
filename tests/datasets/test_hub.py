"""Datasets by name (`--dataset hf://ORG/NAME[@REVISION][:SPLIT]`): the name's parts, the rows
as samples, the errors said as the user wrote the name; then through the CLI, a dataset read
offline from a local Hugging Face cache the test builds (never the network), its revision and
content hash stored with the run."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.datasets.hub import HubRef, hub_ref, hub_samples, is_hub_name, without_progress_bars
from proctor.datasets.loaders import load_samples
from proctor.errors import DatasetError

_SPEC = importlib.util.find_spec("datasets")
HAS_DATASETS = _SPEC is not None and _SPEC.origin is not None  # tests/datasets is no library


@pytest.mark.parametrize(
    ("given", "ref"),
    [
        ("hf://openai/gsm8k", HubRef("openai/gsm8k", None, "test")),
        ("hf:/openai/gsm8k", HubRef("openai/gsm8k", None, "test")),  # what Path made of it
        (Path("hf://openai/gsm8k@main:train"), HubRef("openai/gsm8k", "main", "train")),
        ("hf://o/n@refs/pr/3:validation", HubRef("o/n", "refs/pr/3", "validation")),
        ("hf://o/n:test", HubRef("o/n", None, "test")),
    ],
)
def test_a_name_gives_its_repo_revision_and_split(given: str | Path, ref: HubRef) -> None:
    assert is_hub_name(given)
    assert hub_ref(given) == ref


@pytest.mark.parametrize("given", ["hf://gsm8k", "hf://a/b/c", "hf://a b/c", "hf://o/n@:x", "hf:/"])
def test_a_bad_name_is_refused_naming_the_form_as_written(given: str) -> None:
    with pytest.raises(DatasetError) as caught:
        hub_ref(Path(given) if given != "hf:/" else given)
    said = str(caught.value)
    assert caught.value.file.startswith("hf://") and "hf:/" + "/" in said
    assert "hf://ORG/NAME[@REVISION][:SPLIT]" in said


def test_a_name_is_not_a_file_and_a_file_without_a_suffix_says_what_is_read(
    tmp_path: Path,
) -> None:
    assert not is_hub_name(tmp_path / "hf" / "x.jsonl") and not is_hub_name("hf.jsonl")
    with pytest.raises(DatasetError, match=r"unsupported file type '\(none\)'.*hf://ORG/NAME"):
        load_samples(tmp_path / "noext")
    with pytest.raises(DatasetError, match="a dataset name, not a file") as caught:
        load_samples(Path("hf://openai/gsm8k"))
    assert caught.value.file == "hf://openai/gsm8k"


def test_rows_become_samples_with_the_usual_column_names() -> None:
    rows = [
        {"question": "Tom has 3 …", "answer": "3 + 4 = 7\n#### 1,007"},
        {"id": 7, "input": "2 + 2", "target": "4", "difficulty": "easy", "source": "x", "n": 3},
        {"problem": "p", "solution": "s", "nested": {"dropped": True}},
    ]
    a, b, c = hub_samples(rows, "hf://o/n@abc:test", "test")
    assert (a.id, a.input, a.target) == ("test-0", "Tom has 3 …", "1007")
    assert (b.id, b.target, b.difficulty) == ("7", "4", "easy")
    assert b.metadata == {"source": "x", "n": "3"}
    assert (c.input, c.target) == ("p", "s") and not c.metadata


@pytest.mark.parametrize(
    ("rows", "line", "field", "says"),
    [
        ([{"question": "q", "answer": "1"}, {"text": "t", "label": 1}], 2, "input",
         "no input / question / problem / prompt column (its columns: label, text)"),
        ([{"question": "q"}], 1, "target", "no target / answer / solution column"),
        ([{"id": "a", "input": "q", "target": "1"}, {"id": "a", "input": "r", "target": "2"}],
         2, "id", "duplicate id 'a'"),
        ([{"input": "q", "target": "  "}], 1, "target", ""),
        ([], None, None, "no rows in the split"),
    ],
)  # fmt: skip
def test_bad_rows_are_refused_naming_the_dataset_row_and_field(
    rows: list[dict[str, object]], line: int | None, field: str | None, says: str
) -> None:
    with pytest.raises(DatasetError) as caught:
        hub_samples(rows, "hf://o/n@abc:test", "test")
    e = caught.value
    assert (e.file, e.line, e.field) == ("hf://o/n@abc:test", line, field)
    assert says in str(e)


def proctor(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    base.update({"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        env=base,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_cli_refuses_a_bad_name_as_written(tmp_path: Path) -> None:
    done = proctor("run", "arithmetic", "--dataset", "hf://gsm8k", "-m", "fake/const:1",
                   "-r", str(tmp_path / "R"))  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "hf://gsm8k: not a Hugging Face dataset name" in done.stderr
    assert "(none)" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "R").exists()


@pytest.mark.skipif(HAS_DATASETS, reason="checks the message where `datasets` is not installed")
def test_without_the_library_the_cli_names_the_extra(tmp_path: Path) -> None:
    done = proctor("run", "arithmetic", "--dataset", "hf://openai/gsm8k@main", "-m",
                   "fake/const:1", "-r", str(tmp_path / "R"))  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "hf://openai/gsm8k@main:test needs Hugging Face's `datasets` library" in said
    assert "proctor-eval[hf]" in said and "Traceback" not in done.stderr


COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _local_hub_cache(root: Path) -> dict[str, str]:
    """A dataset "acme/tiny-math" (GSM8K's columns, 5 rows) in a Hugging Face datasets cache
    under `root`, as `datasets` keeps a Hub dataset it read at commit COMMIT; the environment
    that reads it offline. Built with the library's own json builder: no network."""
    import datasets

    rows = root / "rows.jsonl"
    rows.write_text("".join(json.dumps({"question": f"What is {i} + {i}?",
                                        "answer": f"{i} + {i} = {2 * i}\n#### {2 * i}"}) + "\n"
                            for i in range(1, 6)), encoding="utf-8")  # fmt: skip
    with without_progress_bars(datasets):  # a bar's monitor thread would outlive this test
        built = datasets.load_dataset(
            "json", data_files={"test": str(rows)}, cache_dir=str(root / "build"), split="test"
        )
    made = Path(built.cache_files[0]["filename"]).parent
    cached = root / "cache" / "acme___tiny-math" / "default" / "0.0.0" / COMMIT
    cached.mkdir(parents=True)
    (cached / "tiny-math-test.arrow").write_bytes((made / "json-test.arrow").read_bytes())
    (cached / "dataset_info.json").write_bytes((made / "dataset_info.json").read_bytes())
    return {
        "HF_HOME": str(root / "hf"),
        "HF_DATASETS_CACHE": str(root / "cache"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
    }


@pytest.mark.skipif(not HAS_DATASETS, reason="needs the `datasets` library (the hf extra)")
def test_a_dataset_by_name_is_read_offline_and_its_commit_stored(tmp_path: Path) -> None:
    from proctor.store import RunStore

    env = _local_hub_cache(tmp_path)
    results = tmp_path / "R"
    done = proctor("run", "gsm8k", "--dataset", "hf://acme/tiny-math", "-m",
                   "fake/const:The answer is 4.", "-r", str(results), env=env)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    with RunStore.open(results) as store:
        (run,) = store.list_runs()
        info = store.run_info(run.run_id)
        config = store.run_config(run.run_id)
        records = store.records(run.run_id)
    assert config["source"] == f"hf://acme/tiny-math@{COMMIT}:test"
    assert info.dataset_size == 5 and info.dataset_hash and len(records) == 5
    assert "1 of 5" in done.stdout or "20.0 %" in done.stdout  # only 2 + 2 = 4 is right
    # a name that is not in the cache is refused offline, naming it, storing nothing
    done = proctor("run", "gsm8k", "--dataset", "hf://acme/other@main:test", "-m",
                   "fake/const:4", "-r", str(tmp_path / "R2"), env=env)  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "hf://acme/other@main:test: cannot load it" in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr and not (tmp_path / "R2").exists()


@pytest.mark.skipif(not HAS_DATASETS, reason="needs the `datasets` library (the hf extra)")
def test_reading_a_hub_dataset_leaves_no_thread_running(tmp_path: Path) -> None:
    """tqdm's monitor thread, started by a progress bar, would live as long as the process and
    keep `proctor score` from forking its grading workers (`runs.grade.grade_run`)."""
    env = _local_hub_cache(tmp_path)
    code = (
        "import threading\n"
        "from proctor.datasets.hub import hub_ref, load_hub\n"
        "samples, _ = load_hub(hub_ref('hf://acme/tiny-math'))\n"
        "print(len(samples), sorted(t.name for t in threading.enumerate()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5", "['MainThread']"], done.stdout
