"""Before a check: the command that will run, ready to edit (an edit is remembered per recording)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from openprogram.visible_text import visible, visible_line
from tui.model.check_commands import (
    CheckCommand,
    CommandSyntaxError,
    format_command,
    parse_command,
)
from tui.screens.dialog import DialogScreen
from tui.widgets.common.key_footer import KeyFooter

SOURCE_NOTES = {
    "given": "The command given on the command line.",
    "recorded": "The command stored in the recording's header.",
    "remembered": "The command you ran last time for this recording.",
    "none": "The recording stores no command: type the program that made it.",
}

UNTRUSTED_NOTE = (
    "This machine has not recorded or run this command: it comes from the file. "
    "Read all of it below; it runs only when you press enter."
)


class CommandEditorScreen(DialogScreen[list[str] | None]):
    """Edit the command line of a check; enter runs it, escape gives up (dismisses None)."""

    AUTO_FOCUS = "#command-input"
    """Focused when the dialog opens (a query from `on_mount` could run before it is there)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="command-editor.cancel"),
        Binding("ctrl+r", "restore", "Recorded command", id="command-editor.restore"),
    ]
    DEFAULT_CSS = """
    CommandEditorScreen {
        & > Vertical { padding: 1 2; }
        & #command-input { margin: 1 0; }
        & .command-editor--note { color: $text-muted; }
        & #command-error { color: $text-error; display: none; }
        & #command-error.-shown { display: block; }
        & #command-untrusted { color: $text-warning; }
    }
    """

    def __init__(
        self, command: CheckCommand, recording_name: str, *, ask_first: bool = False
    ) -> None:
        super().__init__()
        self.command = command
        self.recording_name = recording_name
        self.ask_first = ask_first
        """The command is stored in the file and this machine has not recorded or allowed it."""

    def compose(self) -> ComposeResult:
        command = self.command
        with Vertical() as dialog:
            dialog.border_title = Text(visible_line(f"Check {self.recording_name}"))
            yield Static(Text(SOURCE_NOTES[command.source]), classes="command-editor--note")
            if self.ask_first:
                yield Static(Text(UNTRUSTED_NOTE), id="command-untrusted")
            yield Input(
                format_command(command.argv),
                placeholder="python my_agent.py --flag",
                select_on_focus=False,
                id="command-input",
            )
            yield Static(id="command-error")
            yield Static(self._whole(self.command_text()), id="command-whole")
            where = visible_line(command.cwd or "the directory openprogram-tui was started in")
            lines = [f"Runs in {where}, with replay forced on this recording."]
            if command.source == "remembered" and command.recorded_argv:
                recorded = visible_line(format_command(command.recorded_argv))
                lines.append(f"Recorded: {recorded} (ctrl+r)")
            lines.append(
                "The program really runs: only its model calls are replayed (tools run live)."
            )
            lines.append("enter runs · esc cancels")
            yield Static(Text("\n".join(lines)), classes="command-editor--note")
        yield KeyFooter(compact=True)  # this dialog's keys, not the screen's below (e is a letter)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            argv = parse_command(event.value)
        except CommandSyntaxError as exc:
            error = self.query_one("#command-error", Static)
            error.update(Text(f"✗ {exc.reason}"))
            error.add_class("-shown")
            return
        self.dismiss(argv)

    def command_text(self) -> str:
        """The command line as it stands in the field."""
        fields = self.query(Input)
        return fields.first().value if fields else format_command(self.command.argv)

    @staticmethod
    def _whole(text: str) -> Text:
        # The field scrolls sideways: the whole command is also shown wrapped, so every argument
        # that will run is seen before enter.
        return Text.assemble(("Will run: ", "bold"), visible(text) or "(nothing yet)")

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#command-error", Static).remove_class("-shown")
        self.query_one("#command-whole", Static).update(self._whole(event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_restore(self) -> None:
        if self.command.recorded_argv is None:
            self.notify("This recording stores no command.", severity="warning")
            return
        field = self.query_one(Input)
        field.value = format_command(self.command.recorded_argv)
        field.cursor_position = len(field.value)
