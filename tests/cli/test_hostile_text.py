"""A recording from someone else is data: what `show`, `show --textconv` (the `git diff` path) and
`check` print never holds a character a terminal would interpret. The hostile files are made here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.recording_files import REPO_ROOT, run_cli, subprocess_env, write_recording
from tests.tui.test_e2e_tmux import Terminal

TITLE = "\x1b]0;PWNED-TITLE\x07"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"  # OSC 52: write "pwned" to the clipboard
HOSTILE = [
    f"hello {TITLE} world",
    f"copy {CLIPBOARD} this",
    "clear \x1b[2J\x1b[H the screen, alt \x1b[?1049h, mouse \x1b[?1000h\x1b[?1006h",
    "reply \x1b[6n \x1bZ please",  # asks the terminal to type an answer into the shell
    "8-bit CSI \x9b31m and OSC \x9d0;x\x9c",
    "bidi \u202eevil\u202c and zero\u200bwidth",
    "markup [bold red]x[/] [link=https://e.example]y[/link] echo[/] [/bold]",
]
INTERPRETED = ["\x1b", "\x07", "\x9b", "\x9d", "\u202e", "\u200b"]


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return write_recording(tmp_path / "hostile.jsonl", said=HOSTILE)


@pytest.mark.parametrize("view", [[], ["--textconv"], ["--content"]])
def test_show_prints_every_escape_as_a_visible_mark(
    openprogram_home: Path, hostile: Path, view: list[str]
) -> None:
    done = run_cli(openprogram_home, "show", str(hostile), *view)
    assert done.returncode == 0, done.stderr
    for character in INTERPRETED:
        assert character not in done.stdout and character not in done.stderr, repr(character)
    if view == ["--textconv"]:
        assert "hello ␛]0;PWNED-TITLE␇ world" in done.stdout
        assert "bidi <U+202E>evil<U+202C>" in done.stdout
        assert "[bold red]x[/]" in done.stdout  # markup is text


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**subprocess_env(cwd / "home"), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd)}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@e", "GIT_PAGER": "cat", "PAGER": "cat"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)


def textconv_repo(tmp_path: Path) -> Path:
    """A repository whose recordings diff through the documented textconv; the hostile text
    arrives in a commit."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    textconv = f"{sys.executable} -m openprogram recordings show --textconv"
    git(repo, "config", "diff.openprogram.textconv", textconv)
    (repo / ".gitattributes").write_text("*.jsonl diff=openprogram\n")
    write_recording(repo / "session.jsonl", said=["hello"])
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "first")
    write_recording(repo / "session.jsonl", said=HOSTILE)
    return repo


def test_git_diff_through_the_textconv_shows_escapes_as_text(tmp_path: Path) -> None:
    repo = textconv_repo(tmp_path)
    done = git(repo, "diff")
    assert done.returncode == 0, done.stderr
    assert "PWNED-TITLE" in done.stdout  # the text is there, to read
    for character in INTERPRETED:
        assert character not in done.stdout, repr(character)


def watch_terminal(terminal: Terminal) -> str:
    """Let the terminal take title and clipboard writes (as a user's may); its title now."""
    terminal.tmux("set-option", "-g", "set-clipboard", "on")
    terminal.tmux("set-option", "-g", "allow-rename", "on")
    return terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_title}").stdout.strip()


def assert_terminal_as_it_was(terminal: Terminal, title_before: str) -> None:
    """Title and window name unchanged, no alternate screen or mouse mode left on, and no
    clipboard write (OSC 52 fills a tmux buffer)."""
    state = terminal.tmux(
        "display", "-p", "-t", terminal.name,
        "#{pane_title}|#{alternate_on}|#{mouse_any_flag}|#{mouse_standard_flag}|#{window_name}",
    ).stdout.strip()  # fmt: skip
    title, alternate, mouse_any, mouse_standard, window = state.split("|")
    assert "PWNED" not in title and title == title_before
    assert "PWNED" not in window
    assert (alternate, mouse_any, mouse_standard) == ("0", "0", "0")
    assert terminal.tmux("list-buffers").stdout == ""


