"""A set file (`proctor.runs.set_config`): defaults at the top, seeds and prompts expanded into a
run each, unknown keys and bad values refused naming the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.runs.set_config import check_set_file, line_of, read_set_file

GOOD = """\
name = "weekly"
models = ["fake/const:42", "fake/const:7"]
limit = 3
temperature = 0.5

[[tasks]]
task = "arithmetic"
seeds = [1, 2]

[[tasks]]
task = "gsm8k"
prompts = ["zero-shot", "few-shot"]
limit = 2
temperature = 0
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evals.toml"
    path.write_text(text)
    return path


def test_tasks_expand_with_their_own_options_over_the_defaults(tmp_path: Path) -> None:
    written = read_set_file(_write(tmp_path, GOOD))
    assert written.name == "weekly" and len(written.models) == 2
    got = [(t.task, t.paper.seed, t.paper.limit, t.asking.prompt, t.asking.temperature)
           for t in written.tasks]  # fmt: skip
    assert got == [
        ("arithmetic", 1, 3, None, 0.5),
        ("arithmetic", 2, 3, None, 0.5),
        ("gsm8k", None, 2, "zero-shot", 0.0),
        ("gsm8k", None, 2, "few-shot", 0.0),
    ]
    assert written.origins == (0, 0, 1, 1)


def test_check_builds_every_run_and_calls_nothing(tmp_path: Path) -> None:
    _written, plans = check_set_file(_write(tmp_path, GOOD), tmp_path / "results")
    assert [len(p.samples) for p in plans] == [3, 3, 2, 2]
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (GOOD.replace("limit = 2", "limt = 2"), r"toml:13: field 'tasks\[1\].limt': unknown key"),
        (GOOD.replace("limit = 3", "limit = 0"), r"evals.toml:3: field 'limit': .*greater than"),
        (GOOD + "colour = 1\n", r"evals.toml:15: field 'tasks\[1\].colour'"),
        ("models = []\n[[tasks]]\ntask = 'arithmetic'\n", r"evals.toml:1: field 'models'"),
        (GOOD.replace('"gsm8k"', '"gsm9k"'), r"toml:11: field 'tasks\[1\].task': unknown task"),
        (GOOD.replace('"fake/const:7"', '"nope/x"'), r"evals.toml:2: field 'models\[1\]'"),
        (GOOD.replace("seeds = [1, 2]", "seeds = [1, 1]"), r"field 'tasks': .*named twice"),
        (GOOD.replace("limit = 3", "limit = '3'"), r"evals.toml:3: field 'limit'"),
        ("models = [\n", r"evals.toml: bad TOML"),
    ],
)
def test_a_bad_file_names_file_line_and_field(tmp_path: Path, text: str, where: str) -> None:
    with pytest.raises(ConfigError, match=where):
        check_set_file(_write(tmp_path, text), tmp_path / "results")
    assert not (tmp_path / "results").exists()


def test_line_of_finds_keys_in_their_table() -> None:
    assert line_of(GOOD, ("tasks", 1, "limit")) == 13
    assert line_of(GOOD, ("tasks", 0, "limit")) == 6  # not written there: its table's line
    assert line_of(GOOD, ("limit",)) == 3
    assert line_of(GOOD, ("nothing",)) is None


MATRIX = """\
models = ["fake/const:42", "fake/const:7"]
limit = 3
temperature = [0.0, 0.7]

[[tasks]]
task = "gsm8k"
prompt = ["zero-shot", "few-shot"]

[[tasks]]
task = "arithmetic"
temperature = 0.2
"""


def test_lists_of_prompt_lang_temperature_are_a_matrix_in_one_run(tmp_path: Path) -> None:
    written = read_set_file(_write(tmp_path, MATRIX))
    gsm8k, arithmetic = written.tasks
    assert gsm8k.matrix.prompts == ("zero-shot", "few-shot")
    assert gsm8k.matrix.temperatures == (0.0, 0.7)
    assert (gsm8k.asking.prompt, gsm8k.asking.temperature) == ("zero-shot", 0.0)
    assert not arithmetic.matrix and arithmetic.asking.temperature == 0.2
    _written, plans = check_set_file(_write(tmp_path, MATRIX), tmp_path / "results")
    assert len(plans) == 2
    assert plans[0].models == tuple(
        f"{m}#prompt={p},temperature={t}"
        for m in ("fake/const:42", "fake/const:7")
        for p in ("zero-shot", "few-shot")
        for t in ("0.0", "0.7")
    )
    assert plans[1].models == ("fake/const:42", "fake/const:7")
    assert plans[1].params.temperature == 0.2


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (MATRIX.replace("limit = 3", "limit = [3, 4]"),
         r"evals.toml:2: field 'limit': .*cannot be a list: only prompt, lang and temperature"),
        (MATRIX + "seed = [1, 2]\n", r"evals.toml:12: field 'tasks\[1\].seed': .*cannot be a list"),
        (MATRIX.replace("[0.0, 0.7]", "[0.0, 2.5]"),
         r"evals.toml:3: field 'temperature\[1\]': .*less than or equal to 2"),
        (MATRIX.replace("[0.0, 0.7]", "[0.5, 0.5]"), r"--temperature names the same value twice"),
        (MATRIX.replace("[0.0, 0.7]", "['hot']"), r"evals.toml:3: field 'temperature\[0\]'"),
        (MATRIX.replace('"few-shot"]', '"few-shot"]\nprompts = ["zero-shot"]'),
         r"evals.toml:7: field 'tasks\[0\].prompt': prompt = \[...\] is a matrix in one run"),
        (MATRIX.replace('"few-shot"]', '"C"]'), r"field 'tasks\[0\].task': .*unknown prompt"),
    ],
)  # fmt: skip
def test_a_list_that_cannot_be_a_matrix_is_refused(
    tmp_path: Path, text: str, where: str
) -> None:
    with pytest.raises(ConfigError, match=where):
        check_set_file(_write(tmp_path, text), tmp_path / "results")
    assert not (tmp_path / "results").exists()


def test_a_prompt_file_that_cannot_be_asked_is_refused_naming_its_line(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.txt").write_text("Solve this.\n\n{{ target }}\n")
    text = MATRIX.replace('"few-shot"]', '"prompts/a.txt"]')
    with pytest.raises(ConfigError, match=r"a.txt:3: unknown name 'target'"):
        check_set_file(_write(tmp_path, text), tmp_path / "results")
    assert not (tmp_path / "results").exists()


def test_prompt_files_are_read_relative_to_the_set_file(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.txt").write_text("Solve this.\n\n{{ question }}\n")
    text = MATRIX.replace('"few-shot"]', '"prompts/a.txt"]')
    _, plans = check_set_file(_write(tmp_path, text), tmp_path / "results")
    (key,) = plans[0].prompt_files
    assert key.startswith("a.txt@") and plans[0].prompt_files[key].path == str(
        (tmp_path / "prompts" / "a.txt").resolve()
    )
    assert any(m.endswith(f"prompt={key},temperature=0.7") for m in plans[0].models)
    assert any("prompt=zero-shot" in m for m in plans[0].models)
