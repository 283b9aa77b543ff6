"""The plugin's pieces without pytester: mode resolution, commands, file names, the override."""

from __future__ import annotations

import shlex
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import (
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    get_api_provider,
    register_api_provider,
)
from openprogram.providers.api_registry import ApiProvider, UnknownApiError, wrap_api_providers
from openprogram.providers.recording.differences import MISSING, FieldDifference
from openprogram.providers.replay import MismatchReport, ReplayMismatch
from openprogram.pytest_plugin import ALIASES, CHOICES, resolve_record_mode
from openprogram.testing import RECORD_MODES, tui_command
from openprogram.testing.session import RECORD_MODE_ALIASES, OpenProgramRecording
from openprogram.text import file_stem
from tests.recording_files import write_recording


class Named:
    """A provider that is never streamed, told apart by name."""

    requires_credentials = False

    def __init__(self, name: str) -> None:
        self.name = name

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        raise AssertionError("not streamed")
        yield

    stream_simple = stream


class Wrapped(Named):
    def __init__(self, api: str, inner: ApiProvider) -> None:
        super().__init__(f"wrapped {api}")
        self.inner = inner


def test_the_plugin_and_the_library_agree_on_the_modes() -> None:
    assert CHOICES == RECORD_MODES == ("none", "once", "rewrite", "accept", "rerecord")
    assert ALIASES == RECORD_MODE_ALIASES == {"resume": "rerecord"}


@pytest.mark.parametrize(("option", "ini"), [("resume", "none"), (None, "resume")])
def test_resume_still_names_rerecord_for_existing_ci_files(option: str | None, ini: str) -> None:
    assert resolve_record_mode(option, ini, {}) == ("rerecord", None)


@pytest.mark.parametrize(
    ("option", "ini", "ci", "expected"),
    [
        (None, "none", None, "none"),
        (None, "", None, "none"),
        (None, "once", None, "once"),
        (None, "rewrite", "", "rewrite"),  # CI set but empty is not CI
        (None, "once", "false", "once"),
        (None, "once", "true", "none"),
        (None, "rewrite", "1", "none"),
        ("once", "none", "true", "once"),  # asked for on the command line: records even in CI
        ("rewrite", "once", None, "rewrite"),
        ("none", "once", None, "none"),
    ],
)
def test_record_mode_resolution(
    option: str | None, ini: str, ci: str | None, expected: str
) -> None:
    environ = {} if ci is None else {"CI": ci}
    mode, reason = resolve_record_mode(option, ini, environ)
    assert mode == expected
    assert (reason is not None) == (option is None and expected == "none" and ci in ("true", "1"))


def test_an_unknown_ini_mode_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match="unknown record mode 'always'"):
        resolve_record_mode(None, "always", {})


def _request_mismatch(
    call_index: int, tokens: tuple[str | int, ...], **values: Any
) -> ReplayMismatch:
    recorded, incoming = values.get("recorded", MISSING), values.get("incoming", MISSING)
    kind = "changed" if recorded is not MISSING and incoming is not MISSING else "added"
    difference = FieldDifference(tokens, recorded, incoming, kind)
    return ReplayMismatch(MismatchReport.of_difference(call_index, difference, {}, {}))


def test_the_tui_command_quotes_fields_and_paths_for_the_shell() -> None:
    field = """context.messages[0]["it's"]"""
    tokens = ("context", "messages", 0, "it's")
    mismatch = _request_mismatch(3, tokens, recorded="a", incoming="b")
    assert mismatch.field_path == field
    command = tui_command("my recordings/x.jsonl", mismatch)
    assert shlex.split(command) == [
        "openprogram-tui",
        "my recordings/x.jsonl",
        "--call",
        "3",
        "--field",
        field,
    ]
    simple = _request_mismatch(0, ("model", "id"), recorded="a", incoming="b")
    assert tui_command("x.jsonl", simple) == "openprogram-tui x.jsonl --call 0 --field model.id"
    past_end = ReplayMismatch(MismatchReport.of_call("extra_call", 2, "more calls"))
    assert tui_command("x.jsonl", past_end) == "openprogram-tui x.jsonl"
    remaining = ReplayMismatch(MismatchReport.of_call("unconsumed", 1, "left"))
    assert tui_command("x.jsonl", remaining) == "openprogram-tui x.jsonl --call 1"
    missing = _request_mismatch(0, ("options", "x"), incoming=1)
    assert tui_command("x.jsonl", missing).endswith("--field options.x")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("test_a", "test_a"),
        ("TestGroup::test_a", "TestGroup.test_a"),
        ("test_a[1-x]", "test_a[1-x]"),
        ("test_a[x=1,y=2]", "test_a[x=1,y=2]"),
    ],
)
def test_safe_names_are_kept(name: str, expected: str) -> None:
    assert file_stem(name) == expected


