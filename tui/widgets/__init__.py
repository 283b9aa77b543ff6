"""The widgets of openprogram-tui, one per module, each with its messages and `DEFAULT_CSS`."""
