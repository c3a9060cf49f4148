"""Pictures of an evaluation: the ROC curve, and the scores of each class
as a histogram with the cutoffs marked; drawn in the terminal, or written
as SVG (by hand, no dependencies) or PNG (with matplotlib).

The ROC is drawn as the TREC spam track's toolkit draws it: % of ham
misclassified across, % of spam misclassified up (0.01 % at the top, so
better is up and to the left), both on a logit scale (log10 of the odds)
from 0.01 % to 99.99 %.  On linear axes every filter worth using is a flat
line along the top edge; on these, 0.1 % against 1 % of ham lost is as far
apart as 1 % against 10 %, and the left end, where a mail filter lives, is
a third of the picture.
"""

from __future__ import annotations

import math
import textwrap
from xml.sax.saxutils import escape

import numpy as np

from ..record import Record

LIMIT = 4.0  # the axes run over log10-odds -4 to +4: 0.01 % to 99.99 %
_BEYOND = 1e-6  # log10_odds puts rates 0 and 1 past the axes' ends, which cut them off
RATE_TICKS = (0.0001, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999)
HAM_COLOUR, SPAM_COLOUR = "#4477aa", "#cc3311"


class Mark(Record):
    """A cutoff drawn on the pictures: its name, where it lies in log-odds,
    and whether it calls the messages at or above it spam (then it is also a
    point on the ROC curve)."""

    __slots__ = ("name", "log_odds", "spam_side")
    _frozen = True
    name: str
    log_odds: float
    spam_side: bool


def roc_points(labels, scores) -> tuple[np.ndarray, np.ndarray]:
    """(ham misclassification rate, spam caught rate) at every threshold:
    one point per distinct score, so that tied spam and ham make a diagonal,
    not a step whose direction depends on their order."""
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    ranked = labels[order]
    caught = np.concatenate([[0], np.cumsum(ranked)]) / max(ranked.sum(), 1)
    lost = np.concatenate([[0], np.cumsum(~ranked)]) / max((~ranked).sum(), 1)
    ordered = scores[order]
    # After k messages is a threshold unless message k ties with message k-1.
    keep = np.concatenate([[True], ordered[1:] != ordered[:-1], [True]])
    return lost[keep], caught[keep]


def log10_odds(rate):
    """log10(rate / (1 - rate)); rates 0 and 1 land past the axes' ends."""
    rate = np.clip(np.asarray(rate, dtype=np.float64), _BEYOND, 1 - _BEYOND)
    return np.log10(rate) - np.log10(1 - rate)


def _rate_label(rate: float) -> str:
    return f"{100 * rate:.2f}".rstrip("0").rstrip(".") + "%"