def test_unsafe_names_are_replaced_and_kept_apart() -> None:
    spaced, underscored = file_stem("test_a[a b]"), file_stem("test_a[a_b]")
    assert spaced != underscored and "/" not in file_stem("test_a[../../etc]")
    assert spaced.startswith("test_a[a_b]-")
    assert len(file_stem("test_" + "x" * 500)) <= 130


def test_a_wrapper_wraps_every_api_including_later_registrations() -> None:
    first, later = Named("first"), Named("later")
    register_api_provider("a", first)
    wrapped: list[Wrapped] = []

    def wrap(api: str, provider: ApiProvider) -> ApiProvider:
        wrapped.append(Wrapped(api, provider))
        return wrapped[-1]

    with wrap_api_providers(wrap):
        seen = get_api_provider("a")
        assert isinstance(seen, Wrapped) and seen.inner is first
        assert get_api_provider("a") is seen  # wrapped once per underlying provider
        builtin = get_api_provider("scripted")
        assert isinstance(builtin, Wrapped) and builtin.name == "wrapped scripted"
        register_api_provider("a", later)
        again = get_api_provider("a")
        assert isinstance(again, Wrapped) and again.inner is later
        with pytest.raises(UnknownApiError):
            get_api_provider("nope")
    assert get_api_provider("a") is later
    assert not isinstance(get_api_provider("scripted"), Wrapped)


def test_wrappers_nest_and_are_removed_on_error() -> None:
    register_api_provider("a", Named("a"))
    with pytest.raises(ValueError), wrap_api_providers(lambda api, provider: Named("x")):
        with wrap_api_providers(lambda api, provider: Named("y")):
            assert get_api_provider("a").name == "y"  # type: ignore[attr-defined]
        assert get_api_provider("a").name == "x"  # type: ignore[attr-defined]
        raise ValueError("the test failed")
    assert isinstance(get_api_provider("a"), Named) and get_api_provider("a").name == "a"  # type: ignore[attr-defined]


def partial_file(folder: Path) -> Path:
    (partial,) = (entry for entry in folder.iterdir() if entry.name.endswith(".partial"))
    return partial


def test_a_recording_the_strict_reader_refuses_is_not_saved_and_the_old_one_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no project rules
    path = write_recording(tmp_path / "said.jsonl")
    old = path.read_bytes()
    session = OpenProgramRecording(path, "rewrite", node_id="test_said")
    session.start()
    with partial_file(tmp_path).open("ab") as partial:
        partial.write(b"not a row\n")
    reason = session.finish(passed=True)
    assert reason is not None
    assert reason.startswith(f"openprogram: the recording was not saved to {path}: ")
    assert path.read_bytes() == old
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("passed", [False, True])
def test_an_accept_run_that_saves_nothing_keeps_the_recording_and_no_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, passed: bool
) -> None:
    """A failed test saves nothing; a passing one that never made the recorded call is told so."""
    monkeypatch.chdir(tmp_path)
    path = write_recording(tmp_path / "said.jsonl")
    old = path.read_bytes()
    session = OpenProgramRecording(path, "accept", node_id="test_said")
    session.start()
    assert partial_file(tmp_path).exists()
    reason = session.finish(passed=passed)
    if passed:
        assert reason is not None and reason.startswith("openprogram: not accepted\n")
    else:
        assert reason is None
    assert path.read_bytes() == old
    assert list(tmp_path.iterdir()) == [path]
