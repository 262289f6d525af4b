"""Charts as inline SVG, drawn in Python: no chart library, no network, no script.

Every chart is one `<svg class="chart …">` element. Bars carry the class `bar`, error bars the
class `err` (a 95 % interval drawn as a whisker with caps), heat map cells the class `cell`.
Text that came from outside (model names, categories) is escaped; styling is done with
presentation attributes only, never `style=""`, so the page's Content-Security-Policy can forbid
inline styles.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from proctor.stats.metrics import Cell

PALETTE: tuple[str, ...] = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
"""Tableau 10: distinct for up to ten series; it repeats after that."""

OUTCOME_COLOURS: Mapping[str, str] = {
    "correct": "#59a14f",
    "wrong": "#e15759",
    "no_answer": "#edc948",
    "truncated": "#f28e2b",
    "violation": "#b07aa1",
    "refused": "#9c755f",
    "call_failed": "#bab0ac",
    "unscored": "#d9d9d9",
}

FONT = 12
CHAR_W = 7.0
"""Rough width of one character at FONT px, to size label gutters."""
LABEL_MAX = 36


@dataclass(frozen=True)
class Estimate:
    """A proportion with its interval; `value` None means nothing was scored."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    correct: int = 0

    @classmethod
    def of(cls, cell: Cell | None) -> Estimate:
        if cell is None:
            return cls(None)
        return cls(cell.accuracy, cell.ci_low, cell.ci_high, cell.n, cell.correct)


@dataclass(frozen=True)
class ScatterPoint:
    label: str
    x: float
    y: Estimate


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def short(label: str, limit: int = LABEL_MAX) -> str:
    label = label or "(none)"
    return label if len(label) <= limit else label[: limit - 1] + "…"


def pct_text(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f} %"


def describe(name: str, est: Estimate) -> str:
    """The tooltip of one estimate: "gpt-x · integer: 81.0 % [74.2–86.4] (81/100)"."""
    if est.value is None:
        return f"{name}: nothing scored"
    ci = ""
    if est.low is not None and est.high is not None:
        ci = f" [{est.low * 100:.1f}–{est.high * 100:.1f}]"
    return f"{name}: {pct_text(est.value)}{ci} ({est.correct}/{est.n})"


def _e(text: str) -> str:
    return str(escape(text))


def _n(x: float) -> str:
    return f"{x:.1f}"


def _svg(kind: str, width: float, height: float, label: str, body: list[str]) -> Markup:
    head = (
        f'<svg class="chart chart-{kind}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'width="{_n(width)}" height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}" '
        f'font-size="{FONT}" font-family="system-ui, sans-serif" aria-label="{_e(label)}">'
    )
    return Markup(head + "".join(body) + "</svg>")


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    cls: str = "",
    extra: str = "",
    title: str | None = None,
) -> str:
    klass = f' class="{cls}"' if cls else ""
    tip = "" if title is None else f"<title>{_e(title)}</title>"
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}"{klass}{extra}>{_e(text)}{tip}</text>'
    )


def _whisker(*segments: tuple[float, float, float, float]) -> str:
    """An error bar: its line and two caps, each (x1, y1, x2, y2) in pixel coordinates."""
    lines = "".join(
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"/>'
        for x1, y1, x2, y2 in segments
    )
    return f'<g class="err" stroke="#222" stroke-width="1.2">{lines}</g>'


def _err_v(x: float, y_low: float, y_high: float, cap: float = 3.0) -> str:
    """A vertical whisker from y_low to y_high (pixel coordinates) with caps."""
    return _whisker(
        (x, y_low, x, y_high), (x - cap, y_low, x + cap, y_low), (x - cap, y_high, x + cap, y_high)
    )


def _err_h(y: float, x_low: float, x_high: float, cap: float = 4.0) -> str:
    """A horizontal whisker from x_low to x_high (pixel coordinates) with caps."""
    return _whisker(
        (x_low, y, x_high, y), (x_low, y - cap, x_low, y + cap), (x_high, y - cap, x_high, y + cap)
    )


def _gutter(labels: Sequence[str]) -> float:
    return 12 + CHAR_W * max((len(short(label)) for label in labels), default=4)


def _percent_axis_h(x0: float, width: float, y_top: float, y_bottom: float) -> list[str]:
    """Vertical grid lines at 0, 25, 50, 75, 100 % with labels under the plot."""
    out: list[str] = []
    for tick in (0, 25, 50, 75, 100):
        x = x0 + width * tick / 100
        out.append(
            f'<line x1="{_n(x)}" y1="{_n(y_top)}" x2="{_n(x)}" y2="{_n(y_bottom)}" stroke="#ddd"/>'
        )
        out.append(_text(x, y_bottom + 14, f"{tick} %", anchor="middle", cls="tick"))
    return out