class RocCurve:
    """The ROC as drawn: its corners in log10-odds (x: ham lost; y: spam
    caught, which is minus the log10-odds of spam missed), the test's
    resolution (one message of each class), and the spam-side marks as
    points on the curve."""

    def __init__(self, labels, scores, marks=()) -> None:
        labels = np.asarray(labels).astype(bool)
        scores = np.asarray(scores, dtype=np.float64)
        lost, caught = roc_points(labels, scores)
        # Only the corners: inside a straight run of ham (or of spam) every
        # point is on the line, and a large test has a point per message.
        dx, dy = np.diff(lost), np.diff(caught)
        straight = ((dy[:-1] == 0) & (dy[1:] == 0)) | ((dx[:-1] == 0) & (dx[1:] == 0))
        corner = np.concatenate([[True], ~straight, [True]])
        self.n_ham, self.n_spam = int((~labels).sum()), int(labels.sum())
        self.x, self.y = self._log10_odds(lost[corner], self.n_ham), self._log10_odds(caught[corner], self.n_spam)
        self.points = []
        for mark in marks:
            if mark.spam_side:
                ham_lost = float(np.mean(scores[~labels] >= mark.log_odds)) if self.n_ham else 0.0
                spam_missed = float(np.mean(scores[labels] < mark.log_odds)) if self.n_spam else 0.0
                self.points.append((mark, ham_lost, spam_missed))

    @staticmethod
    def _log10_odds(rate, messages: int):
        """log10_odds of rates measured on `messages` messages, a rate of 0
        or 1 drawn half a message in (as TREC's lam % counts it): a filter
        that makes no error is a point in the corner, not a curve off the
        picture."""
        half = 0.5 / max(messages, 1)
        return log10_odds(np.clip(rate, half, 1 - half))

    def at(self, lost: float, missed: float) -> tuple[float, float]:
        """Where a point of ham lost and spam missed is drawn."""
        return float(self._log10_odds(lost, self.n_ham)), -float(self._log10_odds(missed, self.n_spam))

    @property
    def ham_resolution(self) -> float:
        """x of one test ham: left of it the test cannot measure."""
        return float(log10_odds(1 / max(self.n_ham, 1)))

    @property
    def spam_resolution(self) -> float:
        """y of one test spam missed: above it the test cannot measure."""
        return -float(log10_odds(1 / max(self.n_spam, 1)))

    def level(self, x: float) -> float:
        """The curve's height at x: the most spam caught at that ham loss or less."""
        at = int(np.searchsorted(self.x, x, side="right"))
        return float(self.y[at - 1]) if at else -math.inf

    def point_legend(self) -> list[str]:
        return [f"{mark.name}: {_percent(lost)} of ham lost, {_percent(missed)} of spam missed"
                for mark, lost, missed in self.points]

    def notes(self, shading: str, width: int) -> list[str]:
        """The legend under a picture: the cutoffs' points, then what the shading means, wrapped."""
        return [line for note in self.point_legend() + [self.resolution_note(shading)]
                for line in textwrap.wrap(note, width)]

    def resolution_note(self, shading: str) -> str:
        return (f"{shading}: rates under one test message, which this test cannot measure: left of "
                f"{_percent(1 / max(self.n_ham, 1))} (1 of {self.n_ham:,} ham), above "
                f"{_percent(1 / max(self.n_spam, 1))} (1 of {self.n_spam:,} spam)")


def _percent(rate: float) -> str:
    return f"{100 * rate:.3g} %"


def histogram(labels, scores, bins: int = 20, marks=()):
    """(bin edges, ham counts, spam counts) over the 0.5-99.5 % range of
    scores, widened to take in every finite mark; scores outside it are
    counted in the end bins."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels).astype(bool)
    low, high = (float(v) for v in np.percentile(scores, [0.5, 99.5]))
    for mark in marks:
        if math.isfinite(mark.log_odds):
            low, high = min(low, mark.log_odds), max(high, mark.log_odds)
    if high <= low:
        low, high = low - 1, high + 1
    edges = np.linspace(low, high, bins + 1)
    clipped = np.clip(scores, low, high)
    return edges, np.histogram(clipped[~labels], edges)[0], np.histogram(clipped[labels], edges)[0]


def count_step(peak: int, ticks: int = 5) -> int:
    """A round step (1, 2, 5 × 10^k) for a count axis up to `peak` with at most `ticks` steps."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if peak <= factor * step * ticks:
                return factor * step
        step *= 10


def _mark_text(mark: Mark) -> str:
    return f"{mark.name} at log-odds {mark.log_odds:+.2f}" if math.isfinite(mark.log_odds) else \
        f"{mark.name}: never reached"


# The terminal pictures ------------------------------------------------------


