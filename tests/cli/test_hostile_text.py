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
        terminal.tmux("set-option", "-g", "set-clipboard", "on")
        terminal.tmux("set-option", "-g", "allow-rename", "on")
        before = terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_title}").stdout
        terminal.wait_for("DONE-SHOWING")
        state = terminal.tmux(
            "display", "-p", "-t", terminal.name,
            "#{pane_title}|#{alternate_on}|#{mouse_any_flag}|#{mouse_standard_flag}|#{window_name}",
        ).stdout.strip()  # fmt: skip
        title, alternate, mouse_any, mouse_standard, window = state.split("|")
        assert "PWNED" not in title and title == before.strip()
        assert "PWNED" not in window
        assert (alternate, mouse_any, mouse_standard) == ("0", "0", "0")
        assert terminal.tmux("list-buffers").stdout == ""  # no OSC 52 clipboard write
        assert "␛]0;PWNED-TITLE␇" in terminal.screen()
    finally:
        terminal.close()
