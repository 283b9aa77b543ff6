"""Widgets of the diff view: the call list by status and the answers of one pair compared."""
