"""The TUI's data layer: indexing, formatting and settings logic with no Textual imports."""
