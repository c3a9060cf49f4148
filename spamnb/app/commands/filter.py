"""`spamnb filter`: the message back with a status field, for an MTA or an MDA."""

from __future__ import annotations

import sys
import click

from .options import (FieldName, cutoff_options, exit_code_option, max_size_option, model_option, model_path_or_default,
                      timeout_option)


@click.command(name="filter")
@model_option
@click.option("--header", "header_name", type=FieldName(), default="X-Spamnb-Status", show_default=True,
              help="Name of the status header added (an RFC 5322 field name).")
@click.option("--header-style", type=click.Choice(["spamnb", "spamassassin"]), default="spamnb",
              show_default=True,
              help="spamassassin: write X-Spam-Flag (YES/NO), X-Spam-Level and X-Spam-Status as "
                   "SpamAssassin does (score 5.0 = spamnb's spam cutoff), for rules written for it.")
@exit_code_option("Exit 0 spam, 1 ham, 2 unsure (bogofilter's convention).")
@cutoff_options("Default: the model's.", "Default: the model's.")
@max_size_option("Bytes of the message read and scored; the rest is copied through.")
@timeout_option("the message is delivered all the same, its header saying Unsure and why")
def filter_command(model_path, header_name, header_style, exit_code, spam_cutoff, ham_cutoff, max_size, timeout):
    """Copy one message from stdin to stdout with a status header added.

    The header reads `X-Spamnb-Status: Yes|No|Unsure, score=P, log-odds=L,
    model=NAME`, placed last in the header block with the message's own line
    ending; older copies of it are removed from the header; everything else,
    body included, is written back byte for byte.  On any failure (a bad
    option or setting, no model, a corrupt one, anything) the message is
    written back untouched and spamnb exits 75 (EX_TEMPFAIL), so the MTA
    retries and no mail is lost.  Only the message is ever written to
    stdout (this help goes to stderr unless stdin is a terminal).

    \b
    Examples:
      spamnb filter < message.eml > tagged.eml
      :0fw                                      # procmail
      | spamnb filter
    """
    from ..filtering import deliver

    sys.exit(deliver(model_path_or_default(model_path), header_name, exit_code, spam_cutoff, ham_cutoff, max_size,
                     timeout,
                     header_style))
