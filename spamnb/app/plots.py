"""Pictures of an evaluation: the ROC curve and the score histogram per class,
drawn in the terminal or written as SVG (by hand) or PNG (with matplotlib).

The ROC's x axis is the ham misclassification rate on a log scale: a mail
filter lives in its left end, where 0.1 % and 0.01 % of ham are lost.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

import numpy as np

LOW_FPR = 1e-4


def roc_points(labels, scores) -> tuple[np.ndarray, np.ndarray]:
    """(ham misclassification rate, spam caught rate) at every threshold."""
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    ranked = labels[order]
    caught = np.concatenate([[0], np.cumsum(ranked)]) / max(ranked.sum(), 1)
    lost = np.concatenate([[0], np.cumsum(~ranked)]) / max((~ranked).sum(), 1)
    return lost, caught


def histogram(labels, scores, bins: int = 20):
    """(bin edges, ham counts, spam counts) over the 0.5-99.5 % range of scores."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels).astype(bool)
    low, high = np.percentile(scores, [0.5, 99.5])
    if high <= low:
        low, high = low - 1, high + 1
    edges = np.linspace(low, high, bins + 1)
    clipped = np.clip(scores, low, high)
    return edges, np.histogram(clipped[~labels], edges)[0], np.histogram(clipped[labels], edges)[0]


def terminal_roc(labels, scores, width: int = 60, height: int = 14) -> str:
    lost, caught = roc_points(labels, scores)
    grid = [[" "] * width for _ in range(height)]
    span = -math.log10(LOW_FPR)
    for fpr, tpr in zip(lost, caught):
        x = 0 if fpr <= LOW_FPR else int(round((math.log10(fpr) + span) / span * (width - 1)))
        y = int(round((1 - tpr) * (height - 1)))
        grid[y][min(x, width - 1)] = "•"
    rows = [f"{100 * (1 - r / (height - 1)):5.0f}% │" + "".join(line) for r, line in enumerate(grid)]
    rows.append("       └" + "─" * width)
    ticks = "        " + "".join(f"{label:<{width // 4}}" for label in ("0.01%", "0.1%", "1%", "10%"))
    rows.append(ticks[: width + 8] + "100%")
    return "spam caught (y) against ham lost (x, log scale)\n" + "\n".join(rows)


def terminal_histogram(labels, scores, bins: int = 20, width: int = 50) -> str:
    edges, ham, spam = histogram(labels, scores, bins)
    peak = max(ham.max(), spam.max(), 1)
    rows = ["log-odds        ham ░   spam █"]
    for left, h, s in zip(edges[:-1], ham, spam):
        bar_h = "░" * int(round(h / peak * width / 2))
        bar_s = "█" * int(round(s / peak * width / 2))
        rows.append(f"{left:+9.2f} │{bar_h:<{width // 2}}│{bar_s}")
    return "\n".join(rows)


def write_plot(path: str, labels, scores) -> None:
    """ROC and histogram side by side; the format follows the file's extension."""
    if path.lower().endswith(".png"):
        _write_png(path, labels, scores)
    elif path.lower().endswith(".svg"):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(svg(labels, scores))
    else:
        raise ValueError("--plot writes .svg (always) or .png (with matplotlib installed)")


def svg(labels, scores, size: int = 360) -> str:
    lost, caught = roc_points(labels, scores)
    span = -math.log10(LOW_FPR)
    pad = 40

    def xy(fpr, tpr):
        x = 0.0 if fpr <= LOW_FPR else (math.log10(fpr) + span) / span
        return pad + x * (size - 2 * pad), size - pad - tpr * (size - 2 * pad)

    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(f, t) for f, t in zip(lost, caught)))
    edges, ham, spam = histogram(labels, scores)
    peak = max(ham.max(), spam.max(), 1)
    bar_width = (size - 2 * pad) / len(ham)
    bars = []
    for i, (h, s) in enumerate(zip(ham, spam)):
        x = size + pad + i * bar_width
        for count, colour, offset in ((h, "#4477aa", 0), (s, "#cc3311", bar_width / 2)):
            height = count / peak * (size - 2 * pad)
            bars.append(f'<rect x="{x + offset:.1f}" y="{size - pad - height:.1f}" width="{bar_width / 2:.1f}" '
                        f'height="{height:.1f}" fill="{colour}"/>')
    # Labelled ticks on both axes: ham lost on a log scale (x), spam caught (y).
    ticks = "".join(
        f'<line x1="{xy(10 ** -e, 0)[0]:.1f}" y1="{size - pad}" x2="{xy(10 ** -e, 0)[0]:.1f}" y2="{size - pad + 4}" '
        f'stroke="#999"/><text x="{xy(10 ** -e, 0)[0]:.1f}" y="{size - pad + 15}" font-size="10" '
        f'text-anchor="middle">{escape(label)}</text>'
        for e, label in ((4, "0.01%"), (3, "0.1%"), (2, "1%"), (1, "10%"), (0, "100%")))
    ticks += "".join(
        f'<line x1="{pad - 4}" y1="{xy(1, share)[1]:.1f}" x2="{pad}" y2="{xy(1, share)[1]:.1f}" stroke="#999"/>'
        f'<text x="{pad - 6}" y="{xy(1, share)[1] + 3:.1f}" font-size="10" text-anchor="end">{share:.0%}</text>'
        for share in (0.0, 0.25, 0.5, 0.75, 1.0))
    ticks += (f'<text x="{size / 2}" y="{size - 8}" font-size="11" text-anchor="middle">ham lost (log scale)</text>'
              f'<text x="12" y="{size / 2}" font-size="11" text-anchor="middle" '
              f'transform="rotate(-90 12 {size / 2})">spam caught</text>')
    return f'''<svg xmlns="http://www.w3.org/2000/svg" width="{2 * size}" height="{size}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="{size / 2}" y="20" text-anchor="middle" font-size="13">ROC: spam caught against ham lost (log)</text>
<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" height="{size - 2 * pad}" fill="none" stroke="#999"/>
<polyline points="{points}" fill="none" stroke="#cc3311" stroke-width="2"/>
{ticks}
<text x="{size * 1.5}" y="20" text-anchor="middle" font-size="13">log-odds: ham (blue), spam (red)</text>
{''.join(bars)}
<text x="{size + pad}" y="{size - pad + 15}" font-size="10">{edges[0]:+.1f}</text>
<text x="{2 * size - pad}" y="{size - pad + 15}" font-size="10" text-anchor="end">{edges[-1]:+.1f}</text>
</svg>
'''


def _write_png(path: str, labels, scores) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("PNG plots need matplotlib (pip install 'spamnb[plot]'); .svg needs nothing") from None
    lost, caught = roc_points(labels, scores)
    edges, ham, spam = histogram(labels, scores)
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(np.maximum(lost, LOW_FPR), caught, color="#cc3311")
    left.set_xscale("log")
    left.set_xlabel("ham lost (log scale)")
    left.set_ylabel("spam caught")
    centres = (edges[:-1] + edges[1:]) / 2
    width = edges[1] - edges[0]
    right.bar(centres - width / 4, ham, width / 2, color="#4477aa", label="ham")
    right.bar(centres + width / 4, spam, width / 2, color="#cc3311", label="spam")
    right.set_xlabel("log-odds")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
