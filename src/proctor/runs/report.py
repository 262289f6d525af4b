"""A run's statistics, built once from the store, and the files rendered from them.

    store (records, stored grades, judge verdicts, run config) ──► run_statistics ──► RunStatistics
                                                                    ──► write_run_files (pure)

Nothing is graded here: every grade is the stored one (`proctor.runs.grade`). What the task adds
to a report is read from its fields (`Task.tiers`, `Task.metrics`, `Task.confidence`,
`Task.grading_note`), never from its name; what a run adds (judge verdicts, a suite's [gate], a
bare/calculator pair) from the store."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from proctor._util.variants import matrix_axes, split_variant
from proctor.audit.labelled_sets import recorded_audits
from proctor.errors import ProctorError
from proctor.extract.judge_verdict import combine_pairwise, read_replies
from proctor.prompts.files import PromptFile
from proctor.providers.registry import bare_model, with_calculator
from proctor.report.atomic import write_text_atomic
from proctor.report.files import write_run_files
from proctor.runs.board_cells import report_cells
from proctor.runs.collector import paused_collector
from proctor.runs.grade import StoredItems, stored_items
from proctor.runs.stopped import with_stop
from proctor.runs.turn_kinds import turn_kind
from proctor.stats.cost import PriceTable
from proctor.stats.gates import JudgeScores
from proctor.stats.model_parts import Extras, Items
from proctor.stats.reviews import GivenVerdict
from proctor.stats.run_statistics import JudgeVerdict, RunStatistics, TaskView, build_statistics
from proctor.stats.turn_scores import TurnScores, turn_scores_from_json
from proctor.store import RunStore
from proctor.store import board_cells as cells_table
from proctor.store.run_store import Judgement
from proctor.tasks.base import Task
from proctor.tasks.prompting import asked_prompt
from proctor.types import Prompt, RunInfo, Sample

SUITE_KEY = "suite"
"""Where a suite run's config keeps the suite (name, version, [gate]) in the run config."""


def grader_audit_line(task: str) -> str:
    """ "grader audited: 0 false correct in 69 labelled replies (…)", or that it is not."""
    record = recorded_audits().get(task)
    if record is None:
        return f"grader not audited: no hand-labelled replies for {task} yet (proctor audit)"
    return (
        f"grader audited: {record.false_correct} false correct in {record.labelled} labelled"
        f" replies ({record.false_wrong} false wrong, {record.unscored} unscored;"
        f" {record.grader_version}, proctor audit {task})"
    )


def task_view(task: Task) -> TaskView:
    """What the reports need of the task, as data."""
    return TaskView(
        name=task.name,
        version=task.version,
        rules=dict(task.rules),
        tiers=task.tiers,
        grading_note=task.grading_note() if task.grading_note is not None else "",
        audit=grader_audit_line(task.name),
    )


def calculator_pairs(models: Sequence[str]) -> list[tuple[str, str]]:
    """(bare, with calculator) model strings of a run where both were asked."""
    names = set(models)
    return [(bare_model(m), m) for m in models if with_calculator(m) and bare_model(m) in names]


def judge_verdicts(judgements: Sequence[Judgement]) -> list[JudgeVerdict]:
    """Stored judgements read again with today's reading rules: one verdict per pointwise
    judgement, one per pair of orders of a pairwise one."""
    out: list[JudgeVerdict] = []
    pairs: dict[tuple[str, str, str, int], dict[str, Judgement]] = {}
    for j in judgements:
        if j.ordering != "single":
            pairs.setdefault((j.judge, j.model, j.sample_id, j.epoch), {})[j.ordering] = j
            continue
        reading = read_replies(j.replies, pairwise=False)
        score = reading.score
        reason = j.error if j.status == "call_failed" else reading.error
        out.append(
            JudgeVerdict(
                j.judge, j.model, j.sample_id, j.epoch, pairwise=False,
                score=None if score is None else score.score,
                correctness=None if score is None else score.correctness,
                completeness=None if score is None else score.completeness,
                reason="" if score is not None else reason,
            )
        )  # fmt: skip
    for (judge, model, sample_id, epoch), orders in pairs.items():
        ab, ba = orders.get("ab"), orders.get("ba")
        first = None if ab is None else read_replies(ab.replies, pairwise=True).pair
        second = None if ba is None else read_replies(ba.replies, pairwise=True).pair
        outcome = None if first is None or second is None else combine_pairwise(first, second)
        reason = "" if outcome is not None else "no valid verdict in both orders"
        out.append(
            JudgeVerdict(judge, model, sample_id, epoch, pairwise=True, outcome=outcome,
                         reason=reason)
        )  # fmt: skip
    return out


