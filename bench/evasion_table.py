"""The evasion pairs of tests/evasion_cases.py, scored: control and attacked
log-odds of each case, with a model trained on sample_data/mail by the
spamnb found first on the path (so the same cases can be scored by another
checkout: PYTHONPATH=../other python bench/evasion_table.py).

    python bench/evasion_table.py [--model MODEL] [--case NAME]...

Prints a Markdown table: case, control, attacked, difference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

from evasion_cases import CASES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", help="a model file (default: train one on sample_data/mail)")
    parser.add_argument("--case", action="append", help="only these cases")
    args = parser.parse_args()
    import spamnb

    if args.model:
        from spamnb.model.opening import open_scorer

        model = open_scorer(args.model)
    else:
        from spamnb.learning.training import train

        model, _ = train([str(HERE / "sample_data" / "mail" / "spam")], [str(HERE / "sample_data" / "mail" / "ham")])
    print(f"spamnb from {Path(spamnb.__file__).parent}", file=sys.stderr)
    print("| case | control | attacked | difference |")
    print("|---|---:|---:|---:|")
    for name, build in CASES.items():
        if args.case and name not in args.case:
            continue
        control, attacked = build()
        a = model.score_message(control).log_odds
        b = model.score_message(attacked).log_odds
        print(f"| {name} | {a:+.2f} | {b:+.2f} | {b - a:+.2f} |", flush=True)


if __name__ == "__main__":
    main()
