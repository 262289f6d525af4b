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

from proctor.stats.calibration import CalibrationSummary
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


def _err_v(x: float, y_low: float, y_high: float, cap: float = 3.0) -> str:
    """A vertical whisker from y_low to y_high (pixel coordinates) with caps."""
    return (
        f'<g class="err" stroke="#222" stroke-width="1.2">'
        f'<line x1="{_n(x)}" y1="{_n(y_low)}" x2="{_n(x)}" y2="{_n(y_high)}"/>'
        f'<line x1="{_n(x - cap)}" y1="{_n(y_low)}" x2="{_n(x + cap)}" y2="{_n(y_low)}"/>'
        f'<line x1="{_n(x - cap)}" y1="{_n(y_high)}" x2="{_n(x + cap)}" y2="{_n(y_high)}"/>'
        "</g>"
    )


def _err_h(y: float, x_low: float, x_high: float, cap: float = 4.0) -> str:
    return (
        f'<g class="err" stroke="#222" stroke-width="1.2">'
        f'<line x1="{_n(x_low)}" y1="{_n(y)}" x2="{_n(x_high)}" y2="{_n(y)}"/>'
        f'<line x1="{_n(x_low)}" y1="{_n(y - cap)}" x2="{_n(x_low)}" y2="{_n(y + cap)}"/>'
        f'<line x1="{_n(x_high)}" y1="{_n(y - cap)}" x2="{_n(x_high)}" y2="{_n(y + cap)}"/>'
        "</g>"
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


def stacked_bars(
    rows: Sequence[str],
    parts: Sequence[str],
    counts: Mapping[str, Mapping[str, int]],
    *,
    label: str,
    part_colours: Mapping[str, str] | None = None,
) -> Markup:
    """One horizontal 100 % bar per row, split into `parts` by count; counts in the tooltips."""
    gutter = _gutter(rows)
    plot_w, row_h = 420.0, 22.0
    top = 8.0 + 18.0 * _legend_rows(parts)
    width = max(gutter + plot_w + 70, 8 + _legend_width(parts))
    height = top + row_h * max(len(rows), 1) + 8
    colours = [(part_colours or {}).get(part, colour(i)) for i, part in enumerate(parts)]
    body = _legend(parts, colours, 8.0, 6.0)
    for ri, row in enumerate(rows):
        y = top + ri * row_h
        body.append(_text(gutter - 8, y + 15, short(row), anchor="end", cls="label"))
        by_part = counts.get(row, {})
        total = sum(by_part.get(part, 0) for part in parts)
        if total == 0:
            body.append(_text(gutter + 4, y + 15, "none", cls="none"))
            continue
        x = gutter
        for pi, part in enumerate(parts):
            count = by_part.get(part, 0)
            if not count:
                continue
            w = plot_w * count / total
            tip = f"{row} · {part}: {count} of {total} ({count / total * 100:.1f} %)"
            body.append(
                f'<rect class="bar" x="{_n(x)}" y="{_n(y + 4)}" width="{_n(w)}" '
                f'height="{_n(row_h - 8)}" fill="{colours[pi]}"><title>{_e(tip)}</title></rect>'
            )
            x += w
        body.append(_text(gutter + plot_w + 8, y + 15, f"n={total}", cls="value"))
    return _svg("stacked", width, height, label, body)


def scatter(points: Sequence[ScatterPoint], *, x_label: str, label: str) -> Markup:
    """Accuracy (with interval) against a positive quantity on a log axis, e.g. size in B."""
    left, top, plot_w, plot_h = 56.0, 12.0, 520.0, 260.0
    width, height = left + plot_w + 140, top + plot_h + 44
    xs = [p.x for p in points if p.x > 0]
    lo = math.floor(math.log10(min(xs))) if xs else 0
    hi = math.ceil(math.log10(max(xs))) if xs else 1
    if hi <= lo:
        hi = lo + 1

    def px(x: float) -> float:
        return left + plot_w * (math.log10(x) - lo) / (hi - lo)

    def py(y: float) -> float:
        return top + plot_h - plot_h * y

    body = _percent_axis_v(left, left + plot_w, top, plot_h)
    for decade in range(lo, hi + 1):
        x = px(10.0**decade)
        body.append(
            f'<line x1="{_n(x)}" y1="{_n(top)}" x2="{_n(x)}" y2="{_n(top + plot_h)}" '
            'stroke="#eee"/>'
        )
        body.append(_text(x, top + plot_h + 14, f"{10.0**decade:g}", anchor="middle", cls="tick"))
    body.append(_text(left + plot_w / 2, top + plot_h + 34, x_label, anchor="middle", cls="axis"))
    for i, p in enumerate(points):
        if p.x <= 0 or p.y.value is None:
            continue
        x, y = px(p.x), py(p.y.value)
        if p.y.low is not None and p.y.high is not None:
            body.append(_err_v(x, py(p.y.low), py(p.y.high)))
        tip = describe(f"{p.label} ({p.x:g})", p.y)
        body.append(
            f'<circle class="bar point" cx="{_n(x)}" cy="{_n(y)}" r="5" fill="{colour(i)}">'
            f"<title>{_e(tip)}</title></circle>"
        )
        body.append(_text(x + 8, y - 6, short(p.label, 24), cls="label"))
    return _svg("scatter", width, height, label, body)


def dumbbell(
    rows: Sequence[tuple[str, Estimate, Estimate]],
    names: tuple[str, str],
    *,
    label: str,
) -> Markup:
    """Two estimates per row (e.g. bare and with a calculator) joined by a line, each with its
    interval; the line's length is the gap."""
    gutter = _gutter([row for row, _, _ in rows])
    plot_w, row_h, top = 420.0, 26.0, 26.0
    width = max(gutter + plot_w + 120, gutter + _legend_width(names))
    height = top + row_h * max(len(rows), 1) + 24
    colours = (colour(0), colour(1))
    body = _legend(list(names), list(colours), gutter, 6.0)
    body += _percent_axis_h(gutter, plot_w, top, top + row_h * len(rows))
    for ri, (row, a, b) in enumerate(rows):
        y = top + ri * row_h + row_h / 2
        body.append(_text(gutter - 8, y + 4, short(row), anchor="end", cls="label"))
        if a.value is not None and b.value is not None:
            body.append(
                f'<line class="gap" x1="{_n(gutter + plot_w * a.value)}" y1="{_n(y)}" '
                f'x2="{_n(gutter + plot_w * b.value)}" y2="{_n(y)}" stroke="#999" '
                'stroke-width="3"/>'
            )
        for est, name, fill, dy in (
            (a, names[0], colours[0], -4.0),
            (b, names[1], colours[1], 4.0),
        ):
            if est.value is None:
                continue
            if est.low is not None and est.high is not None:
                body.append(
                    _err_h(y + dy, gutter + plot_w * est.low, gutter + plot_w * est.high, cap=3)
                )
            body.append(
                f'<circle class="bar point" cx="{_n(gutter + plot_w * est.value)}" '
                f'cy="{_n(y + dy)}" r="5" fill="{fill}">'
                f"<title>{_e(describe(f'{row} · {name}', est))}</title></circle>"
            )
        if a.value is not None and b.value is not None:
            gap = (b.value - a.value) * 100
            body.append(_text(gutter + plot_w + 8, y + 4, f"{gap:+.1f} points", cls="value"))
    return _svg("dumbbell", width, height, label, body)


def reliability_chart(model: str, summary: CalibrationSummary, *, label: str) -> Markup:
    """A reliability diagram: one point per non-empty confidence bin at (mean confidence,
    accuracy), its radius growing with the bin's count (written beside it), against the diagonal
    y = x; both axes 0–1. ECE and Brier score are written right of the plot."""
    left, top, plot = 56.0, 12.0, 260.0
    width, height = left + plot + 200, top + plot + 44

    def px(x: float) -> float:
        return left + plot * x

    def py(y: float) -> float:
        return top + plot - plot * y

    body = _percent_axis_v(left, left + plot, top, plot)
    for tick in (0, 25, 50, 75, 100):
        x = px(tick / 100)
        body.append(
            f'<line x1="{_n(x)}" y1="{_n(top)}" x2="{_n(x)}" y2="{_n(top + plot)}" stroke="#eee"/>'
        )
        body.append(_text(x, top + plot + 14, f"{tick} %", anchor="middle", cls="tick"))
    body.append(
        _text(left + plot / 2, top + plot + 34, "mean confidence", anchor="middle", cls="axis")
    )
    body.append(
        f'<text x="14" y="{_n(top + plot / 2)}" text-anchor="middle" class="axis" '
        f'transform="rotate(-90 14 {_n(top + plot / 2)})">accuracy</text>'
    )
    body.append(
        f'<line class="diagonal" x1="{_n(px(0))}" y1="{_n(py(0))}" x2="{_n(px(1))}" '
        f'y2="{_n(py(1))}" stroke="#888" stroke-dasharray="4 3"><title>perfect calibration'
        "</title></line>"
    )
    biggest = max((b.count for b in summary.bins), default=0) or 1
    for b in summary.bins:
        if b.count == 0 or b.mean_confidence is None or b.accuracy is None:
            continue
        x, y = px(b.mean_confidence), py(b.accuracy)
        r = 3.0 + 6.0 * math.sqrt(b.count / biggest)
        tip = (
            f"{model} · confidence {b.lower:.1f}–{b.upper:.1f}: mean confidence "
            f"{b.mean_confidence:.2f}, accuracy {b.accuracy:.2f} (n={b.count})"
        )
        body.append(
            f'<circle class="bin point" cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" '
            f'fill="{colour(0)}" data-count="{b.count}"><title>{_e(tip)}</title></circle>'
        )
        body.append(_text(x + r + 3, y - 3, f"n={b.count}", cls="value"))
    sx = left + plot + 16
    body.append(_text(sx, top + 14, short(model, 26), cls="label", title=model))
    body.append(_text(sx, top + 34, f"ECE {summary.ece:.3f}", cls="ece"))
    body.append(_text(sx, top + 52, f"Brier {summary.brier:.3f}", cls="brier"))
    body.append(_text(sx, top + 70, f"n = {summary.n} valid replies", cls="value"))
    body.append(
        _text(
            sx,
            top + 88,
            f"confidence {summary.mean_confidence:.2f} · accuracy {summary.accuracy:.2f}",
            cls="value",
        )
    )
    body.append(_text(sx, top + plot, "below the diagonal: over-confident", cls="tick"))
    return _svg("reliability", width, height, label, body)
