"""`openprogram-tui [PATH ...] [--demo] [--check PATH [-- COMMAND]]`: the app wires screens,
commands and keys, nothing more.

Screens other than the recording view are imported when first opened: start-up time is the time
to the first rows of a recording, and every module imported before that counts.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.screen import ModalScreen

from openprogram.text import split_command
from openprogram.visible_text import visible, visible_line
from tui.arguments import RecordingArgumentError, check_recording_path, recording_path
from tui.command_line import parse_arguments
from tui.commands import TuiCommands
from tui.ending_signals import ending_signals_exit_app, ending_signals_raise_system_exit
from tui.messages import CallOpenRequested
from tui.model.navigation import GotoTarget
from tui.model.recording_index import KEYS
from tui.screens.recording import RecordingScreen
from tui.terminal_edge import VisibleTextFilter
from tui.theme import DARK_THEME, LIGHT_THEME, THEMES, start_theme, theme_variable_defaults

if TYPE_CHECKING:
    from textual.filter import LineFilter

    from openprogram.recordings import RecordReplayStatus


CONFIG_POLL_SECONDS = 1.0
"""How often the app looks whether the record/replay configuration changed on disk."""


def _config_stamp() -> tuple[int, int, int]:
    """The configuration file's inode, size and mtime (zeros when there is none: off)."""
    from openprogram.providers.recording.state_files import config_path

    try:
        info = config_path().stat()
    except OSError:
        return (0, 0, 0)
    return (info.st_ino, info.st_size, info.st_mtime_ns)


