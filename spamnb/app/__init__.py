"""The application: what a user or a mail server runs.

In:  command lines, settings, standard input, sockets.
Out: verdicts, filtered mail, reports, plots, exit statuses.

fastpath is the console entry point (`spamnb`): it scores common command
lines with the standard library alone and hands the rest to cli (click).
classify, filtering, verdict and deadline are the mail path; server, daemon and spamd
are `spamnb serve`; evaluation, metrics and plots are `spamnb evaluate`;
render prints results; config and paths read settings and the default model.

Never imports: nothing is above it (it may import every layer); what it
must keep is the other direction: nothing in spamnb imports it but
spamnb.__main__, and only here are click and rich imported (rich also,
deferred, by spamnb.progress's TerminalPhases, which only this layer builds).

This file imports nothing: the fast path pays only for the modules it uses.
"""
