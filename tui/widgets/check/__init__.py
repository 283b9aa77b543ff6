"""Widgets of the check view: progress, the outcome, and the mismatch side by side with its path and string diff."""
