"""`spamnb serve`: the model kept warm behind a socket, in spamnb's protocol and spamd's."""

from __future__ import annotations

import click

from ...errors import OptionError
from .options import model_option, model_path_or_default, timeout_option


@click.command()
@click.option("--socket", "socket_path", type=click.Path(dir_okay=False), default=None,
              help="Where to listen.  Default: $XDG_RUNTIME_DIR/spamnb/serve.sock, else "
                   "/tmp/spamnb-UID/serve.sock.")
@model_option
@click.option("--spamd", "spamd_address", metavar="ADDRESS", default=None,
              help="Also speak SpamAssassin's spamd protocol (spamc, Exim's `spam =`, spamass-milter) "
                   "on ADDRESS: a socket path, or [HOST:]PORT for TCP (127.0.0.1 unless HOST is given).")
@click.option("--spamd-allow", "spamd_allow", metavar="NETWORK", multiple=True,
              help="Clients allowed on the spamd TCP port (repeatable, e.g. 192.0.2.0/24).  "
                   "[default: loopback only]")
@click.option("--spamd-learn", is_flag=True,
              help="Let spamd clients teach the model (`spamc -L spam|ham|forget`, TELL).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes that score messages side by side; more are started while all are busy, "
                   "up to twice as many.  [default: one per core, at least 2]")
@timeout_option("the client is answered unsure (with the reason) and the server goes on serving; "
                "a worker that overruns it by a second is killed and replaced")
def serve(socket_path, model_path, spamd_address, spamd_allow, spamd_learn, workers, timeout):
    """Keep the model loaded and score mail sent by `classify --server`.

    For mail that comes one message at a time (procmail, a filter script):
    each `spamnb classify` then skips loading the model.  The server runs in
    the foreground, logs to stderr, reloads the model by itself when the
    file changes (after `spamnb learn`, say) or on SIGHUP, and stops cleanly
    on SIGTERM or Ctrl-C, removing its socket.

    Only your own user is served: the socket is a Unix socket with mode
    0600, in a directory of yours that no one else can write to, and every
    connection from another uid is refused (and logged).

    A slow client never holds up another: messages are scored by worker
    processes, each under --timeout; a connection idle for 60 s is closed
    (the idlest one first when 256 are open), a request must arrive whole
    within 30 s, and buffered requests are capped in total.

    \b
    Examples:
      spamnb serve &
      spamnb classify --server "$XDG_RUNTIME_DIR/spamnb/serve.sock" - < message.eml
      kill -HUP %1                 # reload now;  kill %1: stop
    \b
    As a systemd user service, ~/.config/systemd/user/spamnb.service:
      [Service]
      ExecStart=%h/.local/bin/spamnb serve
      ExecReload=/bin/kill -HUP $MAINPID
      [Install]
      WantedBy=default.target
    then: systemctl --user enable --now spamnb
    \b
    In ~/.procmailrc (if the server is down, VERDICT is empty: mail is delivered as usual):
      VERDICT=`spamnb classify --server /run/user/1000/spamnb/serve.sock --format tsv | cut -f2 | tail -n 1`
    """
    from ..daemon import serve as run_server
    from ..server import default_socket_path

    if (spamd_allow or spamd_learn) and not spamd_address:
        raise OptionError("--spamd-allow and --spamd-learn go with --spamd ADDRESS")
    run_server(model_path_or_default(model_path, writes=True), socket_path or default_socket_path(), timeout=timeout,
               workers=workers, spamd=spamd_address, spamd_allow=spamd_allow, spamd_learn=spamd_learn)
