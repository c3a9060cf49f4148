"""Showing what long work is doing: labelled phases on standard error.

`train`, `evaluate`, `merge` and `prune` run in phases (reading, counting,
weighing, fitting calibration and cutoffs, writing); each is named as it
starts, with a bar and a count where the amount of work is known and a
spinner where it is not, and the elapsed time redrawn ten times a second,
so nothing sits still while work goes on.  On a pipe, or with -q, nothing
is drawn: `phases()` then returns the silent base class.  The library
takes any object with `phase` and `advance`, so it never needs rich.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # mypy reads this name as true; rich is imported only when a bar is shown
if TYPE_CHECKING:
    from rich.progress import TaskID


class Phases:
    """The phases of a piece of work, shown nowhere (a pipe, -q, the library)."""

    drawn = False

    def __enter__(self) -> "Phases":
        return self

    def __exit__(self, *exception) -> None:
        pass

    def phase(self, label: str, total: int | None = None, then: str | None = None) -> None:
        """A new phase: `label`, with `total` steps if known; `then`: the label
        once every step is done while the phase goes on (workers finishing)."""

    def advance(self, *ignored) -> None:
        """One step of the current phase done (takes and ignores a message's origin)."""


class TerminalPhases(Phases):
    """Phases drawn on a terminal (stderr) by rich, cleared when the work ends."""

    drawn = True

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                             TextColumn("{task.fields[steps]}"), TimeElapsedColumn(),
                             console=Console(stderr=True), transient=True, refresh_per_second=10)
        self._task: TaskID | None = None
        self._total: int | None = None
        self._done = 0
        self._then: str | None = None

    def __enter__(self) -> "TerminalPhases":
        self._bar.start()
        return self

    def __exit__(self, *exception) -> None:
        self._bar.stop()

    def phase(self, label: str, total: int | None = None, then: str | None = None) -> None:
        if self._task is not None:
            self._bar.remove_task(self._task)
        self._total, self._done, self._then = total, 0, then
        self._task = self._bar.add_task(label, total=total, steps=f"0/{total:,}" if total else "")

    def advance(self, *ignored) -> None:
        if self._task is None:
            return
        self._done += 1
        if self._then and self._total and self._done >= self._total:
            # Every step done while the phase goes on: a new phase with a
            # spinner, so the display does not stand still at 100 %.
            self.phase(self._then)
            return
        update: dict[str, object] = {"advance": 1}
        if self._total:
            update["steps"] = f"{self._done:,}/{self._total:,}"
        self._bar.update(self._task, **update)  # type: ignore[arg-type]  # rich's keywords, by name


def phases(quiet: bool = False) -> Phases:
    """Drawn phases on a terminal; silent ones on a pipe or with -q."""
    if quiet or not sys.stderr.isatty():
        return Phases()
    return TerminalPhases()
