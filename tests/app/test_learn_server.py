"""`spamnb learn --server`: the resident server learns as `learn --model` would.

Real processes on a real Unix socket: one `spamnb serve` started on a model
file that does not exist yet, taught through `learn --server` (with a local
`learn --model` into the same file between, as a second writer), against the
same learns run locally into another file."""

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.app.server import HEADER, LEARN_BIT, Client
from spamnb.errors import ServerError
from test_server import Server

SPAM_DIR, HAM_DIR = SAMPLE / "mail" / "spam", SAMPLE / "mail" / "ham"
SPAM = sorted(SPAM_DIR.iterdir())
HAM = sorted(HAM_DIR.iterdir())

# (how, learn arguments): "server" through learn --server, "local" by learn --model
# into the server's own file (another writer, which the server must notice).
STEPS = [
    ("server", ["--spam", SPAM_DIR]),
    ("server", ["--ham", *HAM[:-3]]),
    ("local", ["--ham", HAM[-3]]),
    ("server", ["--ham", HAM[-2]]),
    ("server", ["--ham", HAM[-2]]),                     # already learned: skipped
    ("server", ["--spam", HAM[-2]]),                    # learned the other way: skipped
    ("server", ["--relabel", "--spam", HAM[-2]]),       # moved
    ("server", ["--forget", "--spam", SPAM[0]]),
    ("local", ["--spam", HAM[-1]]),
    ("server", ["--on-error", "--spam", SPAM[0]]),      # learned only if the model gets it wrong
]


@pytest.fixture(scope="module")
def taught():
    """(server, its model, the same steps run locally into another model, the learns' outputs)."""
    directory = Path(tempfile.mkdtemp(prefix="spamnb-learn-server-test-"))
    served, local = directory / "served.spamnb", directory / "local.spamnb"
    server = Server(served, directory / "serve.sock")
    outputs = []
    try:
        for how, args in STEPS:
            where = ["--server", server.socket] if how == "server" else ["--model", served]
            remote = run_spamnb("learn", *args, *where)
            here = run_spamnb("learn", *args, "--model", local)
            assert remote.returncode == 0 and here.returncode == 0, (remote.stderr, here.stderr)
            outputs.append((how, remote.stdout.decode().replace(str(served), "MODEL"),
                            here.stdout.decode().replace(str(local), "MODEL")))
        yield server, served, local, outputs
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


def test_a_missing_model_is_served_empty_until_the_first_learn_creates_it(taught):
    server, served, _, outputs = taught
    assert "not there yet: an empty model" in server.log().splitlines()[0]
    assert outputs[0][1] == f"learned {len(SPAM)} spam + 0 ham\nmodel written to MODEL\n"


def test_learn_through_the_server_gives_the_model_local_learns_give(taught):
    server, served, local, outputs = taught
    for how, remote, here in outputs:
        assert remote == here, how
    # Skipped, relabelled, forgotten, train-on-error: each said as a local learn says it.
    said = "".join(remote for _, remote, _ in outputs)
    for words in ("1 already learned", "1 learned with the other label", "1 moved from the other label",
                  "forgot 1 spam"):
        assert words in said
    # Every count, every learned digest, the settings: the exports are the same text.
    exported = [run_spamnb("export", "--model", path) for path in (served, local)]
    assert exported[0].returncode == 0, exported[0].stderr
    assert exported[0].stdout == exported[1].stdout
    settings = json.loads(exported[0].stdout.decode().splitlines()[1].removeprefix("# settings "))
    assert settings["messages"]["ham"] == len(HAM) - 2  # two locals and the server's, one moved to spam


def test_the_server_scores_with_what_it_and_the_other_writer_learned(taught):
    server, served, local, _ = taught
    message = str(SPAM[2])
    remote = run_spamnb("classify", "--server", server.socket, "--format", "jsonl", message)
    here = run_spamnb("classify", "--model", local, "--format", "jsonl", message)
    assert remote.returncode == here.returncode and remote.stdout == here.stdout


def test_learn_requests_a_client_could_forge_get_an_error_and_the_server_goes_on(taught):
    server = taught[0]
    with Client(str(server.socket)) as client:
        for first_line in (b"bogus\n", b"spam spam spam\n", b"spam relabel forget\n", b"ham " + b"x" * 200,
                           b"\xff\xfe\n"):
            with pytest.raises(ServerError, match="not a learn request"):
                client._request(HEADER.pack(LEARN_BIT | len(first_line)) + first_line)
        assert client.score(SPAM[2].read_bytes())["label"] in ("spam", "unsure", "ham")
    with Client(str(server.socket)) as client:  # past the size limit: refused, connection closed
        with pytest.raises(ServerError, match="over the limit"):
            client._request(HEADER.pack(LEARN_BIT | (LEARN_BIT - 1)))


def test_learn_server_options_that_do_not_fit_are_one_line_errors(taught, tmp_path):
    server = taught[0]
    both = run_spamnb("learn", "--server", server.socket, "--model", tmp_path / "m", "--spam", SPAM[0])
    assert both.returncode == 64 and b"--model does not go with --server" in both.stderr
    gone = run_spamnb("learn", "--server", tmp_path / "none.sock", "--spam", SPAM[0])
    assert gone.returncode == 75 and gone.stderr.count(b"\n") == 1 and b"no spamnb server" in gone.stderr


def test_the_clients_import_neither_the_model_code_nor_heavy_modules(taught):
    server = taught[0]
    heavy = {"numpy", "click", "rich", "email", "dataclasses", "inspect", "pathlib", "jieba", "tempfile",
             "multiprocessing", "spamnb.model.scorer", "spamnb.text.tokens", "spamnb.learning.incremental"}
    for args in (["learn", "--server", server.socket, "--force", "--spam", "-"],
                 ["classify", "--server", server.socket, "--format", "jsonl", "-"]):
        result = run_spamnb(*args, input=SPAM[3].read_bytes(), env={"PYTHONPROFILEIMPORTTIME": "1"})
        assert result.returncode == 0, result.stderr
        imported = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()
                    if line.startswith("import time:")}
        assert "spamnb.app.server" in imported
        assert not heavy & imported, (args[0], heavy & imported)
