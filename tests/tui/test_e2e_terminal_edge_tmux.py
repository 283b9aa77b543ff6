"""A recording whose every string holds escape sequences, walked through every screen and tab of
the real `openprogram-tui` in tmux: after every key the terminal keeps its title, its clipboard and
its modes, and no control character from the file is among the bytes the app wrote."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_hostile_text import assert_terminal_as_it_was
from tests.tui.conftest import write_private
from tests.tui.test_e2e_tmux import DEADLINE, Terminal, tui_line

pytestmark = pytest.mark.e2e

HOSTILE = (
    " \x1b]52;c;aGk=\x07"  # OSC 52: write "hi" to the clipboard
    "\x1b]0;PWNED-TITLE\x07\x1b]2;PWNED-NAME\x1b\\"  # OSC 0 and 2: the window title
    "\x1bkPWNED-WINDOW\x1b\\"  # the window's name (screen, tmux)
    "\x1b[?1049l\x1b[?1000l\x1b[2J"  # CSI: leave the alternate screen, mouse off, clear
    "\x9b31m\x90q\x9c\x07\u202eZ"  # 8-bit CSI, DCS and ST, BEL, a bidi override
)
SHOWN = "␛]52;c;aGk="
"""How the start of `HOSTILE` looks on screen (BEL is dropped by Rich before any filter)."""
FROM_THE_FILE = [
    b"\x1b]52;",
    b"\x1b]0;",
    b"\x1b]2;",
    b"\x1bk",
    b"\x1b[?1049l\x1b[?1000l",
    b"TITLE\x07",  # BEL as the file has it (the app ends its own OSC 22 with BEL)
    *(char.encode() for char in "\x9b\x90\x9c\u202e"),
]
"""What the app never writes: the file's sequences and characters (the app's own CSI are fine)."""
ENUMS = {"type", "role", "stop_reason", "outcome", "reason"}
"""Keys whose values the reader checks against a fixed set: every other string holds `HOSTILE`."""
STATE = (
    "#{pane_title}|#{window_name}|#{alternate_on}|#{mouse_any_flag}|#{mouse_standard_flag}"
    "|#{mouse_button_flag}|#{mouse_sgr_flag}|#{mouse_utf8_flag}|#{keypad_flag}|#{wrap_flag}"
)


def hostile(value: Any, key: str | None = None) -> Any:
    """`value` with `HOSTILE` after every string (JSON keys stay: they name fields)."""
    if isinstance(value, str):
        return value if key in ENUMS else value + HOSTILE
    if isinstance(value, list):
        return [hostile(item, key) for item in value]
    if isinstance(value, dict):
        return {name: hostile(item, name) for name, item in value.items()}
    return value


def hostile_copy(demo_bytes: bytes, folder: Path) -> bytes:
    """The demo session with `HOSTILE` in every string, storing a command that runs in `folder`
    (a real folder whose name holds `HOSTILE`)."""
    rows = [json.loads(line) for line in demo_bytes.splitlines() if line.strip()]
    rows = [hostile(row) for row in rows]
    # The command must start: only its last argument holds the escapes (the folder is real).
    argv = [sys.executable, "-m", "tui.demo_agent", f"bye{HOSTILE}"]
    rows[0]["entry"] = {"argv": argv, "cwd": str(folder)}
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


class Watched:
    """The terminal running the TUI, with its state as the app set it up; `press` sends keys, waits
    for what they bring on screen, and asserts that state is unchanged."""

    def __init__(self, terminal: Terminal, stream: Path) -> None:
        self.terminal = terminal
        self.stream = stream
        self.state = ""

    def current(self) -> str:
        return self.terminal.tmux("display", "-p", "-t", self.terminal.name, STATE).stdout.strip()

    def press(self, keys: str, *shown: str, gone: str = "") -> str:
        """Send `keys` (one tmux key name, or several split by spaces), wait until every `shown`
        text is on screen and `gone` is not; assert the terminal's state and clipboard."""
        self.terminal.keys(*keys.split())
        deadline = time.monotonic() + DEADLINE
        screen = self.terminal.screen()
        while not (all(text in screen for text in shown) and not (gone and gone in screen)):
            assert time.monotonic() < deadline, f"{shown} / not {gone!r}:\n{screen}"
            time.sleep(0.05)
            screen = self.terminal.screen()
        assert self.current() == self.state, (self.state, self.current())
        assert self.terminal.tmux("list-buffers").stdout == ""  # no OSC 52 clipboard write
        return screen

    def quit(self) -> None:
        """Quit the app; assert that none of the file's sequences was among the bytes it wrote."""
        self.terminal.keys("C-q")
        self.terminal.wait_for("TUI-ENDED")
        assert_terminal_as_it_was(self.terminal, self.state.split("|")[0])
        written = self.stream.read_bytes()
        for sequence in FROM_THE_FILE:
            at = written.find(sequence)
            assert at == -1, (sequence, written[max(0, at - 80) : at + 40])


