"""Two models on the same items: per-item differences, flipped items and a significance verdict,
for a terminal and for a pull-request comment.

Pure: it reads graded items (of one run or of two) and never opens the store. Items are matched
by sample id; when an item was asked several times its score is the share of correct replies.
An item whose calls failed (or went unscored) on either side is left out of the comparison and
counted. Ids present in both runs whose question or target differ are left out too and named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from proctor.report.markdown import escape_cell, markdown_table
from proctor.report.text import one_line, pct
from proctor.stats.bootstrap import DEFAULT_RESAMPLES
from proctor.stats.metrics import NOT_SCORED
from proctor.stats.paired import DEFAULT_ALPHA, DEFAULT_POWER, PairedComparison, compare_paired
from proctor.stats.scores import item_scores
from proctor.stats.taxonomy import ERROR_CLASSES, TAXONOMY_RULES, taxonomy_counts
from proctor.types import GradedItem, RunInfo, Sample

SHOWN_FLIPS = 20


@dataclass(frozen=True)
class Side:
    """One side of a comparison: which run and which model."""

    label: str
    """How the side is named in the verdict: the model, or "model (run)" when both sides are
    the same model."""
    model: str
    info: RunInfo


@dataclass(frozen=True)
class FlippedItem:
    """An item the two sides scored differently."""

    sample: Sample
    score_a: float
    score_b: float
    answer_a: str
    answer_b: str


@dataclass(frozen=True)
class RunComparison:
    a: Side
    b: Side
    paired: PairedComparison
    common_ids: int
    """Sample ids both sides were asked."""
    only_a: int
    """Ids only side A was asked (left out)."""
    only_b: int
    mismatched: tuple[str, ...]
    """Ids both have whose question or target differ (left out)."""
    unscored_a: int
    """Common items with no scored reply on side A: failed calls or unscored (left out)."""
    unscored_b: int
    regressions: tuple[FlippedItem, ...]
    """A scored higher than B: with "A = baseline, B = candidate", what B broke."""
    improvements: tuple[FlippedItem, ...]
    taxonomy_a: Mapping[str, int]
    taxonomy_b: Mapping[str, int]

    @property
    def same_dataset(self) -> bool:
        return self.a.info.dataset_hash == self.b.info.dataset_hash

    @property
    def b_significantly_worse(self) -> bool:
        """B lost to A and the test says it is not noise: the CI signal."""
        return self.paired.significant and self.paired.difference > 0


def side_labels(model_a: str, model_b: str, run_a: str, run_b: str) -> tuple[str, str]:
    """Model names, or "model (run)" when the two sides are the same model."""
    if model_a != model_b:
        return model_a, model_b
    return f"{model_a} ({run_a})", f"{model_b} ({run_b})"


def compare_runs(
    items_a: Sequence[GradedItem],
    items_b: Sequence[GradedItem],
    a: Side,
    b: Side,
    *,
    confidence: float = 0.95,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    detect: float | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> RunComparison:
    """Compare side A's model in `items_a` with side B's model in `items_b` (the same list when
    both models are of one run)."""
    mine_a = [item for item in items_a if item.record.model == a.model]
    mine_b = [item for item in items_b if item.record.model == b.model]
    samples_a = _samples(mine_a)
    samples_b = _samples(mine_b)
    common = [sid for sid in samples_a if sid in samples_b]
    mismatched = tuple(
        sid
        for sid in common
        if (samples_a[sid].input, samples_a[sid].target)
        != (samples_b[sid].input, samples_b[sid].target)
    )
    usable = [sid for sid in common if sid not in set(mismatched)]
    scores_a, scores_b = item_scores(mine_a), item_scores(mine_b)
    paired_ids = [sid for sid in usable if sid in scores_a and sid in scores_b]
    paired = compare_paired(
        [scores_a[sid] for sid in paired_ids],
        [scores_b[sid] for sid in paired_ids],
        names=(a.label, b.label),
        confidence=confidence,
        alpha=alpha,
        power=power,
        detect=detect,
        resamples=resamples,
        seed=seed,
    )
    answers_a, answers_b = _answers(mine_a), _answers(mine_b)
    flips = [
        FlippedItem(samples_a[sid], scores_a[sid], scores_b[sid], answers_a[sid], answers_b[sid])
        for sid in paired_ids
        if scores_a[sid] != scores_b[sid]
    ]
    kept = set(paired_ids)
    return RunComparison(
        a=a,
        b=b,
        paired=paired,
        common_ids=len(common),
        only_a=len(samples_a) - len(common),
        only_b=len(samples_b) - len(common),
        mismatched=mismatched,
        unscored_a=sum(1 for sid in usable if sid not in scores_a),
        unscored_b=sum(1 for sid in usable if sid not in scores_b),
        regressions=tuple(f for f in flips if f.score_a > f.score_b),
        improvements=tuple(f for f in flips if f.score_b > f.score_a),
        taxonomy_a=taxonomy_counts([i for i in mine_a if i.sample.id in kept]).get(a.model, {}),
        taxonomy_b=taxonomy_counts([i for i in mine_b if i.sample.id in kept]).get(b.model, {}),
    )


def _samples(items: Sequence[GradedItem]) -> dict[str, Sample]:
    found: dict[str, Sample] = {}
    for item in items:
        found.setdefault(item.sample.id, item.sample)
    return found


def _answers(items: Sequence[GradedItem]) -> dict[str, str]:
    """Sample id → what the side answered: its scored replies' answers (or outcomes), joined."""
    said: dict[str, list[str]] = {}
    for item in items:
        if item.score.outcome in NOT_SCORED:
            continue
        score = item.score
        text = score.extracted if score.extracted is not None else f"({score.outcome})"
        said.setdefault(item.sample.id, []).append(text)
    return {sid: " / ".join(texts) for sid, texts in said.items()}


