"""The pictures of `evaluate`: the ROC on TREC's logit axes and the score
histogram with its count axis and cutoffs, in the terminal, SVG and PNG,
read back and checked against positions computed by hand."""

import importlib.util
import json
import math
import re
from xml.dom import minidom

import numpy as np
import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.app.plots import (Mark, histogram, roc_points, terminal_histogram, terminal_roc,
                              write_plots)


def separated(missed: int, ham: int = 1000, spam: int = 1000):
    """Ham scored 0 .. ham-1; `missed` spam below every ham, the rest above
    every ham.  Its ROC: straight up to (1 - missed/spam) caught at no ham
    lost, across to all ham lost, then up."""
    labels = [0] * ham + [1] * spam
    scores = list(range(ham)) + [-1.0] * missed + [ham + 1.0] * (spam - missed)
    return labels, scores


def svg_polyline(path):
    document = minidom.parse(str(path))
    (line,) = document.getElementsByTagName("polyline")
    return [tuple(map(float, point.split(","))) for point in line.getAttribute("points").split()]


def texts(path) -> list[str]:
    return [node.firstChild.data for node in minidom.parse(str(path)).getElementsByTagName("text")]


def widest_level(points) -> float:
    """The y of the longest horizontal run of the curve."""
    runs = [(abs(x2 - x1), y1) for (x1, y1), (x2, y2) in zip(points, points[1:]) if y1 == y2]
    return max(runs)[1]


def test_roc_points_merge_ties_into_a_diagonal():
    # scores: spam 3, 1; ham 2, 0.  Thresholds from the top: 3 (spam), 2 (ham), 1 (spam), 0 (ham).
    lost, caught = roc_points([1, 0, 1, 0], [3, 2, 1, 0])
    assert list(lost) == [0, 0, 0.5, 0.5, 1] and list(caught) == [0, 0.5, 0.5, 1, 1]
    # A spam and a ham tied at 2: one step to (0.5, 0.5), whichever comes first.
    for labels in ([1, 0, 1, 0], [0, 1, 0, 1]):
        lost, caught = roc_points(labels, [2, 2, 1, 1])
        assert list(lost) == [0, 0.5, 1] and list(caught) == [0, 0.5, 1]


def test_svg_roc_is_on_logit_axes_so_one_percent_of_spam_is_visible(tmp_path):
    # 1 % against 0.1 % of spam missed: on a linear axis 0.9 % of its height
    # (3 pixels); on TREC's logit axis one decade of eight.
    levels = {}
    for missed in (10, 1):
        stem = tmp_path / f"missed{missed}"
        paths = write_plots(str(stem), *separated(missed))
        assert paths == [f"{stem}-roc.svg", f"{stem}-scores.svg"]
        levels[missed] = widest_level(svg_polyline(paths[0]))
    labels = texts(tmp_path / "missed1-roc.svg")
    for tick in ("0.01%", "0.1%", "1%", "10%", "50%", "90%", "99%", "99.9%", "99.99%"):
        assert labels.count(tick) == 2  # on both axes
    assert "% of ham misclassified (logit scale)" in labels
    assert "% of spam misclassified (logit scale)" in labels
    # The plot box's height over 8 decades of odds; 1 % is at log10-odds
    # -1.996, 0.1 % at -3.000: a difference of 1.004 decades, the 1 % line lower.
    box = minidom.parse(str(tmp_path / "missed1-roc.svg")).getElementsByTagName("clipPath")[0]
    height = float(box.getElementsByTagName("rect")[0].getAttribute("height"))
    assert levels[10] - levels[1] == pytest.approx(height / 8 * 1.004, abs=0.2)