def terminal_roc(labels, scores, marks=(), width: int = 65, height: int = 17) -> str:
    """The ROC in characters: • the curve, · where the test cannot measure,
    ◆ a cutoff's point; the axes labelled as TREC's plots are."""
    curve = RocCurve(labels, scores, marks)
    per_column, per_row = (width - 1) / (2 * LIMIT), (height - 1) / (2 * LIMIT)
    grid = [[" "] * width for _ in range(height)]

    def row(y: float) -> float:
        return (LIMIT - y) * per_row

    for column in range(width):
        # The curve climbs only at a corner, so within a column it covers the
        # heights from its level at the column's left edge to that at its right.
        left = -LIMIT + (column - 0.5) / per_column
        right = -LIMIT + (column + 0.5) / per_column
        if curve.level(right) == -math.inf:
            continue  # the curve starts further right
        top, bottom = row(curve.level(right)), row(max(curve.level(left), float(curve.y[0])))
        if top > height - 0.5 or bottom < -0.5:
            continue  # wholly below or above the picture
        for r in range(max(round(top), 0), min(round(bottom), height - 1) + 1):
            unmeasured = right <= curve.ham_resolution or LIMIT - r / per_row > curve.spam_resolution
            grid[r][column] = "·" if unmeasured else "•"
    for _, lost, missed in curve.points:
        x, y = curve.at(lost, missed)
        if abs(x) <= LIMIT and abs(y) <= LIMIT:
            grid[round(row(y))][round((x + LIMIT) * per_column)] = "◆"
    labels_at = {round(row(-float(log10_odds(rate)))): _rate_label(rate) for rate in RATE_TICKS}
    lines = ["ROC: spam missed (up) against ham lost (across), both on a logit scale as TREC draws them"]
    lines += [f"{labels_at.get(r, ''):>7} ┤" + "".join(cells).rstrip() for r, cells in enumerate(grid)]
    axis = ["─"] * width
    ticks = [" "] * (width + 16)
    for rate in RATE_TICKS:
        column = round((float(log10_odds(rate)) + LIMIT) * per_column)
        axis[column] = "┬"
        text = _rate_label(rate)
        start = max(column + 8 - len(text) // 2, 0)
        ticks[start:start + len(text)] = text
    lines.append("        └" + "".join(axis))
    lines.append(" " + "".join(ticks).rstrip())
    lines.append(f"{'ham lost':>{8 + width // 2 + 4}}")
    lines += [f"  ◆ {text}" for text in curve.point_legend()]
    lines += [f"  {line}" for line in textwrap.wrap(curve.resolution_note("·"), width + 6, subsequent_indent="    ")]
    return "\n".join(lines)


def terminal_histogram(labels, scores, marks=(), bins: int = 20, width: int = 60) -> str:
    """Ham (░, leftwards) and spam (█, rightwards) per log-odds bin, a count
    axis under each side, and a line across at each cutoff."""
    edges, ham, spam = histogram(labels, scores, bins, marks)
    half = (width - 2) // 2
    peak = int(max(ham.max(), spam.max(), 1))
    step = count_step(peak)
    ceiling = step * math.ceil(peak / step)
    per_count = half / ceiling
    lines = ["scores: messages per bin of log-odds, ham ░ (left) and spam █ (right)",
             f"{'log-odds':>9} {'ham':>{half}}│spam"]
    pending = sorted((m for m in marks if math.isfinite(m.log_odds)), key=lambda m: m.log_odds)
    for index, (left, h, s) in enumerate(zip(edges[:-1], ham, spam)):
        # A cutoff's line goes at the bin edge nearest to it.
        while pending and pending[0].log_odds < (left + edges[index + 1]) / 2:
            lines.append(f"{'':>9} ╶{'─' * (half - 1)}┼── {_mark_text(pending.pop(0))}")
        bar_h = "░" * round(h * per_count)
        bar_s = "█" * round(s * per_count)
        lines.append(f"{left:+9.2f} {bar_h:>{half}}│{bar_s}")
    for mark in pending:
        lines.append(f"{'':>9} ╶{'─' * (half - 1)}┼── {_mark_text(mark)}")
    # The count axis: ticks every `step` messages, out from the middle both ways.
    axis_left, axis_right = ["─"] * half, ["─"] * half
    numbers_left, numbers_right = [" "] * (half + 6), [" "] * (half + 6)
    for count in range(step, ceiling + 1, step):
        at = round(count * per_count)
        axis_left[half - at], axis_right[at - 1] = "┴", "┴"
        text = f"{count:,}"
        start = half - at - len(text) // 2 + 3
        numbers_left[start:start + len(text)] = text
        start = at - 1 - len(text) // 2
        numbers_right[start:start + len(text)] = text
    lines.append(f"{'':>9} {''.join(axis_left)}┴{''.join(axis_right)}")
    lines.append(f"{'':>7}{''.join(numbers_left)[:half + 3]}0{''.join(numbers_right).rstrip()}")
    lines.append(f"{'':>9} {'messages':>{half + 4}}")
    for mark in marks:
        if not math.isfinite(mark.log_odds):
            lines.append(f"  {_mark_text(mark)}")
    return "\n".join(lines)


# SVG --------------------------------------------------------------------------


# A white edge around a label, so that it reads over the bars and lines under it.
_HALO = ' stroke="white" stroke-width="3" paint-order="stroke"'


def _svg_text(x: float, y: float, text: str, size: int = 11, anchor: str = "middle", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f'{escape(text)}</text>')


def _svg_document(width: int, height: int, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def roc_svg(labels, scores, marks=(), size: int = 460) -> str:
    curve = RocCurve(labels, scores, marks)
    left, top, side = 70, 40, size - 110

    def at(x: float, y: float) -> tuple[float, float]:
        return left + (x + LIMIT) / (2 * LIMIT) * side, top + (LIMIT - y) / (2 * LIMIT) * side

    body = [_svg_text(left + side / 2, 22, "ROC (logit scales, as TREC draws it): better is up and left", 13),
            f'<clipPath id="box"><rect x="{left}" y="{top}" width="{side}" height="{side}"/></clipPath>']
    # Grey where the test has too few messages to measure a rate.
    edge_x, _ = at(curve.ham_resolution, 0)
    _, edge_y = at(0, curve.spam_resolution)
    body.append(f'<rect x="{left}" y="{top}" width="{max(edge_x - left, 0):.1f}" height="{side}" '
                f'fill="#eeeeee" clip-path="url(#box)"/>')
    body.append(f'<rect x="{left}" y="{top}" width="{side}" height="{max(edge_y - top, 0):.1f}" '
                f'fill="#eeeeee" clip-path="url(#box)"/>')
    for rate in RATE_TICKS:
        x, _ = at(float(log10_odds(rate)), 0)
        _, y = at(0, -float(log10_odds(rate)))
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + side}" stroke="#dddddd"/>'
                    f'<line x1="{left}" y1="{y:.1f}" x2="{left + side}" y2="{y:.1f}" stroke="#dddddd"/>')
        body.append(_svg_text(x, top + side + 8, _rate_label(rate), 10, "end",
                              f' transform="rotate(-45 {x:.1f} {top + side + 8})"'))
        body.append(_svg_text(left - 5, y + 3, _rate_label(rate), 10, "end"))
    body.append(f'<rect x="{left}" y="{top}" width="{side}" height="{side}" fill="none" stroke="#999999"/>')
    points = " ".join(f"{px:.1f},{py:.1f}" for px, py in (at(x, y) for x, y in zip(curve.x, curve.y)))
    body.append(f'<polyline points="{points}" fill="none" stroke="{SPAM_COLOUR}" stroke-width="2" '
                f'clip-path="url(#box)"/>')
    for i, (mark, lost, missed) in enumerate(curve.points):
        px, py = at(*curve.at(lost, missed))
        if left <= px <= left + side and top <= py <= top + side:
            body.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="black"/>')
            body.append(_svg_text(px + 7, py - 6 + 12 * i, mark.name, 10, "start", _HALO))
    body.append(_svg_text(left + side / 2, size - 14, "% of ham misclassified (logit scale)", 12))
    body.append(_svg_text(16, top + side / 2, "% of spam misclassified (logit scale)", 12, "middle",
                          f' transform="rotate(-90 16 {top + side / 2})"'))
    notes = curve.notes("grey", 80)
    body += [_svg_text(12, size + 4 + 14 * i, note, 10, "start") for i, note in enumerate(notes)]
    return _svg_document(size, size + 10 + 14 * len(notes), body)