# ---- words -------------------------------------------------------------------------------------


def notes(c: RunComparison) -> list[str]:
    """What was left out and why, one sentence each."""
    lines: list[str] = []
    if not c.same_dataset:
        lines.append(
            f"The two runs used different test sets ({c.a.info.dataset_hash} and "
            f"{c.b.info.dataset_hash}); only the {c.common_ids} sample ids they share are compared."
        )
    if c.only_a or c.only_b:
        lines.append(
            f"Left out: {c.only_a} items only {c.a.label} was asked, "
            f"{c.only_b} only {c.b.label} was asked."
        )
    if c.mismatched:
        shown = ", ".join(c.mismatched[:5]) + (" …" if len(c.mismatched) > 5 else "")
        lines.append(
            f"Left out: {len(c.mismatched)} ids whose question or target differ between the "
            f"runs ({shown})."
        )
    if c.unscored_a or c.unscored_b:
        lines.append(
            f"Left out: items with no scored reply (failed call or unscored) — {c.unscored_a} "
            f"for {c.a.label}, {c.unscored_b} for {c.b.label}; a failed call is never a wrong "
            "answer."
        )
    return lines


def method_line(p: PairedComparison) -> str:
    return (
        f"Test: {p.test} (two-sided, α = {p.alpha:g}); interval: paired percentile bootstrap "
        f"over items, {p.confidence * 100:g} %."
    )


def _flip_cell(value: float) -> str:
    return "right" if value == 1.0 else "wrong" if value == 0.0 else pct(value)


# ---- terminal ----------------------------------------------------------------------------------


