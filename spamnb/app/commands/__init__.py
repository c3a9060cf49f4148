"""The `spamnb` commands, one module each (a few small ones share one); spamnb.app.cli
gathers them into the command group."""