def test_svg_roc_marks_the_spam_cutoff_and_what_it_costs(tmp_path):
    labels, scores = separated(10)
    marks = [Mark("spam cutoff 0.99", 500.5, True), Mark("ham cutoff 0.01", -0.5, False)]
    roc, _ = write_plots(str(tmp_path / "p"), labels, scores, marks)
    notes = " ".join(texts(roc))
    # At 500.5: ham 501..999 (499 of 1000) called spam; the 10 low spam missed.
    assert "spam cutoff 0.99" in notes and "49.9 % of ham lost, 1 % of spam missed" in notes
    assert "ham cutoff" not in notes  # only a spam cutoff is a point of the ROC
    (circle,) = minidom.parse(roc).getElementsByTagName("circle")
    assert float(circle.getAttribute("cy")) == pytest.approx(widest_level(svg_polyline(roc)), abs=0.1)


def test_terminal_roc_has_no_column_at_the_left_edge_and_reads_by_hand():
    # 125 ham and 57 spam, as a small test part: the curve rises at 0 ham
    # lost (which the old picture drew as a full column at the left edge).
    rng = np.random.default_rng(3)
    labels = [0] * 125 + [1] * 57
    scores = list(rng.normal(-5, 1, 125)) + list(rng.normal(3, 2, 57))
    picture = terminal_roc(labels, scores).splitlines()
    rows = [line.split("┤", 1)[1] if "┤" in line else "" for line in picture[1:18]]
    assert sum(1 for row in rows if row[:1].strip()) <= 1
    assert "1 of 125 ham" in picture[-2] + picture[-1] and "1 of 57 spam" in picture[-2] + picture[-1]
    # By hand: 1 % of spam missed at every ham loss; the row labelled 1 % holds
    # the curve from 0.1 % of ham lost (column 8) to the right edge (column 64).
    labels, scores = separated(10)
    picture = terminal_roc(labels, scores).splitlines()
    (one_percent,) = [line for line in picture if line.startswith("     1% ┤")]
    assert one_percent[9:].startswith("·") or one_percent[9:].startswith(" ")
    assert set(one_percent[9 + 8:9 + 65]) == {"•"}
    assert picture[19].split() == ["0.01%", "0.1%", "1%", "10%", "50%", "90%", "99%", "99.9%", "99.99%"]


def test_terminal_histogram_has_a_count_axis_and_the_cutoffs():
    # 10 ham at -5, 20 spam at +5: 20 is the peak, the axis counts 5, 10, 15, 20
    # out from the middle, and 20 messages fill a side (29 characters).
    labels = [0] * 10 + [1] * 20
    scores = [-5.0] * 10 + [5.0] * 20
    marks = [Mark("spam cutoff 0.9", math.log(9), True), Mark("ham cutoff 0.1", -math.log(9), False)]
    picture = terminal_histogram(labels, scores, marks).splitlines()
    edges, ham, spam = histogram(labels, scores, 20, marks)
    bars = [line for line in picture if re.match(r"^ *[+-]\d+\.\d\d ", line)]
    assert len(bars) == 20
    assert bars[-1].endswith("│" + "█" * 29) and "░" * 14 + "│" in bars[0]
    axis_numbers = picture[-2].split()
    assert axis_numbers == ["20", "15", "10", "5", "0", "5", "10", "15", "20"]
    assert picture[-1].strip() == "messages"
    # Each cutoff's line sits between the bins at the edge nearest to it.
    for mark in marks:
        (at,) = [i for i, line in enumerate(picture) if mark.name in line]
        assert f"at log-odds {mark.log_odds:+.2f}" in picture[at]
        above, below = float(picture[at - 1].split()[0]), float(picture[at + 1].split()[0])
        width = edges[1] - edges[0]
        assert above < mark.log_odds and abs(below - mark.log_odds) <= width / 2 + 1e-9