@pytest.mark.e2e
def test_a_real_terminal_keeps_its_title_clipboard_and_modes_after_git_diff(
    tmp_path: Path,
) -> None:
    if shutil.which("tmux") is None or shutil.which("git") is None:
        pytest.skip("tmux and git are needed")
    repo = textconv_repo(tmp_path)
    env = subprocess_env(repo / "home")
    assignments = " ".join(
        f"{key}={env[key]}" for key in ("PYTHONPATH", "OPENPROGRAM_HOME", "PATH") if key in env
    )
    script = repo / "show.sh"
    script.write_text(
        f"export {assignments} GIT_CONFIG_NOSYSTEM=1 HOME={repo} GIT_PAGER=cat\n"
        f"cd {repo} && git diff; cd {REPO_ROOT} && "
        f"{sys.executable} -m openprogram recordings show --textconv {repo / 'session.jsonl'}\n"
        "echo DONE-SHOWING; exec sleep 30\n"
    )
    terminal = Terminal("optui-hostile")
    assert terminal.start(f"sh {script}")
    try:
        before = watch_terminal(terminal)
        terminal.wait_for("DONE-SHOWING")
        assert_terminal_as_it_was(terminal, before)  # no OSC 52 clipboard write
        assert "␛]0;PWNED-TITLE␇" in terminal.screen()
    finally:
        terminal.close()


def hostile_session(path: Path) -> Path:
    """A recording whose request and answer hold escapes, markup and bidi text, with a tool whose
    name is markup that does not parse (`echo[/]`)."""
    import asyncio

    from openprogram.providers import Context, TextContent, ToolResultMessage, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.stream import drain
    from tests.providers.test_streamed_redaction import MODEL, PiecesProvider

    context = Context(
        system_prompt=HOSTILE[0],
        messages=[
            UserMessage(content="\n".join(HOSTILE), timestamp=1),
            ToolResultMessage(
                tool_call_id="c1", tool_name="echo[/]", timestamp=2,
                content=[TextContent(text=HOSTILE[1] + HOSTILE[-1])],
            ),
        ],
    )  # fmt: skip

    async def run() -> None:
        recorder = RecordingProvider(PiecesProvider(["ok ", HOSTILE[2], HOSTILE[5]]), path)
        try:
            await drain(recorder.stream(MODEL, context))
        finally:
            recorder.sink.close()

    asyncio.run(run())
    return path


