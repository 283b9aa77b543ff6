"""Widgets of the check view: progress, the outcome, the recorded timeline (the mismatch side by
side is `tui.widgets.comparison`, shared with the diff view)."""
