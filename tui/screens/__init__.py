"""The screens of openprogram-tui, one per module."""
