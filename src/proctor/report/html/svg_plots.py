"""More charts of report.html, drawn with the primitives of `svg`: outcomes and error classes as
stacked bars, a scatter of accuracy against size, a dumbbell of two settings per model, and a
reliability diagram of stated confidences."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from markupsafe import Markup

from proctor.report.html.svg import (
    Estimate,
    ScatterPoint,
    _e,
    _err_h,
    _err_v,
    _gutter,
    _legend,
    _legend_rows,
    _legend_width,
    _n,
    _percent_axis_h,
    _percent_axis_v,
    _svg,
    _text,
    colour,
    describe,
    short,
)
from proctor.stats.calibration import CalibrationSummary


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
