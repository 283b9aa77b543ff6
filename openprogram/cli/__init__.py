"""The `openprogram` command line."""
