"""The TREC online protocol through the command line, timed: what a mail server's per-message `classify` and `learn` cost.

TREC immediate feedback from an empty model, as bench/compare.py's online
rows run it: each message of the stream in order is scored, then learned
with its label.  Three ways to run it through the CLI:

  served   `spamnb serve` on a model file that does not exist yet; per
           message `spamnb classify --server S --format jsonl -` and
           `spamnb learn --server S --spam|--ham -` (bench/tool_spamnb.py's
           online_served): two thin client processes a message, the model
           kept loaded.
  ahead    served, with each client process started one step early (while
           the step before runs), waiting on its standard input: a message
           still reaches its classify only after the previous learn has
           replied, and its learn only after its classify has printed.  What
           overlaps is Python's start-up, on the other core, as a mail
           system starts a delivery's process while others run.
  local    per message `spamnb classify --model M FILE` and `spamnb learn
           --model M FILE` (tool_spamnb.online, compare.py's online rows):
           two processes a message that each open the model.
  bogofilter  the peer through its own command line, as compare.py's online
           rows run it (tool_bogofilter.online): per message `bogofilter -T`
           and `-TT` (the verdict, and the score to six more digits), then
           `bogofilter -s|-n`; skipped, saying so, when not installed.

Reports wall time, ms a message (classify, learn), the time the whole
stream would take at that rate, and 1-ROCA % (unscored messages at the
neutral log-odds 0).  Run under `nice -n 10` on a shared machine; the target
is the whole of trec06p (20,000 messages) in under 15 minutes.

    nice -n 10 .venv/bin/python bench/online_cli.py [--limit N] [--mode ahead|served|local|bogofilter ...] [--corpus NAME]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora  # noqa: E402
import tool_bogofilter  # noqa: E402
import tool_spamnb  # noqa: E402
from compare import lay_out_online  # noqa: E402

from spamnb.app.metrics import one_minus_roca_percent  # noqa: E402

TARGET_MINUTES = 15.0


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="trec06p", choices=["trec06p", "spamassassin"])
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="the first N messages (default: all)")
    parser.add_argument("--mode", action="append", choices=["served", "ahead", "local", "bogofilter"],
                        help="how to run it (repeatable; default: ahead)")
    arguments = parser.parse_args(argv)
    # Bytecode compiled first, as pip compiles an installed package: an editable
    # checkout run with PYTHONDONTWRITEBYTECODE=1 (this machine's default)
    # would compile every changed module in every client process.
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "spamnb"), quiet=1)
    whole = corpora.stream(arguments.corpus)
    stream = whole[:arguments.limit] if arguments.limit else whole
    print(f"{arguments.corpus}: {len(stream):,} of {len(whole):,} messages; spamnb {tool_spamnb.version()}; "
          f"load average at the start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for mode in arguments.mode or ["ahead"]:
        with tempfile.TemporaryDirectory(prefix=f"spamnb-online-{mode}-") as directory:
            job = lay_out_online(Path(directory), stream, "all", f"{arguments.corpus} online {mode}")
            began, cpu_began = time.perf_counter(), tool_spamnb._children_cpu()
            if mode == "bogofilter":
                if shutil.which("bogofilter") is None:
                    print("bogofilter: not installed (apt-get install bogofilter); skipped")
                    continue
                outcome = tool_bogofilter.online(job)
                outcome.seconds.setdefault("classify", outcome.seconds["total"])
                outcome.seconds.setdefault("learn", 0.0)
            elif mode == "local":
                outcome = tool_spamnb.online(job, [])
            else:
                outcome = tool_spamnb.online_served(job, [], ahead=mode == "ahead")
            wall = time.perf_counter() - began
            cpu_all = (tool_spamnb._children_cpu() - cpu_began) / len(stream)
        labels = [item[0] for item in stream]
        scores = [outcome.neutral if score is None else score for score in outcome.scores]
        per_message = wall / len(stream)
        whole_minutes = per_message * len(whole) / 60
        print(f"{mode}: {wall:.1f} s wall for {len(stream):,} messages, {1000 * per_message:.1f} ms a message "
              f"(classify {1000 * outcome.seconds['classify'] / len(stream):.1f} ms, "
              f"learn {1000 * outcome.seconds['learn'] / len(stream):.1f} ms); "
              f"all {len(whole):,} at this rate: {whole_minutes:.1f} min "
              f"({'within' if whole_minutes < TARGET_MINUTES else 'over'} the {TARGET_MINUTES:g} min target); "
              f"1-ROCA {one_minus_roca_percent(labels, scores):.3f} %; CPU of every process "
              f"{1000 * cpu_all:.1f} ms a message")
        if "cpu clients" in outcome.seconds:
            clients, server = outcome.seconds["cpu clients"], outcome.seconds["cpu server"]
            cpu = (clients + server) / len(stream)
            print(f"  CPU a message: clients {1000 * clients / len(stream):.1f} ms (two processes), server "
                  f"{1000 * server / len(stream):.1f} ms, {1000 * cpu:.1f} ms in all; run one after the other "
                  f"that is {cpu * len(whole) / 60:.1f} min for all {len(whole):,}, and on two cores no less "
                  f"than {cpu * len(whole) / 120:.1f} min")
        for note in outcome.notes:
            print(f"  {note}")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