def describe_version(suite: Mapping[str, object]) -> str:
    """A suite's version in words: "sha256:… at git 1a2b3c4d5e6f (uncommitted changes)"."""
    if not suite:
        return "not recorded"
    commit = suite.get("git_commit")
    text = str(suite.get("content_hash", "?"))
    if isinstance(commit, str):
        text += f" at git {commit[:12]}"
        if suite.get("git_dirty"):
            text += f" ({suite.get('git_note')})"
    else:
        text += f" ({suite.get('git_note')})"
    return text


def judge_scores(judgements: Sequence[Judgement], judge: str | None = None) -> JudgeScores:
    """Pointwise verdicts read again from their stored replies: (model, sample, epoch) → score,
    or None when unscored (a failed judge call included)."""
    scores: dict[tuple[str, str, int], float | None] = {}
    for j in judgements:
        if j.ordering != "single" or (judge is not None and j.judge != judge):
            continue
        reading = read_replies(j.replies, pairwise=False)
        scores[(j.model, j.sample_id, j.epoch)] = (
            float(reading.score.score) if reading.score is not None else None
        )
    return scores


def suite_description(suite: Mapping[str, object]) -> str:
    """The suite and its version, in words ("support-desk · sha256:… at git 1a2b…"), or ""."""
    return f"{suite.get('name')} · {describe_version(suite)}" if suite else ""


def gate_requirements(suite: Mapping[str, object]) -> list[str]:
    """The requirements of the [gate] the suite's config had when the run began."""
    gate = suite.get("gate")
    required = gate.get("require") if isinstance(gate, dict) else None
    return [str(r) for r in required] if isinstance(required, list) else []


def prompt_text(prompt: Prompt) -> str:
    """A prompt as the report shows it: its one message, or each message under its role."""
    if len(prompt.messages) == 1:
        return prompt.messages[0].content
    return "\n\n".join(f"[{m.role}]\n{m.content}" for m in prompt.messages)


def prompt_as_sent(
    task: Task, info: RunInfo, files: Mapping[str, PromptFile], model: str, sample: Sample
) -> Prompt:
    """The prompt `model` (a variant of a prompt matrix, or a model of the run) was asked
    `sample` with."""
    _, prompt, lang = split_variant(model)
    return asked_prompt(task, files, prompt or info.prompt_variant, lang or info.lang, sample)


def one_prompt_per_sample(info: RunInfo) -> bool:
    """Whether every model of the run was sent the same prompt for a sample: not in a prompt or
    language matrix (one prompt per sample would be wrong for all but one variant; the viewer's
    item page shows each variant its own)."""
    axes = matrix_axes(info.models)
    return not any(len(axes.get(k, ())) > 1 for k in ("prompt", "lang"))


def sent_prompts(
    task: Task, info: RunInfo, samples: Iterable[Sample], config: Mapping[str, object]
) -> Mapping[str, Prompt] | None:
    """Each sample's prompt as the run sent it to every model (a prompt file's when it asked
    with one); None if the task cannot rebuild them, or when its variants were sent different
    prompts (a prompt or language matrix: one prompt per sample would be wrong for all but
    one; the viewer's item page shows each variant its own)."""
    from proctor.runs.plan import stored_prompt_files

    if not one_prompt_per_sample(info):
        return None
    files = stored_prompt_files(config, check=False)
    first = info.models[0] if info.models else ""
    try:
        return {s.id: prompt_as_sent(task, info, files, first, s) for s in samples}
    except ProctorError:
        return None


@dataclass(frozen=True)
class PromptTexts:
    """A sample's prompt as the run sent it (`prompt_as_sent`, as the first model was asked),
    rebuilt when a report shows it (a few thousand in report.html, every one in the viewer's
    sample page), so that a report never holds the prompts, nor the samples, of a whole paper;
    None for a sample the task cannot rebuild."""

    task: Task
    info: RunInfo
    files: Mapping[str, PromptFile]

    def __call__(self, sample: Sample) -> str | None:
        first = self.info.models[0] if self.info.models else ""
        try:
            return prompt_text(prompt_as_sent(self.task, self.info, self.files, first, sample))
        except ProctorError:
            return None


def prompt_texts(task: Task, info: RunInfo, config: Mapping[str, object]) -> PromptTexts | None:
    """The report's prompts as sent (`PromptTexts`); None in a prompt or language matrix."""
    from proctor.runs.plan import stored_prompt_files

    if not one_prompt_per_sample(info):
        return None
    return PromptTexts(task, info, stored_prompt_files(config, check=False))