def histogram_svg(labels, scores, marks=(), width: int = 560, height: int = 360) -> str:
    edges, ham, spam = histogram(labels, scores, 20, marks)
    left, top, plot_width, plot_height = 60, 40, width - 90, height - 100
    peak = int(max(ham.max(), spam.max(), 1))
    step = count_step(peak)
    ceiling = max(step * math.ceil(peak / step), 1)
    low, high = float(edges[0]), float(edges[-1])

    def x_of(value: float) -> float:
        return left + (value - low) / (high - low) * plot_width

    def y_of(count: float) -> float:
        return top + plot_height - count / ceiling * plot_height

    body = [_svg_text(left + plot_width / 2, 22, "Scores of the test messages: ham (blue), spam (red)", 13)]
    for count in range(0, ceiling + 1, step):
        body.append(f'<line x1="{left}" y1="{y_of(count):.1f}" x2="{left + plot_width}" y2="{y_of(count):.1f}" '
                    f'stroke="#dddddd"/>')
        body.append(_svg_text(left - 6, y_of(count) + 3, f"{count:,}", 10, "end"))
    bar = plot_width / len(ham)
    for i, (h, s) in enumerate(zip(ham, spam)):
        x = left + i * bar
        for count, colour, offset in ((h, HAM_COLOUR, 0.0), (s, SPAM_COLOUR, bar / 2)):
            body.append(f'<rect x="{x + offset:.1f}" y="{y_of(count):.1f}" width="{bar / 2:.1f}" '
                        f'height="{y_of(0) - y_of(count):.1f}" fill="{colour}"/>')
    body.append(f'<rect x="{left}" y="{top}" width="{plot_width}" height="{plot_height}" fill="none" '
                f'stroke="#999999"/>')
    first, last = math.ceil(low), math.floor(high)
    tick_step = max(1, math.ceil((last - first + 1) / 10))
    for value in range(first, last + 1):
        if value % tick_step:
            continue
        body.append(f'<line x1="{x_of(value):.1f}" y1="{top + plot_height}" x2="{x_of(value):.1f}" '
                    f'y2="{top + plot_height + 4}" stroke="#999999"/>')
        body.append(_svg_text(x_of(value), top + plot_height + 16, f"{value:+d}" if value else "0", 10))
    for i, mark in enumerate(m for m in marks if math.isfinite(m.log_odds)):
        x = x_of(mark.log_odds)
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_height}" stroke="black" '
                    f'stroke-dasharray="5,3"/>')
        # Each label on the side of its line with more room, one under the other.
        right_half = x > left + plot_width / 2
        body.append(_svg_text(x - 4 if right_half else x + 4, top + 12 + 12 * i, mark.name, 10,
                              "end" if right_half else "start", _HALO))
    body.append(_svg_text(left + plot_width / 2, top + plot_height + 34,
                          "log-odds of spam (P(spam) = 1 / (1 + e^-log-odds)); the end bins hold everything past them",
                          11))
    body.append(_svg_text(16, top + plot_height / 2, "messages", 12, "middle",
                          f' transform="rotate(-90 16 {top + plot_height / 2})"'))
    notes = [_mark_text(mark) for mark in marks]
    body += [_svg_text(left, top + plot_height + 54 + 14 * i, note, 10, "start") for i, note in enumerate(notes)]
    return _svg_document(width, top + plot_height + 60 + 14 * len(notes), body)