def _percent_axis_v(x_left: float, x_right: float, y0: float, height: float) -> list[str]:
    """Horizontal grid lines at 0, 25, 50, 75, 100 % with labels left of the plot."""
    out: list[str] = []
    for tick in (0, 25, 50, 75, 100):
        y = y0 + height - height * tick / 100
        out.append(
            f'<line x1="{_n(x_left)}" y1="{_n(y)}" x2="{_n(x_right)}" y2="{_n(y)}" stroke="#ddd"/>'
        )
        out.append(_text(x_left - 6, y + 4, f"{tick} %", anchor="end", cls="tick"))
    return out


def ranking_chart(rows: Sequence[tuple[str, Estimate]], *, label: str) -> Markup:
    """One horizontal bar per model (in the given order) with its interval as an error bar."""
    gutter = _gutter([name for name, _ in rows])
    plot_w, row_h, top = 420.0, 22.0, 8.0
    width = gutter + plot_w + 70
    height = top + row_h * max(len(rows), 1) + 24
    body = _percent_axis_h(gutter, plot_w, top, top + row_h * len(rows))
    for i, (name, est) in enumerate(rows):
        y = top + i * row_h
        body.append(_text(gutter - 8, y + 15, short(name), anchor="end", cls="label", title=name))
        tip = f"<title>{_e(describe(name, est))}</title>"
        if est.value is None:
            body.append(_text(gutter + 4, y + 15, "nothing scored", cls="none"))
            continue
        w = plot_w * est.value
        body.append(
            f'<rect class="bar" x="{_n(gutter)}" y="{_n(y + 4)}" width="{_n(w)}" '
            f'height="{_n(row_h - 8)}" fill="{colour(0)}">{tip}</rect>'
        )
        if est.low is not None and est.high is not None:
            body.append(
                _err_h(y + row_h / 2, gutter + plot_w * est.low, gutter + plot_w * est.high)
            )
        body.append(_text(gutter + plot_w + 8, y + 15, pct_text(est.value), cls="value"))
    return _svg("ranking", width, height, label, body)


def grouped_bars(
    groups: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], Estimate],
    *,
    label: str,
    series_colours: Sequence[str] | None = None,
) -> Markup:
    """Vertical bars: one group per entry of `groups`, one bar per entry of `series` inside it,
    each with its interval as an error bar. `values[(group, series)]`; a missing one is a gap."""
    bar_w = 14.0 if len(series) <= 6 else 10.0
    gap = 18.0
    group_w = bar_w * max(len(series), 1) + gap
    label_w = CHAR_W * max((len(short(g, 24)) for g in groups), default=4)
    # Group labels are turned 35° and end under their group: the first one reaches left.
    left = max(48.0, label_w * 0.82 - gap / 2 - bar_w * len(series) / 2 + 6)
    top, plot_h = 12.0 + 18.0 * _legend_rows(series), 200.0
    label_h = 14 + label_w * 0.6
    width = max(left + group_w * max(len(groups), 1) + 16, left + _legend_width(series), 360.0)
    height = top + plot_h + label_h + 8
    colours = series_colours or [colour(i) for i in range(len(series))]
    body = _legend(series, colours, left, 8.0)
    body += _percent_axis_v(left, width - 8, top, plot_h)
    base = top + plot_h
    for gi, group in enumerate(groups):
        gx = left + gap / 2 + gi * group_w
        for si, name in enumerate(series):
            est = values.get((group, name))
            if est is None or est.value is None:
                continue
            x = gx + si * bar_w
            h = plot_h * est.value
            tip = f"<title>{_e(describe(f'{group} · {name}', est))}</title>"
            body.append(
                f'<rect class="bar" x="{_n(x)}" y="{_n(base - h)}" width="{_n(bar_w - 2)}" '
                f'height="{_n(h)}" fill="{colours[si % len(colours)]}">{tip}</rect>'
            )
            if est.low is not None and est.high is not None:
                cx = x + (bar_w - 2) / 2
                body.append(_err_v(cx, base - plot_h * est.low, base - plot_h * est.high, cap=2.5))
        cx = gx + (bar_w * len(series)) / 2
        body.append(
            f'<text x="{_n(cx)}" y="{_n(base + 14)}" text-anchor="end" class="label" '
            f'transform="rotate(-35 {_n(cx)} {_n(base + 14)})">{_e(short(group, 24))}'
            f"<title>{_e(group)}</title></text>"
        )
    body.append(
        f'<line x1="{_n(left)}" y1="{_n(base)}" x2="{_n(width - 8)}" y2="{_n(base)}" '
        'stroke="#888"/>'
    )
    return _svg("grouped", width, height, label, body)


LEGEND_PER_ROW = 6
LEGEND_CELL_W = 150.0


def _legend_rows(names: Sequence[str]) -> int:
    return max(1, math.ceil(len(names) / LEGEND_PER_ROW))