def run_statistics(
    store: RunStore,
    run_id: str,
    task: Task | None,
    *,
    prices: PriceTable | None = None,
    grade_by_human: Sequence[str] = (),
    stream: bool = False,
) -> RunStatistics:
    """Every statistic of a stored run, from its stored grades, once. `task` None: a task this
    proctor does not know (the run shows its stored grades, without the task's extras).
    `grade_by_human`: the kinds ("*": all) counted by people's verdicts where they exist.
    `stream`: the answers are never held, but read from the store one model at a time, and
    again by each file written (`StoredItems`): how a report of any size is written; else
    they are held in `RunStatistics.items` (the viewer, `proctor.load_run`)."""
    with paused_collector():
        version = cells_table.data_version(store)  # before the answers are read
        items: Items = StoredItems(store, run_id) if stream else stored_items(store, run_id)
        stats = _run_statistics(store, run_id, task, items, prices, tuple(grade_by_human))
    stats = replace(stats, store_version=version)
    files = store.run_config(run_id).get("prompt_files")
    if isinstance(files, list) and files:
        stats = replace(stats, prompt_files=prompt_file_notes(files))
    return with_stop(store, run_id, stats)


def prompt_file_notes(stored: list[object]) -> dict[str, dict[str, str]]:
    """What the reports say of each stored prompt file, by the key its variants name."""
    notes: dict[str, dict[str, str]] = {}
    for doc in stored:
        if isinstance(doc, Mapping):
            f = PromptFile.from_json(doc)
            notes[f.key] = {
                "file": f.name, "sha256": f.sha256, "path": f.path, "grade_as": f.grade_as or "",
            }  # fmt: skip
    return notes


def human_verdicts(store: RunStore, run_id: str) -> list[GivenVerdict]:
    """People's stored verdicts on the run, in stored order, as the statistics read them."""
    return [
        GivenVerdict(
            v.model, v.sample_id, v.epoch, v.verdict, v.reviewer, v.note, v.reviewed_at, v.blind
        )
        for v in store.human_verdicts(run_id)
    ]


def _run_statistics(
    store: RunStore,
    run_id: str,
    task: Task | None,
    items: Items,
    prices: PriceTable | None,
    grade_by_human: tuple[str, ...],
) -> RunStatistics:
    info = store.run_info(run_id)
    config = store.run_config(run_id)
    epochs = config.get("epochs", 1)
    raw_suite = config.get(SUITE_KEY)
    suite: Mapping[str, object] = raw_suite if isinstance(raw_suite, dict) else {}
    if task is None:
        turns = turn_scores(store, run_id)
        return build_statistics(
            info, items, TaskView(name=info.task),
            grader_version=turns[0].grader_version if turns else store.grader_version(run_id),
            # a run of turns has no answers to count: its completeness is its outcome
            expected_per_model=0 if turns else None,
            judge_verdicts=judge_verdicts(store.judgements(run_id)), prices=prices, turns=turns,
            human_verdicts=human_verdicts(store, run_id), grade_by_human=grade_by_human,
        )  # fmt: skip
    return build_statistics(
        info,
        items,
        task_view(task),
        grader_version=store.grader_version(run_id),
        expected_per_model=info.dataset_size * (epochs if isinstance(epochs, int) else 1),
        prompts=prompt_texts(task, info, config),
        judge_verdicts=judge_verdicts(store.judgements(run_id)),
        gate_requirements=gate_requirements(suite),
        # each made from one model's answers as they are read: a stream covers them too
        extras=Extras(metrics=task.metrics, confidence=task.confidence),
        calculator_pairs=calculator_pairs(info.models),
        prices=prices,
        suite=suite_description(suite),
        human_verdicts=human_verdicts(store, run_id),
        grade_by_human=grade_by_human,
    )


def turn_scores(store: RunStore, run_id: str) -> list[TurnScores]:
    """The stored grades of a dialogue or workflow run, one per model; [] for any other run."""
    return [
        turn_scores_from_json(grade, version)
        for version, grade in store.turn_grades(run_id).values()
    ]


def store_turn_grade(store: RunStore, run_id: str, scores: TurnScores) -> None:
    """Store the grade of a dialogue or workflow run, replacing its last one."""
    store.save_turn_grade(run_id, scores.model, scores.grader_version, scores.to_json())


def write_report(store: RunStore, stats: RunStatistics) -> list[Path]:
    """Write the run's files (results.json, samples.csv, summary.md, report.html, and the
    task's own metrics in task_metrics.json when it has some) into its folder; their paths.
    A run of answers has its leaderboard cells stored too, made from `stats`
    (`proctor.runs.board_cells`), so a board that ranks it reads them, not its answers again."""
    run_dir = store.run_dir(stats.info.run_id)
    with paused_collector():
        written = write_run_files(run_dir, stats)
    if stats.task_metrics is not None:
        document = {
            "task": stats.task.name,
            "task_version": stats.task.version,
            "models": {m: dict(v) for m, v in stats.task_metrics.values.items()},
        }
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        written.append(write_text_atomic(run_dir / "task_metrics.json", text))
    if turn_kind(stats.info.task) is None:
        report_cells(store, stats)
    return written
