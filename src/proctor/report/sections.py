"""The result sections every report shows alike, as plain tables of text.

Each function reads one part of a `RunStatistics` and gives the `Section`s it fills, none when
the run has no data for it; the terminal, summary.md and report.html draw the same `Section`s
(each in its own markup), so a result is in all of them or in none."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from proctor.report.text import (
    NONE,
    completeness_problems,
    finishing_command,
    gate_value,
    interval,
    pct,
)
from proctor.stats.agreement import Agreement
from proctor.stats.repeats import Estimate
from proctor.stats.run_statistics import RunStatistics


@dataclass(frozen=True)
class Section:
    """A titled table of text cells, with a line that says how to read it."""

    key: str
    """A stable name (an HTML id, a test's handle): "repeats", "judge", "gate" …"""
    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    text_columns: frozenset[int] = frozenset({0})
    """The columns that hold text from outside (model names, kinds, requirements): a renderer
    escapes them; the others are numbers this module wrote."""


def estimate_text(e: Estimate) -> str:
    if e.value is None:
        return NONE
    if e.low is None or e.high is None:
        return f"{pct(e.value)} (n={e.n})"
    return f"{pct(e.value)} {interval(e.low, e.high)}"


def _number(value: float | None) -> str:
    if value is None or value != value:
        return NONE
    return f"{value:.4g}"


def _metric(name: str, value: float | None) -> str:
    """A task metric as every report shows it: a share of replies (its name says "accuracy",
    "replies" or "answers": lm-eval's filters, valid replies, unscored answers) as a percentage
    with one decimal, like every accuracy; other numbers (means, ECE, Brier) as numbers."""
    words = name.split(" (")[0]
    if value is not None and value == value and (
        "accuracy" in words or words.endswith(("replies", "answers"))
    ):
        return pct(value)
    return _number(value)


def _mean(value: float | None) -> str:
    return NONE if value is None else f"{value:.2f}"


def repeats(stats: RunStatistics) -> list[Section]:
    """Stability, majority vote and pass@k, when some item has several replies."""
    if not stats.repeats:
        return []
    ks = stats.pass_ks
    head = ("model", "replies/item", "accuracy (all replies)", "majority vote", "stability")
    rows = []
    for model in stats.models:
        r = stats.repeats.get(model)
        if r is None:
            continue
        rows.append(
            (
                model,
                str(r.replies_per_item),
                estimate_text(r.accuracy),
                estimate_text(r.majority),
                estimate_text(r.stability),
                *(estimate_text(r.pass_at[k]) if k in r.pass_at else NONE for k in ks),
            )
        )
    note = (
        "Accuracy over all replies has an interval clustered by item; majority vote: the answer "
        "given most often per item; stability: share of items whose replies all read the same "
        "(apart from accuracy: a model can be stably wrong); pass@k: unbiased estimator, "
        "bootstrap interval over items."
    )
    return [
        Section("repeats", "Repeated samples", (*head, *(f"pass@{k}" for k in ks)), tuple(rows),
                note)
    ]  # fmt: skip


def consistency(stats: RunStatistics) -> list[Section]:
    """Share of items whose replies all read the same, per model and kind."""
    c = stats.consistency
    if c is None or not c.rows:
        return []
    rows = tuple(
        (r.model, estimate_text(r.overall), *(estimate_text(r.by_kind[k]) if k in r.by_kind
                                              else NONE for k in c.kinds))
        for r in c.rows
    )  # fmt: skip
    note = "Share of items whose repeated replies all read the same (95 % interval)."
    return [Section("consistency", "Consistency", ("model", "overall", *c.kinds), rows, note)]


def judges(stats: RunStatistics) -> list[Section]:
    """Each judge's verdicts: mean scores per model and kind, pairwise wins."""
    out: list[Section] = []
    for j in stats.judges:
        if j.pointwise:
            rows = tuple(
                (r.model, r.kind, str(r.judged), _mean(r.mean_score), _mean(r.mean_correctness),
                 _mean(r.mean_completeness), str(r.unscored))
                for r in j.pointwise
            )  # fmt: skip
            head = ("model", "kind", "judged", "score", "correctness", "completeness", "unscored")
            note = "; ".join(f"unscored {why}" for why in j.unscored_reasons[:5])
            if len(j.unscored_reasons) > 5:
                note += f"; … and {len(j.unscored_reasons) - 5} more unscored"
            out.append(Section("judge", f"Judge {j.judge}", head, rows, note, frozenset({0, 1})))
        if j.pairwise:
            pairs = tuple(
                (r.pair, str(r.a_wins), str(r.b_wins), str(r.ties), str(r.inconsistent),
                 str(r.unscored))
                for r in j.pairwise
            )  # fmt: skip
            out.append(
                Section("judge-pairwise", f"Pairwise judge {j.judge} (both orders must agree)",
                        ("A vs B", "A wins", "B wins", "ties", "inconsistent", "unscored"), pairs)
            )  # fmt: skip
    return out


def human(stats: RunStatistics) -> list[Section]:
    """People's verdicts beside the rules': reviewed replies per model and kind, and how often
    the rules agree; and which kinds the report counts by people's verdicts."""
    h = stats.human
    if h is None:
        return []
    rows = tuple(
        (r.model, r.kind, str(r.reviewed), str(r.correct), str(r.wrong),
         f"{pct(r.rules_agreement)} ({r.rules_agree} of {r.rules_scored})"
         if r.rules_agreement is not None else NONE)
        for r in h.rows
    )  # fmt: skip
    if not h.grade_by:
        note = "Counted by the rules; people's verdicts are shown beside them."
    else:
        kinds = "every kind" if "*" in h.grade_by else "kinds " + ", ".join(h.grade_by)
        note = (
            f"Counted by people's verdicts where they exist for {kinds} (--grade-by human): "
            f"{h.counted} grades taken from people, the rest from the rules."
        )
    head = ("model", "kind", "reviewed", "correct", "wrong", "rules agree")
    out = [Section("human", "Human verdicts", head, rows, note, frozenset({0, 1}))]
    if h.drift is not None:
        agreements = tuple(
            (r.who, r.scope, str(r.result.n), agreement_text(r.result))
            for r in (*h.drift.self_agreement, *h.drift.inter_rater)
        )
        out.append(
            Section("reviewer-agreement", "Reviewer agreement",
                    ("reviewer", "over", "pairs", "agreement · Cohen's kappa (95 % interval)"),
                    agreements, "A reviewer's blind re-grades against their own earlier verdicts"
                    " (drift); two reviewers (A × B) on the replies both decided.",
                    frozenset({0, 1}))
        )  # fmt: skip
    return out


def agreement_text(a: Agreement) -> str:
    """ "80.0% (4 of 5) · κ 0.62 [0.10, 1.00]"; κ "—" where undefined."""
    share = NONE if a.share is None else f"{pct(a.share)} ({a.agree} of {a.n})"
    if a.kappa is None:
        return f"{share} · κ {NONE}"
    kappa = f"κ {a.kappa:.2f}"
    if a.kappa_low is not None and a.kappa_high is not None:
        kappa += f" [{a.kappa_low:.2f}, {a.kappa_high:.2f}]"
    return f"{share} · {kappa}"


def task_metrics(stats: RunStatistics) -> list[Section]:
    """The task's own metrics beyond accuracy (lm-eval's filters, structured axes…)."""
    t = stats.task_metrics
    if t is None:
        return []
    rows = tuple(
        (model, *(_metric(name, per_model.get(name)) for name in t.names))
        for model, per_model in t.values.items()
    )
    return [Section("task-metrics", f"{stats.task.name} metrics", ("model", *t.names), rows)]


def gate(stats: RunStatistics) -> list[Section]:
    """The run's own requirements (a suite's [gate]), checked on its grades."""
    g = stats.gate
    if g is None:
        return []
    rows = tuple(
        (r.requirement, r.model, gate_value(r), str(r.n), r.result, r.note)
        for r in g.rows
    )  # fmt: skip
    failed = sum(not r.passed and not r.inconclusive for r in g.rows)
    undecided = sum(r.inconclusive for r in g.rows)
    note = (
        "gate passed" if g.passed
        else f"gate failed: {failed} of {len(g.rows)} checks" if failed
        else f"gate inconclusive: {undecided} of {len(g.rows)} checks lack the evidence to decide"
    )  # fmt: skip
    head = ("requirement", "model", "value", "n", "result", "note")
    return [Section("gate", "Gate", head, rows, note, frozenset({0, 1, 5}))]


def truncation(stats: RunStatistics) -> list[Section]:
    """Replies cut off by max_tokens, and the accuracy bounds they leave."""
    if not stats.truncation:
        return []
    rows = tuple(
        (t.model, f"{t.capped:,} of {t.scored:,}", pct(t.rate), pct(t.accuracy_low),
         pct(t.accuracy_high), pct(t.finished_accuracy),
         "—" if t.suggested_max_tokens is None else f"{t.suggested_max_tokens:,}")
        for t in stats.truncation
    )  # fmt: skip
    warnings = [w for t in stats.truncation if (w := t.warning()) is not None]
    note = "; ".join(warnings) or "cut-off replies are graded wrong; the bounds say what they hide"
    head = ("model", "cut off", "rate", "accuracy (cut-off wrong)", "accuracy (cut-off right)",
            "accuracy on finished", "suggested max_tokens")  # fmt: skip
    return [Section("truncation", "Cut-off replies", head, rows, note)]


def calibration(stats: RunStatistics) -> list[Section]:
    """ECE and Brier score of each model's stated confidences."""
    if not stats.calibration:
        return []
    rows = tuple(
        (model, str(c.n), f"{c.ece:.3f}", f"{c.brier:.3f}")
        for model, c in stats.calibration.items()
    )
    note = (
        "Stated confidence against accuracy, in ten equal-width confidence bins (valid replies "
        "only). ECE: the count-weighted mean gap between confidence and accuracy; Brier: the "
        "mean of (confidence − correct)². Both 0 at best."
    )
    return [Section("calibration", "Calibration", ("model", "replies", "ECE", "Brier"), rows, note)]


def calculator(stats: RunStatistics) -> list[Section]:
    """Bare vs calculator accuracy, for each model the run asked both ways."""
    calc = stats.calculator
    if calc is None:
        return []
    bare = {m.model: m.accuracy for m in stats.ranking}
    rows = []
    for c in calc.models:
        b = bare.get(c.model)
        gap = NONE if b is None or c.accuracy is None else f"{(c.accuracy - b) * 100:+.1f}"
        rows.append((c.model, pct(b), pct(c.accuracy), gap))
    head = ("model", "bare", "with calculator", "gap (points)")
    return [Section("calculator", "Bare vs calculator", head, tuple(rows))]


def cost(stats: RunStatistics) -> list[Section]:
    """Tokens and, with a price table, cost per model; the answers reused from the response
    cache and what that saved, when some were."""
    if not stats.cost or not stats.has_answers:
        return []  # a run of turns counts its tokens in its own section
    priced = any(c.cost is not None for c in stats.cost)
    reused = any(c.reused for c in stats.cost)
    rows = []
    for c in stats.cost:
        row = [c.model, f"{c.prompt_tokens:,}", f"{c.completion_tokens:,}"]
        if priced:
            row.append("no price" if c.cost is None else f"${c.cost:,.4f}")
        if reused:
            row.append(f"{c.reused:,}")
            row.append(NONE if c.saved is None else f"${c.saved:,.4f}")
        rows.append(tuple(row))
    head: tuple[str, ...] = ("model", "prompt tokens", "completion tokens")
    head += ("cost",) if priced else ()
    head += ("reused from the cache", "not spent") if reused else ()
    notes = []
    unknown = sum(m.unknown_usage for m in stats.ranking)
    if unknown:
        notes.append(f"at least: {unknown:,} answers had unknown token counts")
    batched = sum(c.batched for c in stats.cost)
    if batched:
        notes.append(f"{batched:,} answers asked in batches, at the batch price")
    if reused:
        notes.append("reused answers are priced at what asking them again would cost")
    return [Section("cost", "Tokens and cost", head, tuple(rows), "; ".join(notes))]


def run_state(stats: RunStatistics) -> list[Section]:
    """What keeps the run from being a success (answers never asked, calls that failed and why),
    and the command that finishes it; nothing for a run that succeeded. A failed call is never
    graded as a wrong answer, so a run whose calls failed must say so wherever it is shown."""
    if stats.turns:  # a turn run's outcome says it (`turns`)
        return []
    state = stats.completeness
    rows = tuple(completeness_problems(state))
    command = finishing_command(stats.info.run_id, state)
    if not rows or command is None:
        return []
    what = "is incomplete" if state.incomplete else "has failed calls (never graded as wrong)"
    note = f"run {stats.info.run_id} {what}: `{command}` asks them again"
    if state.stopped_by_design:
        note = (
            f"run {stats.info.run_id} stopped early by design: {state.stopped_early}. "
            f"`{command}` asks the rest (the verdict does not need them)"
        )
    return [Section("state", "Run state", ("model", "problem"), rows, note, frozenset({0, 1}))]


def turns(stats: RunStatistics) -> list[Section]:
    """A dialogue's or a workflow's grade: its outcome and scores, then each turn."""
    out: list[Section] = []
    for t in stats.turns:
        what = t.kind or "turns"
        rows = (("outcome", t.outcome), *t.metrics, *(("problem", p) for p in t.problems))
        graded = f"graded by {t.grader_version}" if t.grader_version else ""
        note = "; ".join(part for part in (t.reason, graded) if part)
        out.append(
            Section(f"{what}-scores", f"{what.capitalize()} · {t.model}", ("measure", "value"),
                    tuple(rows), note, text_columns=frozenset({0, 1}))
        )  # fmt: skip
        if t.turns:
            out.append(
                Section(f"{what}-turns", f"{what.capitalize()} turns · {t.model}",
                        ("turn", "step", "score", "what followed"),
                        tuple((str(r.position), r.step, r.score, r.note) for r in t.turns),
                        text_columns=frozenset({1, 3}))
            )  # fmt: skip
    return out


SECTIONS: tuple[Callable[[RunStatistics], list[Section]], ...] = (
    run_state,
    turns,
    calculator,
    repeats,
    consistency,
    judges,
    human,
    task_metrics,
    gate,
    truncation,
    calibration,
    cost,
)
"""In report order; every renderer draws all of them."""


def result_sections(stats: RunStatistics) -> Sequence[Section]:
    """Every section the run has data for, in report order."""
    return [section for make in SECTIONS for section in make(stats)]
