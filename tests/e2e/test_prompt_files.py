"""Prompt files through the CLI against a loopback stub: `--prompt concise.txt --prompt steps.txt`
× two models is one run of four variants, each named by its file and hash, answered on the same
items with its own text and compared paired in results.json. What cannot be asked is refused
first, exit 2 naming the file and line, nothing written: a bad template, a name that is not
there (the answer above all), a file that is not UTF-8, empty or huge, the same file twice; and a
resume after a file changed. `proctor validate` and `--config` read prompt files relative to the
set file."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from proctor.prompts.files import MAX_PROMPT_BYTES
from proctor.tasks.arithmetic import load
from proctor.tasks.registry import get_task
from support.stub import StubConfig, prompt_key, run_stub

pytestmark = pytest.mark.slow

N = 6
CONCISE = "Reply with the number only.\n\n{{ question }}\n"
STEPS = (
    "---\nsystem: You are a careful calculator.\n---\n"
    'Work it out step by step, then end with "Final answer: <number>".\n\nProblem: {{ question }}\n'
)


def _key(name: str, text: str) -> str:
    return f"{name}@{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _said(done: Any) -> str:
    return " ".join(done.output.split())


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Solve.\n\n{{ target }}\n", "bad.txt:3: unknown name 'target'"),
        ("Solve {{ question }} like {{ metadata.solution }}\n", "bad.txt:1: unknown name"),
        ("Solve.\n{{ question }\n", "bad.txt:2: template error"),
        ("---\ngrade_as: C\n---\n{{ question }}\n", "grade_as: unknown prompt variant 'C'"),
        (b"Solve.\n\xfe\xff{{ question }}\n", "bad.txt:2: not UTF-8 text"),
        ("", "bad.txt is empty"),
        ("x" * (MAX_PROMPT_BYTES + 1), "larger than"),
        ("{{ question }} {{ (question | int) // 0 }}\n", "cannot render: ZeroDivisionError"),
    ],
)
def test_a_prompt_file_that_cannot_be_asked_is_refused_before_anything(
    tmp_path: Path, cli: Any, text: str | bytes, says: str
) -> None:
    good = _write(tmp_path, "concise.txt", CONCISE)
    bad = _write(tmp_path, "bad.txt", text)
    results = tmp_path / "r"
    done = cli("run", "arithmetic", "--prompt", str(good), "--prompt", str(bad),
               "-m", "fake/const:1", "-r", str(results))  # fmt: skip
    assert done.code == 2, done.output
    assert says in _said(done)
    assert not results.exists(), "nothing is written, nothing asked"


@pytest.mark.parametrize(
    ("front", "says"),
    [
        ("system: x\ngrade_as: B\nfoo: y\n", "bad.txt:4: unknown front matter key 'foo'"),
        ("system: |\n  You are careful.\n  Say {{ lang }\n", "bad.txt:4: template error"),
        ("system: >\n  You are careful.\n\n  {{ answer }}\n", "bad.txt:5: unknown name 'answer'"),
        ("system: |\n  a\ngrade_as: 'B\n", "bad.txt:4: bad front matter: found unexpected end"),
        ("system: |\n  a\n\tb\n", "bad.txt:4: bad front matter: found character '\\t'"),
    ],
)
def test_a_front_matter_error_names_the_file_and_its_line(
    tmp_path: Path, cli: Any, front: str, says: str
) -> None:
    bad = _write(tmp_path, "bad.txt", f"---\n{front}---\n{{{{ question }}}}\n")
    results = tmp_path / "r"
    done = cli("run", "arithmetic", "--prompt", str(bad), "-m", "fake/const:1", "-r", str(results))
    assert done.code == 2, done.output
    assert f"{tmp_path}/{says}" in _said(done)
    assert not results.exists(), "nothing is written, nothing asked"


def test_the_same_file_twice_is_refused_like_a_repeated_variant(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "concise.txt", CONCISE)
    for again in ("./concise.txt", str(tmp_path / "concise.txt")):
        done = cli("run", "arithmetic", "--prompt", "concise.txt", "--prompt", again,
                   "-m", "fake/const:1", "-r", "r")  # fmt: skip
        assert done.code == 2, done.output
        assert "--prompt names the same file twice" in _said(done)
    assert "no such file" in _said(
        cli("run", "arithmetic", "--prompt", "gone.txt", "-m", "fake/const:1", "-r", "r")
    )
    assert not (tmp_path / "r").exists()


def test_a_resume_after_the_file_changed_is_refused_in_words(tmp_path: Path, cli: Any) -> None:
    prompt, results = _write(tmp_path, "concise.txt", CONCISE), tmp_path / "r"
    args = ("run", "arithmetic", "--n", str(N), "--prompt", str(prompt), "-m", "fake/const:1",
            "-r", str(results))  # fmt: skip
    first = cli(*args)
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((run_id,),) = db.execute("SELECT id FROM runs").fetchall()
    assert first.code == 0, first.output
    assert cli(*args, "--resume", run_id).code == 0  # unchanged: resumed

    prompt.write_text(CONCISE.replace("only", "alone"), encoding="utf-8")
    for flag in ("--resume", "--retry-errors"):
        done = cli(*args, flag, run_id)
        assert done.code == 2, done.output
        assert f"prompt file {prompt} changed since the run started" in _said(done)
        assert "put that text back to resume it, or start a new run" in _said(done)


def test_two_files_by_two_models_are_four_paired_variants(tmp_path: Path, cli: Any) -> None:
    concise = _write(tmp_path, "concise.txt", CONCISE)
    steps = _write(tmp_path, "steps.txt", STEPS)
    results = tmp_path / "results"
    with run_stub(StubConfig(seed=2, correct_rate=0.7)) as stub:
        models = [stub.model.replace("stub@", f"{k}@") for k in "ab"]
        done = cli("run", "arithmetic", "--n", str(N), "--prompt", str(concise), "--prompt",
                   str(steps), "-m", models[0], "-m", models[1], "-r", str(results))  # fmt: skip
        stats = stub.stats()
    assert done.code == 0, done.output
    keys = [_key("concise.txt", CONCISE), _key("steps.txt", STEPS)]
    variants = [f"{m}#prompt={k}" for m in models for k in keys]

    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((run_id, stored),) = db.execute("SELECT id, models FROM runs").fetchall()
        rows = db.execute("SELECT model, prompt_variant, sample_id, status FROM records").fetchall()
    assert json.loads(stored) == variants
    assert len(rows) == 4 * N and {r[3] for r in rows} == {"ok"}
    assert {r[1] for r in rows} == {"B"}, "graded by the task's reasoning variant's extractor"
    items = {m: frozenset(r[2] for r in rows if r[0] == m) for m in variants}
    assert len(set(items.values())) == 1 and len(next(iter(items.values()))) == N

    # each item was asked with each file's own text, by each model
    samples = load(None, N).samples
    asked = {prompt_key(CONCISE.replace("{{ question }}", s.input).rstrip("\n")) for s in samples}
    asked |= {
        prompt_key(STEPS.split("---\n")[-1].replace("{{ question }}", s.input).rstrip("\n"))
        for s in samples
    }
    assert stats.by_prompt == dict.fromkeys(asked, 2)

    doc = json.loads((results / "runs" / run_id / "results.json").read_text("utf-8"))
    assert sorted(m["model"] for m in doc["models"]) == sorted(variants)
    assert {m["n_items"] for m in doc["models"]} == {N}
    assert doc["paired"], "the variants are compared paired"
    for pair in doc["paired"]:
        assert {pair["a"], pair["b"]} <= set(variants) and pair["n"] == N
    files = doc["run"]["prompt"]["files"]
    assert files[keys[1]] == {
        "file": "steps.txt", "sha256": hashlib.sha256(STEPS.encode()).hexdigest(),
        "path": str(steps.resolve()), "grade_as": "",
    }  # fmt: skip
    assert doc["run"]["params"]["max_tokens"] == 256, "the task's longer default"
    summary = (results / "runs" / run_id / "summary.md").read_text("utf-8")
    assert f"**prompt**: {keys[0]}, {keys[1]} / en (4 variants of 2 models: prompt)" in summary


def test_a_task_variant_and_a_file_mix_and_a_retry_asks_the_stored_text(
    tmp_path: Path, cli: Any
) -> None:
    concise, results = _write(tmp_path, "concise.txt", CONCISE), tmp_path / "results"
    # every request fails once: the first session leaves every call failed
    config = StubConfig(fault_rate=1.0, faults=("500",), max_faults_per_body=1)
    with run_stub(config) as stub:
        args = ("run", "arithmetic", "--n", str(N), "--prompt", "A", "--prompt", str(concise),
                "-m", stub.model, "--max-attempts", "1", "-r", str(results))  # fmt: skip
        failed = cli(*args)
        assert failed.code == 4, failed.output
        with closing(sqlite3.connect(results / "proctor.db")) as db:
            ((run_id, stored),) = db.execute("SELECT id, models FROM runs").fetchall()
        assert json.loads(stored) == [
            f"{stub.model}#prompt=A", f"{stub.model}#prompt={_key('concise.txt', CONCISE)}"
        ]
        concise.unlink()  # the run holds the text it started with
        retried = cli("run", "--retry-errors", run_id, "-m", stub.model, "-r", str(results))
        assert retried.code == 0, retried.output
        stats = stub.stats()
    samples = load(None, N).samples
    task = get_task("arithmetic")
    own = {prompt_key(task.build_prompt(s, "A", "en").messages[-1].content) for s in samples}
    mine = {prompt_key(CONCISE.replace("{{ question }}", s.input).rstrip("\n")) for s in samples}
    assert stats.by_prompt == dict.fromkeys(own | mine, 2)  # failed once, then answered
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        variants = dict(db.execute("SELECT DISTINCT model, prompt_variant FROM records"))
    assert set(variants.values()) == {"A", "B"}


def test_two_files_and_two_tasks_are_each_tasks_two_variants(tmp_path: Path, cli: Any) -> None:
    # Each prompt file applies to every task, as one file with several tasks does: a set of two
    # runs, each of one variant per file, each item asked with each file's own text once.
    concise = _write(tmp_path, "concise.txt", CONCISE)
    steps = _write(tmp_path, "steps.txt", STEPS)
    results = tmp_path / "results"
    bad = _write(tmp_path, "bad.txt", "{{ target }}\n")
    refused = cli("run", "arithmetic", "gsm8k", "--prompt", str(concise), "--prompt", str(bad),
                  "-m", "fake/const:1", "-r", str(results))  # fmt: skip
    assert refused.code == 2 and "bad.txt:1: unknown name 'target'" in _said(refused)
    assert not results.exists(), "every task's files are read before anything is asked"
    with run_stub(StubConfig(seed=3, correct_rate=0.6)) as stub:
        done = cli("run", "arithmetic", "gsm8k", "--limit", "3", "--prompt", str(concise),
                   "--prompt", str(steps), "-m", stub.model, "-r", str(results))  # fmt: skip
        stats = stub.stats()
    assert done.code == 0, done.output
    assert "2 of 2 tasks complete" in _said(done)
    keys = [_key("concise.txt", CONCISE), _key("steps.txt", STEPS)]
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        runs = db.execute("SELECT id, task, models FROM runs ORDER BY task").fetchall()
        questions = {
            run_id: [json.loads(d)["input"] for (d,) in db.execute(
                "SELECT data FROM samples WHERE run_id = ? ORDER BY position", (run_id,))]
            for run_id, _, _ in runs
        }  # fmt: skip
        statuses = {r for (r,) in db.execute("SELECT DISTINCT status FROM records")}
    assert [task for _, task, _ in runs] == ["arithmetic", "gsm8k"]
    for _, _, stored in runs:
        assert json.loads(stored) == [f"{stub.model}#prompt={k}" for k in keys]
    assert statuses == {"ok"}
    steps_user = STEPS.split("---\n")[-1]
    asked = [
        prompt_key(template.replace("{{ question }}", q).rstrip("\n"))
        for qs in questions.values()
        for q in qs
        for template in (CONCISE, steps_user)
    ]
    assert sorted(len(qs) for qs in questions.values()) == [3, 3]
    assert stats.by_prompt == dict.fromkeys(asked, 1), "each file's text, each item, once"


def test_a_matrix_a_set_would_not_use_is_refused_saying_what_to_do(
    tmp_path: Path, cli: Any
) -> None:
    (tmp_path / "prompts").mkdir()
    concise = _write(tmp_path / "prompts", "concise.txt", CONCISE)
    steps = _write(tmp_path / "prompts", "steps.txt", STEPS)
    matrix = ("--prompt", str(concise), "--prompt", str(steps))
    config, results = _write(tmp_path, "evals.toml", SET_FILE), tmp_path / "results"
    done = cli("run", "--config", str(config), *matrix, "-r", str(results))
    assert done.code == 2, done.output
    assert "--config writes each task's matrix (prompt = [...]" in _said(done)
    assert "drop the repeated --prompt, --lang or --temperature" in _said(done)
    assert not results.exists()

    first = cli("run", "arithmetic", "gsm8k", "--limit", "2", "-m", "fake/const:1",
                "-r", str(results))  # fmt: skip
    assert first.code == 0, first.output
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((set_id,),) = db.execute("SELECT id FROM eval_sets").fetchall()
    for flag in ("--resume", "--retry-errors"):
        done = cli("run", flag, set_id, *matrix, "-r", str(results))
        assert done.code == 2, done.output
        assert (
            f"{flag} {set_id} asks the set with the matrix it was started with: drop the "
            "repeated --prompt, --lang or --temperature"
        ) in _said(done)
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (2,), "nothing new asked"


def test_a_set_with_a_relative_prompt_file_is_resumed_from_another_folder(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The set is made in folder a with `--prompt concise.txt`; its retry and resume run from
    # folder b still find that file (and still refuse it once its text changed).
    here, there, results = tmp_path / "a", tmp_path / "b", tmp_path / "results"
    here.mkdir()
    there.mkdir()
    prompt = _write(here, "concise.txt", CONCISE)
    # every request fails once: the first session leaves every call failed
    config = StubConfig(fault_rate=1.0, faults=("500",), max_faults_per_body=1)
    with run_stub(config) as stub:
        monkeypatch.chdir(here)
        failed = cli("run", "arithmetic", "gsm8k", "--limit", "2", "--prompt", "concise.txt",
                     "-m", stub.model, "--max-attempts", "1", "-r", str(results))  # fmt: skip
        assert failed.code == 4, failed.output
        with closing(sqlite3.connect(results / "proctor.db")) as db:
            ((set_id,),) = db.execute("SELECT id FROM eval_sets").fetchall()
        monkeypatch.chdir(there)
        retried = cli("run", "--retry-errors", set_id, "-r", str(results))
        assert retried.code == 0, retried.output
        assert "2 of 2 tasks complete" in _said(retried)
        stats = stub.stats()
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        questions = [json.loads(d)["input"] for (d,) in db.execute("SELECT data FROM samples")]
        models = {json.loads(m)[0] for (m,) in db.execute("SELECT models FROM runs")}
        statuses = {r for (r,) in db.execute("SELECT DISTINCT status FROM records")}
    assert models == {f"{stub.model}#prompt={_key('concise.txt', CONCISE)}"}
    assert statuses == {"ok"}
    asked = [prompt_key(CONCISE.replace("{{ question }}", q).rstrip("\n")) for q in questions]
    assert len(asked) == 4 and stats.by_prompt == dict.fromkeys(asked, 2)

    prompt.write_text(CONCISE.replace("only", "alone"), encoding="utf-8")
    done = cli("run", "--resume", set_id, "-r", str(results))
    assert done.code == 2, done.output
    assert f"prompt file {prompt} changed since the run started" in _said(done)


SET_FILE = """\
models = ["fake/const:1", "fake/const:2"]
limit = 4

