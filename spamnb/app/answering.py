"""What a daemon worker does with a request: score it under the deadline,
or learn it, and build the reply, in spamnb's own protocol or spamd's.

A worker is a process forked by the daemon (spamnb.app.workerpool); it reads
one request at a time from its socket pair and writes one reply, until end
of file, and dies with the main process.
"""

from __future__ import annotations

import os
import signal

from .modelholder import ModelHolder
from .server import HEADER, LEARN_COUNTS, MAX_LEARN_LINE, _error, _reply, log


def worker_main(sock, holder: ModelHolder, timeout: float | None, max_bytes: int, learn_path: str | None) -> None:
    """A worker's life: read a request, score (under the deadline) or learn it,
    write the reply; until end of file.  The model is caught up with its file
    before each request (ModelHolder.refresh)."""
    _die_with_parent()
    sock.setblocking(True)
    stream = sock.makefile("rb")
    while True:
        head = stream.read(HEADER.size)
        if len(head) < HEADER.size:
            return
        (size,) = HEADER.unpack(head)
        payload = stream.read(size)
        if len(payload) < size:
            return
        holder.refresh(quiet=True)
        model = holder.model
        if payload[:1] == b"D":
            reply = _spamd_reply(payload, model, timeout, max_bytes, learn_path)
        elif payload[:1] == b"L":
            reply = _learn_reply(payload[1:], holder.path, timeout)
        else:
            reply = _native_reply(payload[1:], model, timeout)
        sock.sendall(HEADER.pack(len(reply)) + reply)


def _native_reply(raw: bytes, model, timeout: float | None) -> bytes:
    from .verdict import judge

    try:
        score = judge(model, raw, timeout)
        if score.reason:
            log(f"a message of {len(raw):,} bytes {score.reason}")
        return _reply(score, model.cutoffs)
    except Exception as error:  # noqa: BLE001 -- a bug on one message must not end the worker
        log(f"scoring a message of {len(raw):,} bytes failed: {type(error).__name__}: {error}")
        return _error(f"the message could not be scored: {type(error).__name__}")


def _learn_reply(payload: bytes, model_path: str, timeout: float | None) -> bytes:
    """`learn --server`: learn one message (spamnb.server's protocol); the reply line."""
    import json

    from ..errors import SpamnbError
    from .server import parse_learn_line

    end = payload.find(b"\n", 0, MAX_LEARN_LINE + 1)
    try:
        if end < 0:
            raise ValueError(f"a learn request's first line must end within {MAX_LEARN_LINE} bytes")
        label, flags = parse_learn_line(payload[:end])
    except (ValueError, UnicodeDecodeError) as error:
        return _error(f"not a learn request: {error}")
    raw = payload[end + 1:]
    try:
        report, created = learn_message(model_path, raw, label, flags, lock_wait=timeout)
    except SpamnbError as error:  # the model's own trouble (locked, damaged): the client says it
        return _error(str(error))
    except Exception as error:  # noqa: BLE001 -- a bug on one message must not end the worker
        log(f"learning a message of {len(raw):,} bytes failed: {type(error).__name__}: {error}")
        return _error(f"the message could not be learned: {type(error).__name__}")
    record = {name: getattr(report, name) for name in ("learned", "forgotten", *LEARN_COUNTS)}
    record.update(changed=report.changed, created=created, model=model_path)
    return (json.dumps(record) + "\n").encode("utf-8")


def _spamd_reply(payload: bytes, model, timeout: float | None, max_bytes: int, learn_path: str | None) -> bytes:
    import json

    from . import spamd

    (length,) = HEADER.unpack_from(payload, 1)
    request = json.loads(payload[1 + HEADER.size:1 + HEADER.size + length])
    body = payload[1 + HEADER.size + length:]
    from ..errors import BusyError

    learn = None if learn_path is None else (
        lambda raw, label, remove: learn_one(learn_path, raw, label, remove, lock_wait=timeout))
    try:
        return spamd.answer(model, request["method"], request["headers"], body, timeout, max_bytes, learn)
    except BusyError as error:  # another writer holds the model: the client may tell again later
        return spamd.error(str(error), spamd.EX_TEMPFAIL)
    except Exception as error:  # noqa: BLE001 -- a bug on one message must not end the worker
        log(f"a spamd {request['method']} of {len(body):,} bytes failed: {type(error).__name__}: {error}")
        return spamd.error(f"{type(error).__name__}", spamd.EX_SOFTWARE)


def learn_one(model_path: str, raw: bytes, label: str | None, remove: bool,
              lock_wait: float | None = None) -> bool:
    """spamd TELL: learn (relabelling a message learned the other way) or forget one message,
    as `spamnb learn` does (appended to the model's journal where it can be).
    Whether the model changed: not for a message already learned so, nor
    one to forget that is not on record."""
    if remove:
        for each in [label] if label else ["spam", "ham"]:
            report, _ = learn_message(model_path, raw, each, ("forget",), lock_wait=lock_wait)
            if report.changed:
                break
    else:
        assert label is not None  # spamd.answer asks for a label to learn with
        report, _ = learn_message(model_path, raw, label, ("relabel",), lock_wait=lock_wait)
    as_label = "" if label is None else " as " + label
    if report.changed:
        log(f"{'forgot' if remove else 'learned'} a message of {len(raw):,} bytes{as_label} (spamd TELL)")
    else:
        skipped = report.reading.skipped
        why = skipped[0].reason if skipped else "not on record" if remove else "learned already"
        log(f"a message of {len(raw):,} bytes{as_label} left the model unchanged: {why} (spamd TELL)")
    return report.changed


def learn_message(model_path: str, raw: bytes, label: str, flags=(), lock_wait: float | None = None):
    """learn_file on one raw message, as `spamnb learn --LABEL FILE --FLAG...
    --model model_path` would learn that file: (LearnReport, created)."""
    import tempfile

    from ..learning.incremental import learn_file
    from ..learning.labelled import LearnFlags

    with tempfile.TemporaryDirectory(prefix="spamnb-learn-") as directory:
        path = os.path.join(directory, "message.eml")
        with open(path, "wb") as file:
            file.write(raw)
        return learn_file(model_path, **{label: [path]},  # type: ignore[arg-type]  # spam or ham
                          flags=LearnFlags(forget="forget" in flags, relabel="relabel" in flags,
                                           force="force" in flags, on_error="on-error" in flags),
                          lock_wait=lock_wait)


def failure_reply(protocol: str, killed: bool, timeout: float | None, cutoffs) -> bytes:
    """The answer for a message whose worker was killed at the deadline or died."""
    if protocol == "spamd":
        from . import spamd

        if killed:  # spamc passes the message on unchecked, as when spamd is down
            return spamd.error(f"not scored within {timeout or 0:g} s", spamd.EX_TEMPFAIL)
        return spamd.error("the worker scoring the message died", spamd.EX_SOFTWARE)
    if killed:
        from .deadline import unsure

        return _reply(unsure(timeout or 0), cutoffs)
    return _error("the message could not be scored: the worker scoring it died")


def refused_reply(protocol: str) -> bytes:
    if protocol == "spamd":
        from . import spamd

        return spamd.error("refused: not an allowed client", spamd.EX_PROTOCOL)
    return b'{"error": "refused: this server serves only the user who started it"}\n'


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when the main process dies, even in the middle of a message."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # elsewhere the end of file on its socket ends an idle worker

