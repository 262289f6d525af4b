"""The viewer's pages for many models and big runs, each read from the store in SQL at every
request (`proctor.store.browse`): one item across models, one model across runs, one page of a
run's answers, and the progress of a run as it fills. None holds more than one page of answers.

Grades are the stored ones: nothing is graded here (a page never runs a grader nor a model's
code); an answer with no stored grade says "not graded".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote, urlencode

from proctor._util.variants import matrix_axes
from proctor.errors import ProctorError
from proctor.report.html.page import render
from proctor.report.html.viewer_pages import run_href
from proctor.report.text import interval, one_line, pct
from proctor.runs.plan import stored_prompt_files
from proctor.runs.report import human_verdicts, prompt_as_sent, prompt_text
from proctor.stats.human import counting
from proctor.stats.intervals import wilson_interval
from proctor.store import RunStore
from proctor.store.browse import (
    NOT_GRADED,
    Answer,
    Tally,
    answer_page,
    item_answers,
    model_tallies,
    n_samples,
    neighbours,
    sample_at,
    tallies,
)
from proctor.tasks.registry import TASKS
from proctor.types import OUTCOMES, Score

PAGE_SIZE = 50
REFRESH_S = 2
"""How often the progress page of a running run reloads itself."""


class NotFound(Exception):
    pass


def item_href(run_id: str, sample_id: str) -> str:
    return f"{run_href(run_id)}/items/{quote(sample_id, safe='')}"


def model_href(model: str) -> str:
    return "/models/" + quote(model, safe="")


def answers_href(run_id: str, **query: str | int) -> str:
    kept = {k: v for k, v in query.items() if v not in ("", 0)}
    return f"{run_href(run_id)}/answers" + (f"?{urlencode(kept)}" if kept else "")


def progress_href(run_id: str) -> str:
    return f"{run_href(run_id)}/progress"


def headline(tally: Tally) -> dict[str, object]:
    """A model's score in a run as the pages show it: accuracy, interval and counts."""
    graded = tally.n_graded > 0
    accuracy = tally.correct / tally.n_scored if tally.n_scored else None
    low, high = wilson_interval(tally.correct, tally.n_scored) if tally.n_scored else (None, None)
    return {
        "model": tally.model,
        "href": model_href(tally.model),
        "accuracy": pct(accuracy) if graded else "not graded",
        "interval": interval(low, high) if graded else "",
        "correct": tally.correct,
        "scored": tally.n_scored,
        "answers": tally.n_answers,
        "failed": tally.n_failed,
        "graded": tally.n_graded,
    }


def run_headlines(store: RunStore, run_ids: Sequence[str]) -> dict[str, list[dict[str, object]]]:
    """Each run's per-model headline, in the run's model order."""
    by_run: dict[str, dict[str, Tally]] = {}
    for t in tallies(store, run_ids):
        by_run.setdefault(t.run_id, {})[t.model] = t
    out: dict[str, list[dict[str, object]]] = {}
    for run_id in run_ids:
        found = by_run.get(run_id, {})
        models = store.run_info(run_id).models
        out[run_id] = [headline(found[m]) for m in models if m in found]
    return out


def item_page(store: RunStore, run_id: str, sample_id: str) -> str:
    """Every model's answer to one item side by side, each with its grade and its rule."""
    info = store.run_info(run_id)
    found = sample_at(store, run_id, sample_id)
    if found is None:
        raise NotFound(f"run {run_id} has no item '{sample_id}'")
    position, sample = found
    task = TASKS.get(info.task)
    rules: Mapping[str, str] = task.rules if task is not None else {}
    prompt = None
    per_model: dict[str, str] = {}  # a prompt or language matrix: each variant its own prompt
    if task is not None:
        files = stored_prompt_files(store.run_config(run_id), check=False)
        varied = {"prompt", "lang"} & set(matrix_axes(info.models))
        try:
            if varied:
                per_model = {
                    m: prompt_text(prompt_as_sent(task, info, files, m, sample))
                    for m in info.models
                }
            else:
                prompt = prompt_text(task.build_prompt(sample, info.prompt_variant, info.lang))
        except ProctorError:
            prompt, per_model = None, {}
    before, after = neighbours(store, run_id, position)
    order = {m: i for i, m in enumerate(info.models)}
    answers = sorted(
        item_answers(store, run_id, sample_id),
        key=lambda a: (order.get(a.record.model, len(order)), a.record.model, a.record.epoch),
    )
    people = counting(human_verdicts(store, run_id))
    cards = []
    for answer in answers:
        score, graded_by = _grade_of(answer)
        person = people.get((answer.record.model, sample_id, answer.record.epoch))
        cards.append(
            {
                "model": answer.record.model,
                "href": model_href(answer.record.model),
                "epoch": answer.record.epoch,
                "status": answer.record.status,
                "error": answer.record.error,
                "finish_reason": answer.record.finish_reason,
                "text": answer.record.text,
                "outcome": score.outcome if score is not None else NOT_GRADED,
                "rule": score.rule if score is not None else "",
                "rule_parts": _rule_parts(score.rule, rules) if score is not None else [],
                "explanation": score.explanation if score is not None else "never graded",
                "extracted": score.extracted if score is not None else None,
                "normalized": score.normalized if score is not None else None,
                "graded_by": graded_by,
                "human": "" if person is None else person.words,
                "prompt": per_model.get(answer.record.model, ""),
            }
        )
    return render(
        "item.html.j2",
        title=f"proctor · {run_id} · {sample_id}",
        viewer=True,
        run_id=run_id,
        run_href=run_href(run_id),
        answers_href=answers_href(run_id),
        sample=sample,
        position=position,
        prompt=prompt,
        prev_href=item_href(run_id, before) if before is not None else "",
        next_href=item_href(run_id, after) if after is not None else "",
        cards=cards,
        epochs=len({a.record.epoch for a in answers}) > 1,
    )