@pytest.fixture
def watched(tmp_path: Path, openprogram_home: Path, demo_bytes: bytes) -> Iterator[Watched]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    from openprogram.recordings import managed_path

    folder = tmp_path / f"project{HOSTILE}"  # a real folder, named as the file says
    folder.mkdir()
    write_private(managed_path("hostile"), hostile_copy(demo_bytes, folder))
    write_private(managed_path("plain"), demo_bytes)
    managed_path("plain").parent.chmod(0o700)
    stream = tmp_path / "written.bin"
    terminal = Terminal("optui-edge")
    script = tmp_path / "tui.sh"
    ready = f"tmux -L {shlex.quote(terminal.socket)} wait-for ready"
    app = tui_line(openprogram_home).removeprefix("exec ")
    script.write_text(f"{ready}\n{app}\necho TUI-ENDED\nexec sleep 60\n")
    assert terminal.start(f"sh {shlex.quote(str(script))}")
    try:
        # The title and the clipboard are the terminal's to change, as a user's terminal lets
        # them be; every byte the app writes is kept. Then the app starts.
        terminal.tmux("set-option", "-g", "set-clipboard", "on")
        terminal.tmux("set-option", "-g", "allow-rename", "on")
        terminal.tmux("set-option", "-g", "automatic-rename", "off")
        terminal.tmux("pipe-pane", "-o", "-t", terminal.name, f"cat >> {shlex.quote(str(stream))}")
        terminal.tmux("wait-for", "-S", "ready")
        yield Watched(terminal, stream)
    finally:
        terminal.close()


def test_no_escape_from_a_recording_reaches_the_terminal_on_any_screen_or_tab(
    watched: Watched,
) -> None:
    terminal = watched.terminal
    title = terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_title}").stdout.strip()
    terminal.wait_for("Recordings", "hostile", "plain")
    watched.state = watched.current()
    assert watched.state.startswith(f"{title}|") and "PWNED" not in watched.state
    # Escape is pressed alone: with the next key in the same write it would read as alt+key.
    watched.press("?", "Help · Recordings")
    watched.press("Escape", "Created (UTC)", gone="Help ·")
    watched.press("s", "apply on the next start")
    watched.press("Escape", "Created (UTC)", gone="apply on the next start")
    # The recording view: each tab, each event of the first call, then a call with a tool call.
    watched.press("Enter", "hostile.jsonl", "Transcript", SHOWN)
    watched.press("]", "Events · ", SHOWN)
    watched.press("Enter j j", "Assembled from events 0–2 of 31 events")
    watched.press("G", "Assembled from events 0–30 of 31 events")
    watched.press("]", "Final message of call 0", SHOWN)
    watched.press("]", "lines as stored", SHOWN)
    watched.press("t", "5 calls · ", "· axis")
    watched.press("t", "lines as stored", gone="· axis")
    watched.press("J", "lines as stored, from line 35", SHOWN)  # call 1, tabs backwards
    watched.press("[", "Final message of call 1", SHOWN)
    watched.press("[", "Events · ", SHOWN, gone="Final message")
    watched.press("[", "New in this call (since call 0)", SHOWN, gone="Events · ")
    watched.press("u", "Request JSON", SHOWN, gone="press u to unfold")
    # The check dialog shows the stored command and its folder; enter runs it.
    watched.press("r", "Check hostile.jsonl", "Will run: ", "Runs in ", SHOWN)
    # The check screen: each difference of the mismatch, then the rule and accept dialogs.
    watched.press("Enter", "mismatch · ", "difference 1 of 12", SHOWN)
    for number in range(2, 13):
        watched.press("n", f"difference {number} of 12", SHOWN)
    watched.press("z", "Normalise this field before comparing")
    watched.press("Escape", "difference 12 of 12", gone="Normalise this field")
    watched.press("i", "Ignore this field in every comparison")
    watched.press("Escape", "difference 12 of 12", gone="Ignore this field")
    watched.press("a", "Accept the new requests")
    watched.press("Escape", "mismatch · ", gone="Accept the new requests")
    watched.press("u", "Matching rules in force for hostile.jsonl")
    watched.press("Escape", "mismatch · ", gone="Matching rules in force")
    watched.press("e", "Check hostile.jsonl", "Will run: ", "Runs in ")
    watched.press("Escape", "mismatch · ", gone="Will run: ")
    # The diff view: the file against the plain demo it was made from, call by call.
    watched.press("q", "Request JSON", gone="mismatch · ")
    watched.press("q", "Created (UTC)", gone="Request JSON")
    watched.press("space", "[A]")
    watched.press("j space", "[B]")
    watched.press("d", "Diff hostile.jsonl ↔ plain.jsonl", "difference 1 of 12", SHOWN)
    watched.press("n", "difference 2 of 12", SHOWN)
    watched.press("]", "Tool calls", "tool_calls[0].name", SHOWN)
    watched.press("[", "difference 2 of 12", gone="Tool calls")
    for call in range(1, 5):
        watched.press("j", f"call {call} › ", SHOWN)
    watched.press("o", "hostile.jsonl format 2", gone="Diff hostile.jsonl")
    watched.press("q", "Diff hostile.jsonl", gone="hostile.jsonl format 2")
    watched.press("q", "Created (UTC)", gone="Diff hostile.jsonl")
    watched.quit()
