"""The application: what a user or a mail server runs.

In:  command lines, settings, standard input, sockets.
Out: verdicts, filtered mail, reports, plots, exit statuses.

fastpath is the console entry point (`spamnb`): it scores common command
lines with the standard library alone and hands the rest to cli (click).
classify, filtering and deadline are the mail path; server, daemon and spamd
are `spamnb serve`; evaluation, metrics and plots are `spamnb evaluate`;
render prints results; config and paths read settings and the default model.

The top layer: nothing in spamnb imports it but spamnb.__main__.  Only here
may click and rich be imported (rich also lazily in spamnb.progress).

This file imports nothing: the fast path pays only for the modules it uses.
"""