def _rule_parts(rule: str, rules: Mapping[str, str]) -> list[tuple[str, str]]:
    """ "final_answer_line+integer_equal" → each step with its statement in the task's rules."""
    return [(part, rules.get(part, "")) for part in rule.split("+") if part]


def _grade_of(answer: Answer) -> tuple[Score | None, str]:
    return (answer.score, "stored grade") if answer.score is not None else (None, "not graded")


def model_page(store: RunStore, model: str) -> str:
    """One model's score in every run of the folder that asked it, by task, newest first."""
    found = model_tallies(store, model)
    if not found:
        raise NotFound(f"no run in this results folder has answers of '{model}'")
    rows: dict[str, list[dict[str, object]]] = {}
    infos = {t.run_id: store.run_info(t.run_id) for t in found}
    newest_first = {r.run_id: i for i, r in enumerate(store.list_runs())}
    for t in sorted(found, key=lambda t: newest_first.get(t.run_id, len(newest_first))):
        info = infos[t.run_id]
        rows.setdefault(info.task, []).append(
            {
                **headline(t),
                "run_id": t.run_id,
                "run_href": run_href(t.run_id),
                "created_at": info.created_at,
                "others": len(info.models) - 1,
                "answers_href": answers_href(t.run_id, model=model),
            }
        )
    return render(
        "model.html.j2",
        title=f"proctor · {model}",
        viewer=True,
        model=model,
        tasks=sorted(rows.items()),
        n_runs=len(found),
    )


def answers_page(
    store: RunStore, run_id: str, query: Mapping[str, list[str]], *, note: str = ""
) -> str:
    """One page of a run's answers, filtered on the server: the run page of a big run."""
    info = store.run_info(run_id)

    def arg(name: str) -> str:
        return query.get(name, [""])[0][:500]

    model, outcome, text = arg("model"), arg("outcome"), arg("q")
    try:
        page = min(max(int(arg("page") or "1"), 1), 10**9)  # SQLite's OFFSET is 64-bit
    except ValueError:
        page = 1
    found = answer_page(
        store,
        run_id,
        model=model,
        outcome=outcome,
        text=text,
        offset=(page - 1) * PAGE_SIZE,
        limit=PAGE_SIZE,
    )
    last = max((found.total + PAGE_SIZE - 1) // PAGE_SIZE, 1)
    rows = [
        {
            "position": a.position + 1,
            "sample_id": a.sample.id,
            "href": item_href(run_id, a.sample.id),
            "model": a.record.model,
            "epoch": a.record.epoch,
            "outcome": a.score.outcome if a.score is not None else NOT_GRADED,
            "rule": a.score.rule if a.score is not None else "",
            "preview": one_line(a.record.text or a.record.error, 160, tail=True),
        }
        for a in found.answers
    ]
    keep = {"model": model, "outcome": outcome, "q": text}
    return render(
        "answers.html.j2",
        title=f"proctor · {run_id} · answers",
        viewer=True,
        run_id=run_id,
        task=info.task,
        status=store.run_status(run_id),
        note=note,
        progress_href=progress_href(run_id),
        headlines=run_headlines(store, [run_id])[run_id],
        models=info.models,
        outcomes=[*OUTCOMES, NOT_GRADED],
        model=model,
        outcome=outcome,
        q=text,
        rows=rows,
        total=found.total,
        first=(page - 1) * PAGE_SIZE + 1 if rows else 0,
        last_shown=(page - 1) * PAGE_SIZE + len(rows),
        page=page,
        pages=last,
        prev_href=answers_href(run_id, **keep, page=page - 1) if page > 1 else "",
        next_href=answers_href(run_id, **keep, page=page + 1) if page < last else "",
    )


def progress_page(store: RunStore, run_id: str) -> str:
    """How far a run has got, read from the store at each load; reloads itself while running."""
    info = store.run_info(run_id)
    status = store.run_status(run_id)
    counts = store.count_records(run_id)
    found = {t.model: t for t in tallies(store, [run_id])}
    epochs = store.run_config(run_id).get("epochs", 1)
    expected = n_samples(store, run_id) * (epochs if isinstance(epochs, int) and epochs > 0 else 1)
    models = []
    for m in info.models:
        row = headline(found.get(m) or Tally(run_id, m, 0, 0, 0, 0, 0))
        done = counts.get(m, 0)
        models.append({**row, "done": done, "expected": expected,
                       "share": pct(done / expected) if expected else pct(None)})  # fmt: skip
    done_all = sum(counts.values())
    expected_all = expected * len(info.models)
    return render(
        "progress.html.j2",
        title=f"proctor · {run_id} · progress",
        viewer=True,
        refresh=REFRESH_S if status == "running" else 0,
        run_id=run_id,
        run_href=run_href(run_id),
        answers_href=answers_href(run_id),
        task=info.task,
        status=status,
        done=done_all,
        expected=expected_all,
        share=pct(done_all / expected_all) if expected_all else pct(None),
        models=models,
    )