# Files ----------------------------------------------------------------------


def plot_files(stem: str) -> tuple[str, list[str]]:
    """(format, the files) that `--plot STEM` writes: STEM-roc and
    STEM-scores, .svg; a STEM ending in .png or .svg names the format
    (and `--plot out.svg`, the older form, still works)."""
    fmt = "svg"
    for ending in (".svg", ".png"):
        if stem.lower().endswith(ending):
            fmt, stem = ending[1:], stem[:-len(ending)]
    return fmt, [f"{stem}-roc.{fmt}", f"{stem}-scores.{fmt}"]


def check_plot_format(fmt: str) -> None:
    """Raises ValueError when the format cannot be written here (PNG without matplotlib)."""
    if fmt == "png":
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            raise ValueError("PNG plots need matplotlib (pip install 'spamnb[plot]'); SVG needs nothing")


def write_plots(stem: str, labels, scores, marks=()) -> list[str]:
    """Writes the ROC and the histogram (see plot_files); returns their paths."""
    fmt, paths = plot_files(stem)
    check_plot_format(fmt)
    if fmt == "png":
        _write_png(paths, labels, scores, marks)
    else:
        for path, document in zip(paths, (roc_svg(labels, scores, marks), histogram_svg(labels, scores, marks))):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(document)
    return paths


