"""`learn` by journal (spamnb/learning/incremental.py, spamnb/model/journal.py): the counts a
whole rewrite gives, scores computed from them, a killed learner leaving the
model before or after, concurrent learners losing nothing."""

import os
import random
import shutil
import signal
import time

import numpy as np
import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.learning import incremental
from spamnb.learning.incremental import learn_file
from spamnb.learning.labelled import LearnFlags
from spamnb.errors import ModelError
from spamnb.model.model import Model
from spamnb.model.modelread import read_model
from spamnb.model.scorer import LiveTable, Scorer
from spamnb.learning.training import learn as learn_rewriting, train
from spamnb._core import token_key

SPAM = sorted((SAMPLE / "mail" / "spam").iterdir())
HAM = sorted((SAMPLE / "mail" / "ham").iterdir())


@pytest.fixture(scope="module")
def half_model(tmp_path_factory):
    """A model trained on the first half of each class; the rest is left to learn."""
    directory = tmp_path_factory.mktemp("half")
    for name, files in (("spam", SPAM[:23]), ("ham", HAM[:23])):
        (directory / name).mkdir()
        for path in files:
            shutil.copy(path, directory / name / path.name)
    model, _ = train([str(directory / "spam")], [str(directory / "ham")])
    path = directory / "half.spamnb"
    model.save(path)
    return path


def fresh(half_model, tmp_path, name="model.spamnb"):
    path = tmp_path / name
    shutil.copyfile(half_model, path)
    return str(path)


def counts_of(path) -> tuple:
    """Everything learning changes, in a canonical order."""
    counts = Model.load(path).counts
    order = np.argsort(counts.keys)
    return (counts.messages.tolist(), [counts.tokens[i] for i in order],
            counts.occurrences[:, order].tolist(), counts.documents[:, order].tolist(),
            sorted(counts.learned.items()))


# Each step: (paths, label, options) as `learn` takes them.
STEPS = [([SPAM[23]], "spam", {}), ([HAM[23], HAM[24]], "ham", {}), ([SPAM[24]], "ham", {}),
         ([SPAM[24]], "spam", {"relabel": True}), ([HAM[23]], "ham", {"forget": True}),
         ([SPAM[25], SPAM[26]], "spam", {}), ([SPAM[25]], "spam", {}),  # a duplicate
         ([HAM[25]], "ham", {"on_error": True}), ([SPAM[23]], "spam", {"forget": True})]


def apply_steps(path, learner):
    for paths, label, options in STEPS:
        kwargs = {"spam": [str(p) for p in paths]} if label == "spam" else {"ham": [str(p) for p in paths]}
        learner(path, kwargs, options)


def by_journal(path, kwargs, options):
    report, created = learn_file(path, **kwargs, flags=LearnFlags(**options))
    assert not created


def by_rewrite(path, kwargs, options):
    model = Model.load(path)
    learn_rewriting(model, **kwargs, flags=LearnFlags(**options))
    model.save(path)


def test_appended_learning_equals_a_rewrite_count_for_count(half_model, tmp_path):
    journaled, rewritten = fresh(half_model, tmp_path, "a"), fresh(half_model, tmp_path, "b")
    apply_steps(journaled, by_journal)
    apply_steps(rewritten, by_rewrite)
    assert read_model(journaled).journal_bytes > 0  # it did append
    assert read_model(rewritten).journal_bytes == 0
    assert counts_of(journaled) == counts_of(rewritten)
    # Scored straight from the journal (weights from counts) as the rewritten model scores.
    live, whole = Scorer.open(journaled), Scorer.open(rewritten)
    assert isinstance(live.table, LiveTable)
    for path in SPAM + HAM:
        raw = path.read_bytes()
        a, b = live.score_message(raw), whole.score_message(raw)
        assert (a.tokens_known, a.tokens_distinct) == (b.tokens_known, b.tokens_distinct)
        assert abs(a.log_odds - b.log_odds) < 1e-4, path


def test_the_command_line_appends_and_compacts(half_model, tmp_path, monkeypatch):
    path = fresh(half_model, tmp_path)
    before = os.stat(path).st_ino
    result = run_spamnb("learn", "--spam", SPAM[30], "--model", path)
    assert result.returncode == 0, result.stderr
    assert os.stat(path).st_ino == before  # appended in place, not rewritten
    assert read_model(path).journal_bytes > 0
    unchanged = run_spamnb("learn", "--spam", SPAM[30], "--model", path)
    assert unchanged.stdout.decode().splitlines()[-1] == f"model unchanged: {path}"
    monkeypatch.setattr(incremental, "COMPACT_BYTES", 0)  # every learn now folds the journal
    learn_file(path, spam=[str(SPAM[31])])
    assert read_model(path).journal_bytes == 0 and os.stat(path).st_ino != before