def render_comparison(c: RunComparison, console: Console, show: int = SHOWN_FLIPS) -> None:
    """Print the comparison: sides, accuracies on the shared items, the verdict, flipped items."""
    p = c.paired
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for name, side in (("A", c.a), ("B", c.b)):
        grid.add_row(
            Text(name),
            Text(f"{side.model} · run {side.info.run_id} · test set {side.info.dataset_hash}"),
        )
    console.print(grid)
    for line in notes(c):
        console.print(Text(line, style="yellow"))

    if p.n == 0:
        console.print(Text(p.verdict(), style="bold yellow"))
        return
    table = _table("On the items both answered")
    for column in ("model", "accuracy", "higher than the other", "items"):
        table.add_column(column, justify="left" if column == "model" else "right")
    table.add_row(Text(c.a.label), Text(pct(p.mean_a)), Text(str(p.a_only)), Text(str(p.n)))
    table.add_row(Text(c.b.label), Text(pct(p.mean_b)), Text(str(p.b_only)), Text(str(p.n)))
    console.print(table)

    style = "bold red" if c.b_significantly_worse else "bold green" if p.significant else "bold"
    console.print(Text(p.verdict(), style=style))
    console.print(Text(method_line(p), style="dim"))

    for title, flips in (
        (f"Regressions: {c.a.label} higher than {c.b.label}", c.regressions),
        (f"Improvements: {c.b.label} higher than {c.a.label}", c.improvements),
    ):
        if not flips:
            continue
        flip_table = _table(f"{title} ({len(flips)} items)")
        for column in ("sample", "question", "target", "A", "B"):
            flip_table.add_column(column, overflow="fold")
        for f in flips[:show]:
            flip_table.add_row(
                Text(f.sample.id),
                Text(one_line(f.sample.input, 60)),
                Text(f.sample.target),
                Text(f"{_flip_cell(f.score_a)}: {one_line(f.answer_a, 30)}"),
                Text(f"{_flip_cell(f.score_b)}: {one_line(f.answer_b, 30)}"),
            )
        console.print(flip_table)
        if len(flips) > show:
            console.print(Text(f"… and {len(flips) - show} more (--show N)", style="dim"))

    classes = [n for n in ERROR_CLASSES if n in c.taxonomy_a or n in c.taxonomy_b]
    if classes:
        tax = _table("Wrong numeric answers by kind")
        tax.add_column("kind")
        tax.add_column(Text(c.a.label), justify="right")
        tax.add_column(Text(c.b.label), justify="right")
        for name in classes:
            tax.add_row(
                Text(name),
                Text(str(c.taxonomy_a.get(name, 0))),
                Text(str(c.taxonomy_b.get(name, 0))),
            )
        console.print(tax)


def _table(title: str) -> Table:
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )


# ---- Markdown ----------------------------------------------------------------------------------


def comparison_markdown(c: RunComparison, show: int = SHOWN_FLIPS) -> str:
    """The comparison as a pull-request comment."""
    p = c.paired
    mark = "❌" if c.b_significantly_worse else "✅" if p.significant else "➖"
    if p.n == 0:
        mark = "⚠️"
    parts = [
        f"## proctor compare: {escape_cell(c.a.label)} vs {escape_cell(c.b.label)}",
        "\n".join(
            f"- **{name}**: {escape_cell(side.model)} · run `{side.info.run_id.replace('`', '')}`"
            f" · test set `{side.info.dataset_hash.replace('`', '')}`"
            for name, side in (("A", c.a), ("B", c.b))
        ),
        f"{mark} **{escape_cell(p.verdict(), limit=None)}**",
        escape_cell(method_line(p), limit=None),
    ]
    left_out = notes(c)
    if left_out:
        parts.append("\n".join(f"- {escape_cell(line, limit=None)}" for line in left_out))
    parts.append(
        markdown_table(
            ["model", "accuracy", "higher than the other", "items"],
            [
                [escape_cell(c.a.label), pct(p.mean_a), str(p.a_only), str(p.n)],
                [escape_cell(c.b.label), pct(p.mean_b), str(p.b_only), str(p.n)],
            ],
        )
    )
    directions = (
        ("Regressions (A higher than B)", c.regressions),
        ("Improvements (B higher than A)", c.improvements),
    )
    for title, flips in directions:
        if not flips:
            continue
        body = [
            [
                escape_cell(f.sample.id),
                escape_cell(f.sample.input),
                escape_cell(f.sample.target),
                f"{_flip_cell(f.score_a)}: {escape_cell(f.answer_a)}",
                f"{_flip_cell(f.score_b)}: {escape_cell(f.answer_b)}",
            ]
            for f in flips[:show]
        ]
        table = markdown_table(["sample", "question", "target", "A", "B"], body)
        more = f"\n\n… and {len(flips) - show} more." if len(flips) > show else ""
        parts.append(
            f"<details><summary>{title}: {len(flips)}</summary>\n\n{table}{more}\n\n</details>"
        )
    classes = [n for n in ERROR_CLASSES if n in c.taxonomy_a or n in c.taxonomy_b]
    if classes:
        body = [
            [
                name,
                str(c.taxonomy_a.get(name, 0)),
                str(c.taxonomy_b.get(name, 0)),
                escape_cell(TAXONOMY_RULES[name]),
            ]
            for name in classes
        ]
        parts.append(markdown_table(["kind of wrong answer", "A", "B", "rule"], body))
    return "\n\n".join(parts) + "\n"