[[tasks]]
task = "arithmetic"
prompt = ["prompts/concise.txt", "prompts/steps.txt"]
"""


@pytest.mark.parametrize(
    ("option", "key"),
    [
        (("--prompt", "prompts/concise.txt"), "prompt"),
        (("--prompt", "B"), "prompt"),
        (("--max-tokens", "64"), "max_tokens"),
        (("--limit", "1"), "limit"),
        (("--n", "3"), "n"),
        (("--seed", "7"), "seed"),
    ],
)
def test_a_single_option_the_set_file_writes_is_refused_beside_config(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, option: tuple[str, str], key: str
) -> None:
    # One --prompt (or reply cap, paper size, seed) beside --config was dropped in silence:
    # the set file sets each task's, so the command says where to write it instead.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts").mkdir()
    _write(tmp_path / "prompts", "concise.txt", CONCISE)
    _write(tmp_path / "prompts", "steps.txt", STEPS)
    config, results = _write(tmp_path, "evals.toml", SET_FILE), tmp_path / "results"
    done = cli("run", "--config", str(config), *option, "-r", str(results))
    assert done.code == 2, done.output
    assert f"--config writes each task's {key} in the set file ({key} = ...)" in _said(done)
    assert f"drop {option[0]}" in _said(done)
    assert not results.exists(), "nothing is written, nothing asked"


def test_a_set_file_with_prompt_files_relative_to_it(tmp_path: Path, cli: Any) -> None:
    (tmp_path / "prompts").mkdir()
    _write(tmp_path / "prompts", "concise.txt", CONCISE)
    _write(tmp_path / "prompts", "steps.txt", STEPS)
    config, results = _write(tmp_path, "evals.toml", SET_FILE), tmp_path / "results"
    checked = cli("validate", str(config), "-r", str(results))
    assert checked.code == 0, checked.output
    assert "up to 4 variants a run" in _said(checked)
    done = cli("run", "--config", str(config), "-r", str(results))
    assert done.code == 0, done.output
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((stored,),) = db.execute("SELECT models FROM runs").fetchall()
    keys = [_key("concise.txt", CONCISE), _key("steps.txt", STEPS)]
    assert json.loads(stored) == [f"fake/const:{m}#prompt={k}" for m in "12" for k in keys]

    _write(tmp_path / "prompts", "steps.txt", STEPS.replace("{{ question }}", "{{ target }}"))
    for args in (("validate", str(config)), ("run", "--config", str(config))):
        done = cli(*args, "-r", str(tmp_path / "other"))
        assert done.code == 2, done.output
        assert "steps.txt:6: unknown name 'target'" in _said(done)
    assert not (tmp_path / "other").exists()


def test_a_set_file_named_relatively_is_resumed_from_another_folder(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a" / "prompts").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    _write(tmp_path / "a" / "prompts", "concise.txt", CONCISE)
    _write(tmp_path / "a" / "prompts", "steps.txt", STEPS)
    _write(tmp_path / "a", "evals.toml", SET_FILE)
    results = tmp_path / "results"
    monkeypatch.chdir(tmp_path / "a")
    first = cli("run", "--config", "evals.toml", "-r", str(results))
    assert first.code == 0, first.output
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((set_id,),) = db.execute("SELECT id FROM eval_sets").fetchall()
    monkeypatch.chdir(tmp_path / "b")
    again = cli("run", "--resume", set_id, "-r", str(results))
    assert again.code == 0, again.output
    assert f"resumed set {set_id}" in _said(again)
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (1,), "nothing new asked"


def test_a_set_stored_with_a_relative_prompt_path_finds_the_file_its_runs_read(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A set stored before sets kept absolute paths holds `concise.txt` as typed; its runs keep
    # the file's absolute path, so a resume from another folder still finds it.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    prompt = _write(tmp_path / "a", "concise.txt", CONCISE)
    results = tmp_path / "results"
    monkeypatch.chdir(tmp_path / "a")
    first = cli("run", "arithmetic", "gsm8k", "--limit", "2", "--prompt", "concise.txt",
                "-m", "fake/const:1", "-r", str(results))  # fmt: skip
    assert first.code == 0, first.output
    with closing(sqlite3.connect(results / "proctor.db")) as db, db:
        ((set_id, plan),) = db.execute("SELECT id, plan FROM eval_sets").fetchall()
        assert str(prompt) in plan
        old = plan.replace(json.dumps(str(prompt))[1:-1], "concise.txt")
        db.execute("UPDATE eval_sets SET plan = ?", (old,))
    monkeypatch.chdir(tmp_path / "b")
    again = cli("run", "--resume", set_id, "-r", str(results))
    assert again.code == 0, again.output
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (2,), "nothing new asked"

    prompt.write_text(CONCISE.replace("only", "alone"), encoding="utf-8")
    changed = cli("run", "--resume", set_id, "-r", str(results))
    assert changed.code == 2, changed.output
    assert f"prompt file {prompt} changed since the run started" in _said(changed)


def test_the_viewer_names_each_file_variant_and_shows_the_prompt_it_sent(
    tmp_path: Path, cli: Any
) -> None:
    from markupsafe import escape

    from proctor.viewer.pages import item_href
    from support.viewer_http import get, serving

    concise = _write(tmp_path, "concise.txt", CONCISE)
    steps = _write(tmp_path, "steps.txt", STEPS)
    results = tmp_path / "results"
    done = cli("run", "arithmetic", "--n", "3", "--prompt", str(concise), "--prompt", str(steps),
               "--prompt", "A", "-m", "fake/const:7", "-r", str(results))  # fmt: skip
    assert done.code == 0, done.output
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((run_id,),) = db.execute("SELECT id FROM runs").fetchall()
    sample = load(None, 3).samples[0]
    keys = [_key("concise.txt", CONCISE), _key("steps.txt", STEPS)]
    with serving(results) as viewer:
        grid = get(viewer, f"/runs/{run_id}/grid")
        item = get(viewer, item_href(run_id, sample.id))
    for name in (*keys, "A"):
        assert f'<th class="name">fake/const:7#prompt={name}</th>' in grid
    own = get_task("arithmetic").build_prompt(sample, "A", "en").messages[-1].content
    sent = [
        CONCISE.replace("{{ question }}", sample.input).rstrip("\n"),
        "[system]\nYou are a careful calculator.\n\n[user]\n"
        + STEPS.split("---\n")[-1].replace("{{ question }}", sample.input).rstrip("\n"),
        own,
    ]
    for text in sent:
        assert f'<pre class="prompt">{escape(text)}</pre>' in item


def test_the_report_shows_the_prompt_file_a_run_sent(tmp_path: Path, cli: Any) -> None:
    from proctor.report.html.sample_data import script_json

    concise, results = _write(tmp_path, "concise.txt", CONCISE), tmp_path / "results"
    done = cli("run", "arithmetic", "--n", "2", "--prompt", str(concise), "-m", "fake/const:7",
               "-r", str(results))  # fmt: skip
    assert done.code == 0, done.output
    with closing(sqlite3.connect(results / "proctor.db")) as db:
        ((run_id, stored),) = db.execute("SELECT id, models FROM runs").fetchall()
    assert json.loads(stored) == [f"fake/const:7#prompt={_key('concise.txt', CONCISE)}"]
    html = (results / "runs" / run_id / "report.html").read_text("utf-8")
    task = get_task("arithmetic")
    for sample in load(None, 2).samples:  # the sample browser's "prompt as sent"
        sent = CONCISE.replace("{{ question }}", sample.input).rstrip("\n")
        assert script_json(sent) in html
        assert script_json(task.build_prompt(sample, "B", "en").messages[-1].content) not in html

    out = tmp_path / "out.jsonl"
    exported = cli("export", run_id, "--to", "jsonl", "-o", str(out), "-r", str(results))
    assert exported.code == 0, exported.output
    by_item = {s.id: s for s in load(None, 2).samples}
    for line in out.read_text("utf-8").splitlines():
        row = json.loads(line)
        question = by_item[row["sample_id"]].input
        assert row["messages"] == [
            {"role": "user", "content": CONCISE.replace("{{ question }}", question).rstrip("\n")}
        ]
