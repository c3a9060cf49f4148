"""The model a daemon serves, kept in step with its file (ModelHolder).

Before each message the model file is stat'ed, by the main process and by
each worker; a new inode, mtime or size loads it again.  A file that only
grew, its base unchanged (a learn appended to its journal), is caught up by
reading the new journal records alone.  A model that fails to load is
logged once and the old one keeps serving.
"""

from __future__ import annotations

import os

from ..errors import OptionError
from .server import _reason, log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..model.scorer import Scorer


class ModelHolder:
    """The model and the identity of the file it came from; reloads when the file changes.

    A model file that does not exist yet is served as an empty model (every
    message unsure) until a learn creates it, as `spamnb learn` creates a
    missing model: `serve` then `learn --server` learns from nothing.
    """

    MAX_CATCH_UP = 64 << 20  # journal bytes read in one catch-up; past this, a whole load reads them

    def __init__(self, path: str) -> None:
        from ..model.model import Model

        # Model.load, not the lighter Scorer.open: it checks every byte, so a
        # damaged file is turned away at reload, while the old model still
        # serves, rather than failing messages one by one.
        self._load = Model.load
        self.path = path
        self.signature = self._signature()
        self._rejected = None
        self._journal: tuple | None = None  # (ModelFile read whole, where its whole records end)
        self.model: Scorer
        if self.signature[0] == "missing":
            from ..model.options import TrainOptions

            self.model = Model.empty(TrainOptions())
            return
        if self.signature[0] == "unusable":
            raise OptionError(f"the model {path} {self.signature[1]}")
        self.model = self._load(path)  # at start-up a bad model is the caller's error
        self._serve_copy()

    def _signature(self):
        import stat

        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return ("missing", "does not exist")
        except OSError as error:
            return ("unusable", f"cannot be read ({_reason(error)})")
        if not stat.S_ISREG(info.st_mode):
            # A FIFO would block the open, a device would be read for ever.
            return ("unusable", "is not a regular file")
        return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)

    def refresh(self, force: bool = False, quiet: bool = False) -> bool:
        """Catch up with the file if it changed since the last attempt (or if
        `force`): True if it was loaded whole, False if it did not change or
        only its journal grew (caught up in place).  `quiet`: log nothing
        (a worker; the main process logs the same change once)."""
        signature = self._signature()
        if not force and (signature == self.signature or signature == self._rejected):
            return False
        self._rejected = signature  # one log line per change, not one per request
        if signature[0] in ("unusable", "missing"):
            if not quiet:
                log(f"the model {self.path} {signature[1]}; still serving the one loaded")
            return False
        try:
            if not force and self._catch_up(signature):
                self.signature = signature
                return False
        except Exception as error:  # noqa: BLE001 -- a journal that does not add up: a whole load judges it
            if not quiet:
                log(f"reading the new journal records of {self.path} failed ({error}); loading it whole")
        try:
            model = self._load(self.path)
        except Exception as error:  # noqa: BLE001 -- whatever it is, the loaded model keeps serving
            if not quiet:
                log(f"reload of {self.path} failed ({error}); still serving the one loaded before")
            return False
        self.model, self.signature, self._journal = model, signature, None
        self._serve_copy()
        if not quiet:
            log(f"reloaded {self.path}")
        return True

    def _serve_copy(self) -> None:
        """Once Model.load has judged the file: score as `classify` scores it
        (Scorer.open: the base's weights, moved by the journal), from a copy
        read whole into memory (a long-lived reader must not see, or die of,
        a file rewritten in place), so that journal appends are caught up by
        reading only the new records (_catch_up).  A model whose learns
        rewrite it whole keeps the Model loaded."""
        from ..files import open_regular
        from ..model.journal import read_records
        from ..model.modelread import parse_model
        from ..model.opening import open_scorer
        from ..model.scorer import Scorer, journal_scoring

        if not journal_scoring(self.model.options):
            return
        try:
            with open_regular(self.path) as handle:
                info = os.fstat(handle.fileno())
                if (info.st_dev, info.st_ino) != self.signature[:2]:
                    return  # replaced since: the next refresh loads the new one
                data = handle.read(info.st_size + self.MAX_CATCH_UP)
            model_file = parse_model(self.path, data)
            model_file.verify()
            scorer = open_scorer(self.path, model_file)
            if type(scorer) is not Scorer:
                return  # a journal only a whole load folds in
            body_end = len(data) - model_file.journal_bytes
            _, used = read_records(memoryview(data)[body_end:])
        except Exception as error:  # noqa: BLE001 -- the Model loaded still serves
            log(f"cannot keep a copy of {self.path} to catch up with learns ({error}); "
                "every learn loads it whole")
            return
        self.model, self._journal = scorer, (model_file, body_end + used)

    def _catch_up(self, signature) -> bool:
        """Score with the journal records appended since the last look, if the
        file is the same one (inode, header) and only grew; False otherwise."""
        from ..files import open_regular
        from ..model.journal import read_records
        from ..model.modelread import PREFIX
        from ..model.scorer import LiveTable

        previous = self.signature
        if self._journal is None or previous[:2] != signature[:2] or signature[3] < previous[3] \
                or signature[3] - previous[3] > self.MAX_CATCH_UP:
            return False
        model_file, end = self._journal
        with open_regular(self.path) as handle:
            info = os.fstat(handle.fileno())
            if (info.st_dev, info.st_ino) != signature[:2]:
                return False
            if os.pread(handle.fileno(), PREFIX.size, 0) != model_file.prefix:
                return False  # another model written over this one in place: its checksums differ
            tail = os.pread(handle.fileno(), max(0, info.st_size - end), end)
        records, used = read_records(tail)
        if records:
            state, _torn = model_file.journal()
            state.extend(records)
            scorer = self.model
            if isinstance(scorer._table, LiveTable):
                scorer._table.refresh()
            else:  # the journal's first record: weights from counts from now on, as Scorer.open does
                scorer._table = LiveTable(scorer.table, model_file, state, scorer.options, model_file.meta)
            scorer.bias = scorer._table.bias
            self._journal = (model_file, end + used)
        return True

