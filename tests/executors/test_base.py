"""What every executor shares (`proctor.executors.base`): a variant of a prompt file is asked
with the file's text and recorded under the variant that grades it, and the settings a Ray worker
receives pickled ask exactly what this process would."""

from __future__ import annotations

import pickle
from pathlib import Path

from proctor.executors.base import AskSettings, request_for, variant_of
from proctor.prompts.files import PromptFile
from proctor.tasks.arithmetic import TASK, load
from proctor.tasks.prompting import read_task_prompt
from proctor.types import GenerationParams


def _settings(tmp_path: Path) -> tuple[AskSettings, str]:
    (tmp_path / "short.txt").write_text("---\ngrade_as: A\n---\nJust the number: {{ question }}")
    found = read_task_prompt(TASK, "short.txt", base=tmp_path)
    assert isinstance(found, PromptFile)
    settings = AskSettings(
        run_id="r", task=TASK, variant="B", lang="en", params=GenerationParams(),
        prompt_files={found.key: found},
    )  # fmt: skip
    return settings, found.key


def test_a_file_variant_is_asked_its_text_and_recorded_under_its_grading_variant(
    tmp_path: Path,
) -> None:
    settings, key = _settings(tmp_path)
    sample = load(None, 1).samples[0]
    prompt, _ = request_for(settings, f"fake/const:1#prompt={key}", sample, 0)
    assert [m.content for m in prompt.messages] == [f"Just the number: {sample.input}"]
    assert variant_of(settings, f"fake/const:1#prompt={key}") == ("A", "en")
    # the run's own prompt and a task variant are the task's, as before
    assert variant_of(settings, "fake/const:1") == ("B", "en")
    own, _ = request_for(settings, "fake/const:1#prompt=A", sample, 0)
    assert own == TASK.build_prompt(sample, "A", "en")


def test_settings_with_prompt_files_ask_the_same_after_pickling(tmp_path: Path) -> None:
    settings, key = _settings(tmp_path)
    shipped = pickle.loads(pickle.dumps(settings))
    model = f"fake/const:1#prompt={key}"
    for sample in load(None, 5).samples:
        assert request_for(shipped, model, sample, 1) == request_for(settings, model, sample, 1)
