"""journal._Changes: the per-key sums a reader of a journal sees are the same
whichever way it works them out (summed in the core over every record, the
sums added up once it has searched enough, or caught up with records appended
later)."""

import random

from spamnb.model.journal import JournalState, encode, read_records


def records(seed: int, count: int, keys_each: int):
    chooser = random.Random(seed)
    header = {"messages": [1, 0], "totals": [0, 0], "vocabulary": 0, "day": 1, "learned": [], "recent": []}
    made = []
    for _ in range(count):
        changes = {chooser.randrange(300): [chooser.randrange(-3, 4) for _ in range(4)] for _ in range(keys_each)}
        made.append(encode(header, changes, {}))
    parsed, end = read_records(b"".join(made))
    assert end == sum(map(len, made))
    return parsed


def expected(parsed) -> dict[int, list[int]]:
    sums: dict[int, list[int]] = {}
    for record in parsed:
        for at, key in enumerate(record.keys):
            total = sums.setdefault(key, [0, 0, 0, 0])
            for i in range(4):
                total[i] += record.changes[4 * at + i]
    return sums


def test_many_small_records_answer_each_key_as_the_sums_do():
    parsed = records(1, 60, 8)  # 60 records of 8 keys: the searches pass 480 steps after a few keys
    state = JournalState()
    for record in parsed:
        state.apply(record)
    sums = expected(parsed)
    asked = list(range(300))
    random.Random(2).shuffle(asked)
    for key in asked:
        assert state.changes.get(key) == sums.get(key), key
    assert state.changes._whole is not None  # it did switch to adding everything up
    assert dict(state.changes.items()) == sums


def test_a_reader_catching_up_with_appended_records_sees_them_all():
    parsed = records(3, 40, 10)
    for make_whole in (False, True):
        state = JournalState()
        for record in parsed[:25]:
            state.apply(record)
        if make_whole:
            state.changes.whole()
        else:
            assert state.changes.get(parsed[0].keys[0]) is not None  # some per-key answers cached
        state.extend(parsed[25:])
        sums = expected(parsed)
        assert [state.changes.get(key) for key in range(300)] == [sums.get(key) for key in range(300)]
        assert state.messages == [40, 0] and state.records == 40


def test_keys_asked_for_at_once_get_what_each_asked_alone_gets():
    parsed = records(5, 30, 12)
    sums = expected(parsed)
    state = JournalState()
    for record in parsed:
        state.apply(record)
    alone = state.changes.get(parsed[0].keys[0])  # asked before: the same list handed out again
    asked = [301, *range(300), parsed[0].keys[0]]
    answers = state.changes.many(asked)
    assert answers == [sums.get(key) for key in asked]
    assert answers[-1] is alone and state.changes.get(asked[5]) is answers[5]
    learner = state.learner_copy(first=True)  # a learn's own copies, over the shared sums
    copies = learner.changes.many(asked)
    assert copies == answers and copies[-1] is not alone
    copies[-1][0] += 1  # as learn adds to them: the shared sums stay as they were
    assert state.changes.get(parsed[0].keys[0]) == sums[parsed[0].keys[0]]


def test_a_batch_too_large_for_the_journal_adds_it_up_whole_and_answers_the_same():
    from spamnb.model.journal import BATCH_STEPS_PER_ENTRY

    parsed = records(7, 200, 2)  # many records of few keys: a batch would bisect each record per key
    sums = expected(parsed)
    entries = sum(len(record.keys) for record in parsed)
    small, large = list(range(3)), list(range(300))
    assert len(small) * len(parsed) <= BATCH_STEPS_PER_ENTRY * entries < len(large) * len(parsed)
    state = JournalState()
    for record in parsed:
        state.apply(record)
    assert state.changes.many(small) == [sums.get(key) for key in small]
    assert state.changes._whole is None  # bisected in the core
    assert state.changes.many(large) == [sums.get(key) for key in large]
    assert state.changes._whole is not None  # added up once instead


def test_a_long_lived_reader_asking_for_new_keys_adds_the_journal_up_once():
    """serve scores message after message, each with keys never asked for
    before: the searches of all the asks count, so the journal is added up
    once, and the keys remembered never outnumber the journal's entries."""
    from spamnb.model.journal import BATCH_STEPS_PER_ENTRY

    parsed = records(11, 100, 6)
    sums = expected(parsed)
    entries = sum(len(record.keys) for record in parsed)
    state = JournalState()
    for record in parsed:
        state.apply(record)
    changes, asks = state.changes, 0
    for message in range(400):
        keys = [1000 + 40 * message + i for i in range(40)] + [message % 300]  # new keys, and one held
        assert changes.many(keys) == [sums.get(key) for key in keys]
        assert len(changes._known) <= entries
        asks += 40
        if changes._whole is not None:
            break
    assert changes._whole is not None
    assert asks * len(parsed) <= BATCH_STEPS_PER_ENTRY * entries + 41 * len(parsed)  # switched when due, not later
    assert [changes.get(key) for key in range(300)] == [sums.get(key) for key in range(300)]