class OpenProgramTUI(App[None]):
    """Browse recordings call by call, step through events, and choose the next start's mode."""

    CSS_PATH = "app.tcss"
    TITLE = "openprogram-tui"
    COMMANDS = App.COMMANDS | {TuiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit"),
        # `q` quits on the first screen and goes back elsewhere, and the footer says which
        # (lazygit, posting). Priority bindings, so `q` is handled in the order typed, before
        # keys typed right after it reach the screen it closes; off while a field takes text.
        Binding("q", "quit_from_first_screen", "Quit", priority=True, id="quit-first-screen"),
        Binding("q", "back_from_key", "Back", priority=True, id="back"),
        Binding("question_mark,f1", "help", "Help", key_display="?", id="help"),
        Binding("s", "settings", "Settings", id="settings"),
        Binding(
            "ctrl+p,ctrl+k", "command_palette", "Commands", show=False, priority=True, id="commands"
        ),
        Binding("ctrl+t", "toggle_dark", "Light/dark", show=False, id="toggle-theme"),
    ]

    record_replay_status: reactive[RecordReplayStatus | None] = reactive(None)
    """What the next start does with record/replay (`read_status()`), shown by every `ModeBadge`."""

    def __init__(
        self,
        paths: Sequence[Path] = (),
        *,
        open_on_start: Path | None = None,
        start_at: GotoTarget | None = None,
        field: tuple[str | int, ...] | None = None,
        theme: str = DARK_THEME,
        check: Path | None = None,
        check_command: Sequence[str] = (),
        diff: tuple[Path, Path] | None = None,
        demo: bool = False,
        follow: bool = False,
    ) -> None:
        """`paths`: one opens it, several (or none) list them with the managed recordings.

        `open_on_start` opens that recording on top of the list (`q` goes back to the list);
        `start_at` and `field` say where in the recording opened first to begin; `check` checks
        that recording (with `check_command`, or the recorded one) and opens on the result.
        `demo`: the state directory is the demo's own, and the screens say so. `follow`: the
        recording opened first shows what is appended as it is written (without it, only the file
        the configuration records into is followed).
        """
        super().__init__()
        for app_theme in THEMES.values():
            self.register_theme(app_theme)
        self.paths = tuple(paths)
        self.open_on_start = open_on_start
        self.start_at = start_at
        self.field = field
        self.theme = theme
        self.check = check
        self.check_command = tuple(check_command)
        self.diff = diff
        self.demo = demo
        self.follow = follow
        self._visible_text = VisibleTextFilter()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters after `VisibleTextFilter`, which every drawn line passes: no text
        from a file reaches the terminal as a control character, whichever widget drew it."""
        return [self._visible_text, *super().get_line_filters()]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is text, never markup: messages quote file names, tool names and
        recorded values (`echo[/]` would end the app with a MarkupError)."""
        super().notify(
            visible(message),
            title=visible_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        # Opened once start-up is over, so the first frame of the recording is shown as soon as
        # it is drawn (Textual holds back frames drawn during start-up).
        self.call_later(self._open_first_screens)
        # `openprogram recordings off` in another shell changes what the next start does: the
        # configuration file is stat-ed every second (cheap) and the status read again when it
        # changed, so every mode badge follows.
        self._config_stamp = _config_stamp()
        self.set_interval(CONFIG_POLL_SECONDS, self._config_changed)

    def _config_changed(self) -> None:
        stamp = _config_stamp()
        if stamp != self._config_stamp:
            self._config_stamp = stamp
            self.refresh_status()

    def _open_first_screens(self) -> None:
        if self.diff is not None:
            from tui.screens.diff import DiffScreen

            self.refresh_status()
            self.push_screen(DiffScreen(*self.diff))
            return
        if self.check is not None:
            from tui.screens.check import CheckScreen

            self.refresh_status()
            self.push_screen(CheckScreen(self.check, self.check_command or None, edit_first=False))
            return
        if len(self.paths) == 1 and self.open_on_start is None:
            self.push_screen(self._first_recording(self.paths[0]))
            return  # the status is read once the first rows are on screen
        from tui.screens.recordings import RecordingsScreen

        self.refresh_status()
        self.push_screen(RecordingsScreen(self.paths, demo=self.demo))
        if self.open_on_start is not None:
            self.push_screen(self._first_recording(self.open_on_start))

    def _first_recording(self, path: Path) -> RecordingScreen:
        follow = True if self.follow else None  # None: follow it if it is being recorded into
        return RecordingScreen(path, self.start_at, self.field, follow=follow)

    def on_recording_screen_built(self) -> None:
        if self.record_replay_status is None:
            self.refresh_status()

    @work(thread=True, exclusive=True, group="status", exit_on_error=False)
    def refresh_status(self) -> None:
        """Read the record/replay status again (it scans the configured file, so in a thread)."""
        from openprogram.recordings import read_status

        status = read_status()
        self.call_from_thread(setattr, self, "record_replay_status", status)

    def on_call_open_requested(self, message: CallOpenRequested) -> None:
        """`o` in the check view, `o`/`O` in the diff view: that call in the recording screen, at
        the field (or event)."""
        if message.recording is None:
            return
        target = GotoTarget(message.call_index, message.event_index)
        field = tuple(message.path_tokens) if message.event_index is None else None
        self.push_screen(RecordingScreen(message.recording, target, field or None))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            KEYS.key_arrived()  # the indexers wait while this key is handled and drawn
        await super().on_event(event)

    @property
    def on_first_screen(self) -> bool:
        """True when `q` quits: no overlay, and no screen under this one to go back to."""
        return not isinstance(self.screen, ModalScreen) and len(self.screen_stack) <= 2

    def action_go_back(self) -> None:
        """Close the overlay or screen on top; on the first screen, quit."""
        if isinstance(self.screen, ModalScreen):
            self.screen.dismiss(None)
        elif len(self.screen_stack) > 2:
            self.pop_screen()
        else:
            self.exit()

    def action_quit_from_first_screen(self) -> None:
        self.exit()

    def action_back_from_key(self) -> None:
        self.action_go_back()

    @property
    def typing(self) -> bool:
        """True while the focused widget takes letters as text (a field, an editor, the search
        of an open select), so `q` is a letter there."""
        # By class name: importing TextArea and Select for isinstance would add a tenth of a
        # second to start-up, and the footer asks this while the first frame is drawn.
        focused = self.focused
        if focused is None:
            return False
        kinds = {cls.__name__ for cls in type(focused).__mro__}
        if "TextArea" in kinds:
            return not getattr(focused, "read_only", False)
        parent_kinds = {cls.__name__ for cls in type(focused.parent).__mro__}
        return "Input" in kinds or "Select" in parent_kinds

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen, help_intro, help_rows

        if isinstance(self.screen, HelpScreen):
            return
        title = type(self.screen).__name__.removesuffix("Screen") or "app"
        rows = help_rows(self, self.screen.active_bindings)
        self.push_screen(HelpScreen(rows, title, help_intro(self.screen)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quit_from_first_screen":
            return self.on_first_screen and not self.typing
        if action == "back_from_key":
            return not self.on_first_screen and not self.typing
        # Settings is hidden from the footer while it is the screen shown.
        return not (action == "settings" and type(self.screen).__name__ == "SettingsScreen")

    def action_settings(self) -> None:
        from tui.screens.settings import SettingsScreen

        if not any(isinstance(screen, SettingsScreen) for screen in self.screen_stack):
            self.push_screen(SettingsScreen(demo=self.demo))

    def action_recordings(self) -> None:
        from tui.screens.recordings import RecordingsScreen

        for screen in reversed(self.screen_stack):
            if isinstance(screen, RecordingsScreen):
                while self.screen is not screen:
                    self.pop_screen()
                return
        self.push_screen(RecordingsScreen(demo=self.demo))

    def action_goto(self) -> None:
        if isinstance(self.screen, RecordingScreen):
            self.screen.action_goto()
        else:
            self.notify("Open a recording first (enter on the list).", severity="warning")

    def action_toggle_dark(self) -> None:
        self.switch_theme(LIGHT_THEME if self.theme == DARK_THEME else DARK_THEME)

    def switch_theme(self, name: str) -> None:
        """Show the theme `name` now and remember it for the next start."""
        self.theme = name
        self._remember_theme(name)

    @work(thread=True, exclusive=True, group="theme-save", exit_on_error=False)
    def _remember_theme(self, name: str) -> None:
        from openprogram.providers.recording.config import ConfigError
        from tui.model.state_dir import save_theme

        try:
            save_theme(name)
        except (OSError, ConfigError) as exc:
            message = f"The theme is not remembered for the next start: {exc}"
            self.call_from_thread(self.notify, message, severity="warning")


def _usage_error(message: str) -> int:
    print(f"openprogram-tui: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the app; returns the exit status."""
    own, command = split_command(sys.argv[1:] if argv is None else argv)
    if own[:1] == ["diff"]:
        from tui.diff_command import diff_main

        return diff_main(own[1:], OpenProgramTUI)
    args = parse_arguments(own)
    try:
        paths = [recording_path(str(path)) for path in args.paths]
        check = check_recording_path(args.check) if args.check else None
    except RecordingArgumentError as exc:
        return _usage_error(str(exc))
    if command and check is None:
        return _usage_error("a COMMAND after -- needs --check PATH")
    theme = start_theme(args.light, args.dark)
    demo_home: Path | None = None
    demo_path: Path | None = None
    try:
        with ending_signals_raise_system_exit():
            if args.demo:
                from tui.model.demo import new_demo_home, prepare_demo_home

                demo_home = new_demo_home()
                demo_path = prepare_demo_home(demo_home)
            app = OpenProgramTUI(
                paths,
                open_on_start=demo_path,
                start_at=args.call,
                field=args.field,
                theme=theme,
                check=check,
                check_command=command,
                demo=args.demo,
                follow=args.follow,
            )
            with ending_signals_exit_app(app):
                app.run()
    finally:
        if demo_home is not None:
            shutil.rmtree(demo_home, ignore_errors=True)
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