def _legend_width(names: Sequence[str]) -> float:
    return LEGEND_CELL_W * min(max(len(names), 1), LEGEND_PER_ROW) + 8


def _legend(names: Sequence[str], colours: Sequence[str], x0: float, y0: float) -> list[str]:
    out: list[str] = []
    per_row, cell_w = LEGEND_PER_ROW, LEGEND_CELL_W
    for i, name in enumerate(names):
        x = x0 + (i % per_row) * cell_w
        y = y0 + (i // per_row) * 18
        out.append(
            f'<rect class="swatch" x="{_n(x)}" y="{_n(y)}" width="10" height="10" '
            f'fill="{colours[i % len(colours)]}"/>'
        )
        out.append(_text(x + 14, y + 9, short(name, 18), cls="legend", title=name))
    return out


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


_RED, _YELLOW, _GREEN = (215, 48, 39), (254, 224, 139), (26, 152, 80)
_BLUE, _WHITE = (69, 117, 180), (247, 247, 247)


def accuracy_colour(value: float) -> tuple[int, int, int]:
    """Red (0 %) → yellow (50 %) → green (100 %)."""
    v = min(max(value, 0.0), 1.0)
    return _mix(_RED, _YELLOW, v * 2) if v < 0.5 else _mix(_YELLOW, _GREEN, (v - 0.5) * 2)


def delta_colour(value: float) -> tuple[int, int, int]:
    """Red (−30 points or worse) → white (0) → blue (+30 points or better)."""
    v = min(max(value / 0.3, -1.0), 1.0)
    return _mix(_WHITE, _RED, -v) if v < 0 else _mix(_WHITE, _BLUE, v)


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _ink(rgb: tuple[int, int, int]) -> str:
    luminance = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    return "#111" if luminance > 140 else "#fff"


def heat_map(
    rows: Sequence[str],
    columns: Sequence[str],
    values: Mapping[tuple[str, str], Estimate],
    *,
    label: str,
    delta: bool = False,
    filter_attrs: bool = False,
) -> Markup:
    """A grid of cells coloured by accuracy (or by a difference in accuracy when `delta`).

    With `filter_attrs`, each cell carries `data-filter-model` / `data-filter-category` so the
    page's sample browser can jump to the cell's samples.
    """
    gutter = _gutter(rows)
    cell_w, cell_h = 72.0, 24.0
    head_h = 14 + min(CHAR_W * max((len(short(c, 20)) for c in columns), default=4), 140) * 0.7
    width = gutter + cell_w * max(len(columns), 1) + 8
    height = head_h + cell_h * max(len(rows), 1) + 8
    body: list[str] = []
    for ci, column in enumerate(columns):
        cx = gutter + ci * cell_w + cell_w / 2
        body.append(
            f'<text x="{_n(cx)}" y="{_n(head_h - 6)}" text-anchor="start" class="label" '
            f'transform="rotate(-30 {_n(cx)} {_n(head_h - 6)})">{_e(short(column, 20))}'
            f"<title>{_e(column)}</title></text>"
        )
    for ri, row in enumerate(rows):
        y = head_h + ri * cell_h
        body.append(_text(gutter - 8, y + 16, short(row), anchor="end", cls="label"))
        for ci, column in enumerate(columns):
            est = values.get((row, column))
            x = gutter + ci * cell_w
            attrs = ""
            if filter_attrs:
                attrs = f' data-filter-model="{_e(row)}" data-filter-category="{_e(column)}"'
            if est is None or est.value is None:
                body.append(
                    f'<g class="cell empty"{attrs}><rect x="{_n(x + 1)}" y="{_n(y + 1)}" '
                    f'width="{_n(cell_w - 2)}" height="{_n(cell_h - 2)}" fill="#f0f0f0"/>'
                    f"{_text(x + cell_w / 2, y + 16, '—', anchor='middle')}"
                    f"<title>{_e(row)} · {_e(column)}: nothing scored</title></g>"
                )
                continue
            rgb = delta_colour(est.value) if delta else accuracy_colour(est.value)
            text = f"{est.value * 100:+.1f}" if delta else f"{est.value * 100:.0f} %"
            tip = (
                f"{row} · {column}: {text} points" if delta else describe(f"{row} · {column}", est)
            )
            body.append(
                f'<g class="cell"{attrs}><rect x="{_n(x + 1)}" y="{_n(y + 1)}" '
                f'width="{_n(cell_w - 2)}" height="{_n(cell_h - 2)}" fill="{_hex(rgb)}"/>'
                + _text(x + cell_w / 2, y + 16, text, anchor="middle", extra=f' fill="{_ink(rgb)}"')
                + f"<title>{_e(tip)}</title></g>"
            )
    return _svg("heatmap", width, height, label, body)
