"""`spamnb completion`: the shell completion script."""

from __future__ import annotations

import click


@click.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
@click.pass_context
def completion(ctx, shell):
    """Print the shell completion script for SHELL.

    \b
    Examples:
      spamnb completion bash > ~/.local/share/bash-completion/completions/spamnb
      spamnb completion zsh > "${fpath[1]}/_spamnb"
    """
    from click.shell_completion import get_completion_class

    script = get_completion_class(shell)(ctx.find_root().command, {}, "spamnb", "_SPAMNB_COMPLETE")
    click.echo(script.source())
