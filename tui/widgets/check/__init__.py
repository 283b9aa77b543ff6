"""Widgets of the rerun view: progress, the outcome, and the mismatch side by side with its path and string diff."""