_LABEL_BOX = {"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1}


def _write_png(paths: list[str], labels, scores, marks) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = RocCurve(labels, scores, marks)
    figure, axes = plt.subplots(figsize=(6, 6.4))
    axes.plot(curve.x, curve.y, color=SPAM_COLOUR, linewidth=2)
    axes.axvspan(-LIMIT, curve.ham_resolution, color="#eeeeee", zorder=0)
    axes.axhspan(curve.spam_resolution, LIMIT, color="#eeeeee", zorder=0)
    ticks = [float(log10_odds(rate)) for rate in RATE_TICKS]
    axes.set_xticks(ticks, [_rate_label(rate) for rate in RATE_TICKS], rotation=45)
    axes.set_yticks([-t for t in ticks], [_rate_label(rate) for rate in RATE_TICKS])
    axes.set_xlim(-LIMIT, LIMIT)
    axes.set_ylim(-LIMIT, LIMIT)
    axes.grid(color="#dddddd")
    for i, (mark, lost, missed) in enumerate(curve.points):
        x, y = curve.at(lost, missed)
        axes.plot([x], [y], "o", color="black")
        axes.annotate(mark.name, (x, y), textcoords="offset points", xytext=(6, 6 - 11 * i), fontsize=8,
                      bbox=_LABEL_BOX)
    axes.set_xlabel("% of ham misclassified (logit scale)")
    axes.set_ylabel("% of spam misclassified (logit scale)")
    axes.set_title("ROC (logit scales, as TREC draws it): better is up and left", fontsize=10)
    notes = curve.notes("grey", 90)
    figure.text(0.02, 0.01, "\n".join(notes), fontsize=7)
    figure.tight_layout(rect=(0, 0.02 + 0.022 * len(notes), 1, 1))
    figure.savefig(paths[0], dpi=100)
    plt.close(figure)

    edges, ham, spam = histogram(labels, scores, 20, marks)
    figure, axes = plt.subplots(figsize=(7, 4.4))
    centres, width = (edges[:-1] + edges[1:]) / 2, edges[1] - edges[0]
    axes.bar(centres - width / 4, ham, width / 2, color=HAM_COLOUR, label="ham")
    axes.bar(centres + width / 4, spam, width / 2, color=SPAM_COLOUR, label="spam")
    axes.set_xlim(edges[0], edges[-1])
    middle = (edges[0] + edges[-1]) / 2
    for i, mark in enumerate(m for m in marks if math.isfinite(m.log_odds)):
        axes.axvline(mark.log_odds, color="black", linestyle="--", linewidth=1)
        right_half = mark.log_odds > middle
        axes.annotate(mark.name, (mark.log_odds, 1), xycoords=("data", "axes fraction"),
                      xytext=(-4 if right_half else 4, -12 - 11 * i), textcoords="offset points", fontsize=8,
                      ha="right" if right_half else "left", bbox=_LABEL_BOX)
    axes.set_xlabel("log-odds of spam; the end bins hold everything past them")
    axes.set_ylabel("messages")
    axes.set_title("Scores of the test messages: ham (blue), spam (red)", fontsize=10)
    figure.tight_layout()
    figure.savefig(paths[1], dpi=100)
    plt.close(figure)