def in_child(work) -> int:
    """Run `work` in a forked child and return its pid; the child exits 0 when
    `work` returns, 1 when it raises."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            work()
            status = 0
        finally:
            os._exit(status)
    return pid


def _counts_after_a_clean_run(half_model, tmp_path, message, compact):
    path = fresh(half_model, tmp_path, "after")
    if compact:
        incremental.COMPACT_BYTES, saved = 0, incremental.COMPACT_BYTES
    try:
        learn_file(path, spam=[str(message)])
    finally:
        if compact:
            incremental.COMPACT_BYTES = saved
    return counts_of(path)


@pytest.mark.parametrize("compact", [False, True], ids=["appending", "compacting"])
def test_sigkill_at_100_moments_leaves_the_model_before_or_after(half_model, tmp_path, compact):
    message = SPAM[40]
    before = counts_of(half_model)
    after = _counts_after_a_clean_run(half_model, tmp_path, message, compact)
    assert before != after
    path = fresh(half_model, tmp_path)
    pristine = open(half_model, "rb").read()

    def child():
        if compact:
            incremental.COMPACT_BYTES = 0
        learn_file(path, spam=[str(message)])

    started = time.monotonic()
    assert os.waitpid(in_child(child), 0)[1] == 0
    duration = time.monotonic() - started
    rng = random.Random(13)
    seen = {"before": 0, "after": 0}
    for moment in range(100):
        with open(path, "wb") as file:  # back to before (no reader holds it)
            file.write(pristine)
        pid = in_child(child)
        time.sleep(rng.uniform(0, duration * 1.2))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        state = counts_of(path)  # loads whole: every checksum, the journal added up
        assert state in (before, after), f"moment {moment}"
        seen["before" if state == before else "after"] += 1
        if moment % 25 == 0:  # and learning goes on from whatever was left
            learn_file(path, ham=[str(HAM[40])])
            assert counts_of(path) != state
    assert seen["before"] and seen["after"], seen


def test_four_concurrent_learners_equal_a_serial_run(half_model, tmp_path):
    shares = [SPAM[23:28], SPAM[28:33], HAM[23:28], HAM[28:33]]
    serial = fresh(half_model, tmp_path, "serial")
    for share in shares:
        for message in share:
            label = "spam" if message in SPAM else "ham"
            learn_file(serial, **{label: [str(message)]})
    shared = fresh(half_model, tmp_path, "shared")
    def learner(share):
        for message in share:  # one learn per message, interleaved with the others
            learn_file(shared, **{"spam" if message in SPAM else "ham": [str(message)]})

    children = [in_child(lambda share=share: learner(share)) for share in shares]
    for pid in children:
        assert os.waitpid(pid, 0)[1] == 0
    assert counts_of(shared) == counts_of(serial)


def test_other_event_models_are_rewritten_whole(tmp_path):
    model, _ = train([str(SAMPLE / "mail" / "spam")], [str(SAMPLE / "mail" / "ham")],
                     __import__("spamnb.model.options", fromlist=["TrainOptions"]).TrainOptions(event_model="bernoulli"))
    path = str(tmp_path / "bernoulli.spamnb")
    model.save(path)
    inode = os.stat(path).st_ino
    report, _ = learn_file(path, ham=[str(SPAM[0])], flags=LearnFlags(relabel=True))
    assert report.relabelled == 1
    assert read_model(path).journal_bytes == 0 and os.stat(path).st_ino != inode


def test_messages_the_base_was_trained_on_are_found_by_their_digests(half_model, tmp_path):
    """Each of the base's 46 digests is found (skipped as a duplicate, or a
    conflict under the other label), and mail it never saw is learned."""
    path = fresh(half_model, tmp_path)
    trained = [str(p) for p in SPAM[:23]], [str(p) for p in HAM[:23]]
    report, _ = learn_file(path, spam=trained[0], ham=trained[1])
    assert (report.duplicates, report.learned["spam"], report.learned["ham"]) == (46, 0, 0)
    report, _ = learn_file(path, spam=trained[1][:5] + [str(SPAM[30])])
    assert (report.conflicts, report.learned["spam"]) == (5, 1)
    assert read_model(path).journal_bytes > 0


def test_a_journal_only_the_whole_load_can_fold_in_makes_learn_rewrite_whole(tmp_path):
    """A Bernoulli model with a journal another writer appended: learn neither
    appends to it nor fails; the rewrite folds the journal in, then learns."""
    from spamnb.model import journal
    from spamnb.model.options import TrainOptions

    model, _ = train([str(SAMPLE / "mail" / "spam")], [str(SAMPLE / "mail" / "ham")],
                     TrainOptions(event_model="bernoulli"))
    path = str(tmp_path / "bernoulli.spamnb")
    model.save(path)
    header = {"messages": [0, 1], "totals": [0, 2], "vocabulary": 0, "day": 1, "learned": [], "recent": []}
    with open(path, "ab") as file:
        file.write(journal.encode(header, {token_key("qqzxv"): [0, 2, 0, 1]}, {token_key("qqzxv"): "qqzxv"}))
    expected = Model.load(path)  # the journal folded in
    stranger = tmp_path / "stranger.eml"
    stranger.write_bytes(b"Subject: qqzxv\n\nqqzxv wwqxz\n")
    learn_rewriting(expected, [str(stranger)], [], LearnFlags(force=True))
    report, created = learn_file(path, spam=[str(stranger)], flags=LearnFlags(force=True))
    assert (report.learned["spam"], created) == (1, False)
    assert read_model(path).journal_bytes == 0
    assert list(Model.load(path).messages) == list(expected.messages) == [model.messages[0], model.messages[1] + 2]
    assert Model.load(path).lookup("qqzxv") == expected.lookup("qqzxv")


def test_classify_and_a_full_load_agree_on_a_journal_model(half_model, tmp_path):
    """Every reader of a model with a journal uses the same calibration and cutoffs."""
    path = fresh(half_model, tmp_path)
    for message in SPAM[23:35] + HAM[23:35]:
        learn_file(path, **{"spam" if message in SPAM else "ham": [str(message)]})
    assert read_model(path).journal_bytes > 0
    live, whole = Scorer.open(path), Model.load(path)
    assert (live.cutoffs.spam, live.cutoffs.ham) == (whole.cutoffs.spam, whole.cutoffs.ham)
    for message in SPAM[35:] + HAM[35:]:
        a, b = live.score_message(message.read_bytes()), whole.score_message(message.read_bytes())
        assert a.label == b.label and abs(a.log_odds - b.log_odds) < 1e-4


def test_forgetting_more_messages_than_were_learned_is_refused(half_model, tmp_path):
    """A message of unknown words forgotten with --force, once more than the model
    holds of its class: refused, never a negative message count."""
    path = fresh(half_model, tmp_path)
    ham_learned = int(Model.load(path).messages[0])
    strangers = []
    for index in range(ham_learned + 1):
        stranger = tmp_path / f"stranger{index}.eml"
        stranger.write_bytes(f"Subject: qqzx{index}\n\nqqzxv{index} wwqxz{index}\n".encode())
        strangers.append(str(stranger))
    with pytest.raises(ValueError, match="never learned"):
        learn_file(path, ham=strangers, flags=LearnFlags(forget=True, force=True))
    assert counts_of(path) == counts_of(half_model)  # nothing written


def test_a_token_no_message_holds_is_not_in_the_vocabulary(tmp_path):
    """An import may list a token with all counts 0; V must not count it, or the
    journal would count it a second time when a message brings it back."""
    from spamnb.model.counts import TokenCounts
    from spamnb.model.options import TrainOptions

    counts = TokenCounts.from_arrays(["free", "ghost", "meeting"], [[1, 0, 5], [6, 0, 1]], [[1, 0, 3], [4, 0, 1]],
                                     [4, 5])
    model = Model.from_counts(counts, TrainOptions())
    assert model.vocabulary_size == 2 and model.lookup("ghost") is None
    path = str(tmp_path / "m.spamnb")
    model.save(path)
    message = tmp_path / "ghost.eml"
    message.write_bytes(b"Subject: ghost\n\nghost free\n")
    learn_file(path, spam=[str(message)])
    rewritten = Model.load(path)
    rewritten.save(str(tmp_path / "again.spamnb"))
    assert Model.load(str(tmp_path / "again.spamnb")).vocabulary_size == \
        int(Model.load(path).meta["vocabulary"]) + read_model(path).journal()[0].vocabulary


def test_a_journal_read_key_by_key_adds_up_as_the_whole():
    """journal._Changes answers a key from the records it is in (bisection)
    and 'absent' from the set of all keys; the lists it hands out are what
    adding every record up gives, and what learn adds to them stays."""
    from spamnb.model import journal

    rng = random.Random(13)
    records, expected = [], {}
    for _ in range(6):
        keys = rng.sample(range(1, 400), 60)
        changes = {key: [rng.randint(-3, 3) for _ in range(4)] for key in keys}
        for key, change in changes.items():
            expected[key] = [a + b for a, b in zip(expected.get(key, [0, 0, 0, 0]), change)]
        header = {"messages": [0, 1], "totals": [0, 5], "vocabulary": 0, "day": 3}
        records.append(journal.encode(header, changes, {keys[0]: f"token{keys[0]}"}))
    state, torn = journal.state_of(b"".join(records))
    assert not torn and state.records == 6
    for key in range(0, 401):
        assert state.changes.get(key) == expected.get(key), key
        assert (key in state.changes) == (key in expected)
    state.changes.setdefault(999, [0, 0, 0, 0])[1] += 2  # as learn adds a new token
    state.changes.get(next(iter(expected)))[0] += 5
    whole = dict(state.changes.items())
    assert whole[999] == [0, 2, 0, 0] and whole[next(iter(expected))][0] == expected[next(iter(expected))][0] + 5
    assert len(whole) == len(expected) + 1
    state.new_tokens[999] = "new"  # learn writes; the records' own are read on the first read
    assert len(state.new_tokens) == 7 and state.new_tokens[999] == "new"
    assert set(state.last_day) == set(expected) and set(state.last_day.values()) == {3}


def test_a_journal_record_with_keys_out_of_order_makes_the_model_unusable():
    from spamnb.model import journal

    good = journal.encode({"messages": [0, 1], "totals": [0, 2], "vocabulary": 0}, {5: [0, 1, 0, 1], 9: [0, 1, 0, 1]}, {})
    payload = bytearray(good[journal.RECORD.size:])
    text_length = journal.COUNTS.unpack_from(payload)[0]
    at = journal.COUNTS.size + text_length
    payload[at:at + 16] = payload[at + 8:at + 16] + payload[at:at + 8]  # the two keys swapped
    import zlib

    bad = journal.RECORD.pack(journal.MAGIC, len(payload), zlib.crc32(payload)) + bytes(payload)
    with pytest.raises(ValueError, match="not in order"):
        journal.state_of(bad)


def test_a_process_that_learns_again_and_again_writes_what_fresh_processes_write(half_model, tmp_path):
    """learn_appending keeps the base's table and the journal's sums between learns of one
    process (serve's workers); the records it appends are those of one fresh `spamnb learn`
    process a message, to the byte, with another process's learns in between."""
    warm, cold = fresh(half_model, tmp_path, "warm"), fresh(half_model, tmp_path, "cold")
    messages = [(SPAM[23], "spam"), (HAM[23], "ham"), (SPAM[24], "spam"), (HAM[24], "ham"), (SPAM[25], "ham")]
    for number, (message, label) in enumerate(messages):
        learn_file(warm, **{label: [str(message)]})
        assert run_spamnb("learn", "--model", cold, f"--{label}", message).returncode == 0
        if number == 2:  # another writer appends between two of this process's learns
            for path in (warm, cold):
                assert run_spamnb("learn", "--model", path, "--ham", HAM[30]).returncode == 0
    learn_file(warm, spam=[str(SPAM[25])], flags=LearnFlags(relabel=True))
    assert run_spamnb("learn", "--model", cold, "--spam", SPAM[25], "--relabel").returncode == 0
    journal = [bytes(read_model(path).journal_view()) for path in (warm, cold)]
    assert len(journal[0]) > 0 and journal[0] == journal[1]


def test_a_journal_record_that_does_not_add_up_is_a_model_error_for_learn(half_model, tmp_path):
    """A record whose checksum is right but whose header is not a record: the model is not
    usable (exit 3, as classify says), not an unreadable message (exit 4)."""
    import zlib

    from spamnb.model import journal

    path = fresh(half_model, tmp_path)
    learn_file(path, spam=[str(SPAM[23])])
    text = b"[]"  # a header that is not an object, framed as encode() frames a record
    payload = journal.COUNTS.pack(len(text), 0, 0, 0) + text
    with open(path, "ab") as file:
        file.write(journal.RECORD.pack(journal.MAGIC, len(payload), zlib.crc32(payload)) + payload)
    done = run_spamnb("learn", "--model", path, "--spam", SPAM[24])
    assert done.returncode == 3, done.stderr
    assert b"not usable" in done.stderr and b"Traceback" not in done.stderr
    for _ in range(2):  # warm (this process read the good record before), then cold (a failure keeps no cache)
        with pytest.raises(ModelError, match="not usable"):
            learn_file(path, spam=[str(SPAM[24])])


def test_a_learner_copy_answers_lookups_only():
    from spamnb.model.journal import JournalState

    copy = JournalState().learner_copy()
    assert copy.changes.get(5) is None
    with pytest.raises(NotImplementedError):
        len(copy.changes)