def test_svg_histogram_has_a_count_axis_and_dashed_cutoffs(tmp_path):
    labels = [0] * 10 + [1] * 20
    scores = [-5.0] * 10 + [5.0] * 20
    marks = [Mark("spam cutoff 0.9", math.log(9), True), Mark("ham cutoff 0.1", -math.log(9), False)]
    _, scores_svg = write_plots(str(tmp_path / "p"), labels, scores, marks)
    words = texts(scores_svg)
    assert {"0", "5", "10", "15", "20"} <= set(words) and "messages" in words
    assert "spam cutoff 0.9" in words and "ham cutoff 0.1" in words
    document = minidom.parse(scores_svg)
    dashed = [line for line in document.getElementsByTagName("line") if line.getAttribute("stroke-dasharray")]
    box = [rect for rect in document.getElementsByTagName("rect") if rect.getAttribute("fill") == "none"][0]
    left, width = float(box.getAttribute("x")), float(box.getAttribute("width"))
    # The bins span -5 .. +5: a cutoff at log-odds c is (c + 5) / 10 of the way across.
    assert sorted(float(line.getAttribute("x1")) for line in dashed) == pytest.approx(
        sorted(left + (mark.log_odds + 5) / 10 * width for mark in marks), abs=0.1)


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_png_pictures_are_two_files(tmp_path):
    paths = write_plots(str(tmp_path / "p.png"), *separated(10), [Mark("spam cutoff 0.99", 500.5, True)])
    assert paths == [str(tmp_path / "p-roc.png"), str(tmp_path / "p-scores.png")]
    for path in paths:
        with open(path, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


def test_evaluate_plot_takes_a_stem_and_says_what_it_wrote(tmp_path):
    help_text = run_spamnb("evaluate", "--help").stdout.decode()
    assert "--plot STEM" in help_text and "STEM-roc.svg" in help_text and "STEM-scores.svg" in help_text
    result = run_spamnb("evaluate", SAMPLE / "mail", "--folds", "3", "--plot", tmp_path / "run")
    assert result.returncode == 0, result.stderr
    written = [str(tmp_path / "run-roc.svg"), str(tmp_path / "run-scores.svg")]
    assert result.stdout.decode().splitlines()[-1] == "pictures written: " + ", ".join(written)
    assert all(open(path).read().startswith("<svg") for path in written)
    # The folds' cutoffs are marked (their median) in the terminal histogram.
    assert "spam cutoff" in result.stdout.decode() and "(median of 3 folds)" in result.stdout.decode()
    # The older form, a file name: its stem, the same two files.
    result = run_spamnb("evaluate", SAMPLE / "mail", "--plot", tmp_path / "old.svg", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["plots"] == [str(tmp_path / "old-roc.svg"), str(tmp_path / "old-scores.svg")]
    refused = run_spamnb("evaluate", SAMPLE / "mail", "--plot", tmp_path / "x.gif")
    assert refused.returncode == 64 and b"--plot writes SVG" in refused.stderr
    if importlib.util.find_spec("matplotlib") is None:  # refused before the evaluation's minutes
        refused = run_spamnb("evaluate", SAMPLE / "mail", "--plot", tmp_path / "x.png")
        assert refused.returncode == 64 and b"matplotlib" in refused.stderr
        assert not list(tmp_path.glob("x*"))


def test_cutoff_marks_are_the_verdicts_cutoffs():
    from spamnb.app.evaluation import cutoff_marks
    from spamnb.app.plots import RocCurve
    from spamnb.model.scoring import logit

    # Online, spam is a log-odds above 0: a ham scored exactly 0 (before both
    # classes were seen) is not lost at the verdict's point.
    (verdict,) = cutoff_marks({}, online=True)
    ((_, lost, missed),) = RocCurve([0, 0, 1, 1], [0.0, -1.0, 0.0, 2.0], [verdict]).points
    assert (lost, missed) == (0.0, 0.5)
    split = cutoff_marks({"cutoffs": {"spam": 0.99, "ham": 0.01}})
    assert [(m.name, m.log_odds, m.spam_side) for m in split] == [
        ("spam cutoff 0.99", logit(0.99), True), ("ham cutoff 0.01", logit(0.01), False)]
    folds = cutoff_marks({"cutoffs_by_fold": [{"spam": s, "ham": 0.01} for s in (0.9, 0.99, 0.95)]})
    assert folds[0].name == "spam cutoff 0.95 (median of 3 folds)" and folds[0].log_odds == logit(0.95)