@pytest.mark.e2e
def test_the_tui_shows_a_hostile_recording_as_text_and_leaves_the_terminal_as_it_was(
    tmp_path: Path,
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is needed")
    from tests.tui.test_e2e_tmux import tui_command

    path = hostile_session(tmp_path / "hostile.jsonl")
    env = subprocess_env(tmp_path / "home")
    script = tmp_path / "tui.sh"
    script.write_text(
        f"export PYTHONPATH={env['PYTHONPATH']} OPENPROGRAM_HOME={tmp_path / 'home'}\n"
        "export TERM=xterm-256color TEXTUAL_ANIMATIONS=none\nunset COLUMNS LINES\n"
        f"{' '.join(tui_command())} {path}\necho TUI-ENDED; exec sleep 30\n"
    )
    terminal = Terminal("optui-hostile-tui")
    assert terminal.start(f"sh {script}")
    try:
        before = watch_terminal(terminal)
        # The transcript's boxes are built (the tool result's titled `echo[/]`, which as markup
        # would end the app) and the text is shown as text.
        screen = terminal.wait_for("hostile.jsonl", "␛]0;PWNED-TITLE␇", "<U+202E>evil")
        assert "[bold red]x[/]" in screen
        for _ in range(3):  # Events, Response, Raw: every tab draws the same text as text
            terminal.keys("]")
        terminal.wait_for("lines as stored", "<U+202E>evil<U+202C>", "<U+009B>31m")
        terminal.keys("C-q")
        terminal.wait_for("TUI-ENDED")
        assert_terminal_as_it_was(terminal, before)
    finally:
        terminal.close()


HUGE_NUMBER = '{"type":"header","format_version":2,"x":' + "9" * 5000 + "}\n"
DEEP_HEADER = '{"type":"header","format_version":2,"x":' + "[" * 100_000 + "]" * 100_000 + "}\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [(HUGE_NUMBER, "number too long"), (DEEP_HEADER, "nests JSON too deeply")],
    ids=["4300-digit-number", "nested-100000-deep"],
)
def test_numbers_and_nesting_past_the_bounds_are_one_line_and_break_no_listing(
    openprogram_home: Path, tmp_path: Path, text: str, reason: str
) -> None:
    from openprogram.recordings import managed_path
    from tui.model.state_dir import version_note

    write_recording(managed_path("fine"), said=["hi"])
    hostile = managed_path("hostile")
    hostile.write_text(text)
    hostile.chmod(0o600)
    listed = run_cli(openprogram_home, "list")
    assert listed.returncode == 0, listed.stderr
    assert "fine" in listed.stdout and "hostile" in listed.stdout
    shown = run_cli(openprogram_home, "show", "hostile")
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    assert (
        f"line 1: line {reason}" in shown.stdout or f"line 1: line holds a {reason}" in shown.stdout
    )
    assert version_note(hostile) is None  # the TUI's header note: no RecursionError, no error


FORGED_RULE = "\n  9  ignore context  (pyproject.toml)"
FORGED_STATUS = "\nstatus:    valid"
FORGED_FOLDER = "\n  in:      /a/folder/you/trust"


def forging(path: Path) -> Path:
    """A recording whose header values hold newlines followed by lines the tools print
    themselves (a rule line, `status: valid`, the folder a command runs in), after one row that
    makes the file invalid."""
    header = {
        "note": f"hello{FORGED_STATUS}",
        "rules": {
            "ignore": [f'options.metadata["x{FORGED_RULE}"]'],
            "normalize": [
                {"path": "context.system_prompt", "pattern": f"a{FORGED_RULE}", "replace": "b"},
                {"path": "context.system_prompt", "pattern": "c", "replace": f"d{FORGED_RULE}"},
            ],
        },
        "entry": {"argv": ["python", f"agent.py{FORGED_FOLDER}"], "cwd": f"/tmp{FORGED_FOLDER}"},
    }
    write_recording(path, said=["hi"], header=header)
    with path.open("a") as file:
        file.write('{"type": "event", "not": "a row"}\n')
    return path


def test_a_newline_in_a_header_value_shows_as_a_mark_and_forges_no_line(
    openprogram_home: Path, tmp_path: Path
) -> None:
    path = forging(tmp_path / "forging.jsonl")

    rules = run_cli(openprogram_home, "rules", str(path))
    assert rules.returncode == 0, rules.stderr
    listed = rules.stdout.splitlines()
    assert [line.split()[0] for line in listed] == ["1", "2", "3"], rules.stdout
    assert all(line.endswith("(recording header)") for line in listed), rules.stdout
    assert f"x{FORGED_RULE}".replace("\n", "␊") in rules.stdout

    shown = run_cli(openprogram_home, "show", str(path))
    statuses = [line for line in shown.stdout.splitlines() if line.startswith("status:")]
    assert len(statuses) == 1 and "valid" not in statuses[0].split()[1:2], shown.stdout
    assert f"hello{FORGED_STATUS}".replace("\n", "␊") in shown.stdout

    asked = run_cli(openprogram_home, "check", str(path))
    assert asked.returncode == 2, asked.stderr
    folders = [line for line in asked.stderr.splitlines() if line.lstrip().startswith("in:")]
    assert folders == [f"  in:      /tmp{FORGED_FOLDER}".replace("\n", "␊")], asked.stderr
