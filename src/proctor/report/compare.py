"""Two models compared (`proctor.stats.comparison`), for a terminal and for a pull-request
comment: what was left out, the verdict, the flipped items. Pure renderers: every number is the
comparison's own."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from proctor.report.markdown import escape_cell, markdown_table
from proctor.report.terminal_fit import new_table
from proctor.report.text import one_line, pct
from proctor.stats.comparison import RunComparison
from proctor.stats.paired import PairedComparison
from proctor.stats.taxonomy import ERROR_CLASSES, TAXONOMY_RULES

SHOWN_FLIPS = 20
_MARGIN_STYLE = {
    "SUPERIOR": "bold green",
    "NON-INFERIOR": "bold green",
    "EQUIVALENT": "bold green",
    "INFERIOR": "bold red",
    "INCONCLUSIVE": "bold yellow",
}
_MARGIN_MARK = {"INFERIOR": "❌", "INCONCLUSIVE": "⚠️"}


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
    table = new_table("On the items both answered")
    for column in ("model", "accuracy", "higher than the other", "items"):
        table.add_column(column, justify="left" if column == "model" else "right")
    table.add_row(Text(c.a.label), Text(pct(p.mean_a)), Text(str(p.a_only)), Text(str(p.n)))
    table.add_row(Text(c.b.label), Text(pct(p.mean_b)), Text(str(p.b_only)), Text(str(p.n)))
    console.print(table)

    style = "bold red" if c.b_significantly_worse else "bold green" if p.significant else "bold"
    console.print(Text(p.verdict(), style=style))
    console.print(Text(method_line(p), style="dim"))
    if c.margin is not None:
        console.print(Text(c.margin.sentence(), style=_MARGIN_STYLE[c.margin.verdict]))
        console.print(Text(c.margin.method_line(), style="dim"))

    for title, flips in (
        (f"Regressions: {c.a.label} higher than {c.b.label}", c.regressions),
        (f"Improvements: {c.b.label} higher than {c.a.label}", c.improvements),
    ):
        if not flips:
            continue
        flip_table = new_table(f"{title} ({len(flips)} items)")
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
        tax = new_table("Wrong numeric answers by kind")
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
    if c.margin is not None:
        parts.append(
            f"{_MARGIN_MARK.get(c.margin.verdict, '✅')} "
            f"**{escape_cell(c.margin.sentence(), limit=None)}**\n\n"
            f"{escape_cell(c.margin.method_line(), limit=None)}"
        )
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
