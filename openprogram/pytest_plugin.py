"""pytest plugin: deterministic agent-loop tests with one fixture or one marker.

Loaded automatically when openprogram is installed (the `pytest11` entry point `openprogram`).
A test that requests the `openprogram_recording` fixture, or carries
`@pytest.mark.openprogram_recording(...)`, has every provider api answered from its own recording,
`<test dir>/recordings/<module>/<test>.jsonl`, and fails at teardown when recorded calls were never
made. `--openprogram-record=none|once|rewrite` chooses whether missing (or all) recordings are made
from the real providers; `accept` replays offline and keeps the requests that changed (with the
recorded answers); a recording is saved only when its test passes.

This module imports only pytest at start-up; openprogram's providers are imported when a test first
uses the fixture (so coverage tools and unrelated test suites are unaffected).
"""

from __future__ import annotations

import math
import os
import shlex
import sys
from collections.abc import Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from openprogram.text import file_stem, plural

if TYPE_CHECKING:
    from openprogram.providers.recording.rules import MatchingRules
    from openprogram.providers.recording.stream_faults import FaultKind, StreamFault
    from openprogram.recordings.unused import UnusedCheck
    from openprogram.testing.session import OpenProgramRecording, RecordMode

MARKER = "openprogram_recording"
FIXTURE = "openprogram_recording"
OPTION = "--openprogram-record"
INI_MODE = "openprogram_record_mode"
RECORDINGS_DIR = "recordings"
"""The directory, next to each test module, that holds `<module>/<test>.jsonl`."""

CHOICES: tuple[RecordMode, ...] = ("none", "once", "rewrite", "accept", "rerecord")  # RECORD_MODES
ALIASES: dict[str, RecordMode] = {
    "resume": "rerecord"
}  # RECORD_MODE_ALIASES: `resume` is in users' CI files
FAULTS_OPTION = "--openprogram-faults"
FAULT_PARAMETER = "openprogram_fault"
"""The parameter (and fixture) that holds a test's stream fault under `--openprogram-faults`."""
UNUSED_OPTION = "--openprogram-unused"
REPORT_OPTION = "--openprogram-report"
ANNOTATIONS_OPTION = "--openprogram-annotations"
_ANNOTATION_PROPERTY = "openprogram_annotation"
_WRITTEN_PROPERTY = "openprogram_written"
CI_FALSE_VALUES = ("", "0", "false", "no", "off")

_MODE_KEY = pytest.StashKey[tuple["RecordMode", "str | None"]]()
_ACTIVE_KEY = pytest.StashKey[set["OpenProgramRecording"]]()
_REPORTS_KEY = pytest.StashKey[dict[str, pytest.TestReport]]()
_RECORDING_KEY = pytest.StashKey["OpenProgramRecording"]()
_UNUSED_KEY = pytest.StashKey["UnusedCheck"]()
_DESELECTED_KEY = pytest.StashKey[int]()
_FAULT_KINDS_KEY = pytest.StashKey[tuple["FaultKind", ...]]()
_WORKER_UNUSED = "openprogram_unused"


def _pace(text: str) -> float:
    """A positive, finite factor (argparse's type for `--openprogram-pace`)."""
    pace = float(text)
    if not (math.isfinite(pace) and pace > 0):
        raise ValueError(text)
    return pace


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--openprogram-record` and the `openprogram_record_mode` ini default."""
    group = parser.getgroup("openprogram", "openprogram recordings")
    group.addoption(
        OPTION,
        dest="openprogram_record",
        choices=(*CHOICES, *ALIASES),
        default=None,
        help="none: replay recordings only (default; a missing one fails); once: record the "
        "missing ones from the real providers; rewrite: record every used one again; accept: replay "
        "offline, keep the recorded answers and accept the requests that changed; rerecord (or its "
        "older name resume): replay the calls that match, record the rest from the real providers. "
        "A recording "
        "is saved only when its test passes. With CI set, only this option enables recording.",
    )
    group.addoption(
        "--openprogram-pace",
        dest="openprogram_pace",
        type=_pace,
        default=None,
        metavar="FACTOR",
        help="replay recorded events at the recorded pace times FACTOR (1: as recorded, 2: twice "
        "as fast); default: at once. For timeouts, streaming UIs and cancellation.",
    )
    group.addoption(
        FAULTS_OPTION,
        dest="openprogram_faults",
        metavar="KINDS",
        default=None,
        help="replay: run each recording test once per stream fault of its recording, each a "
        "test id of its own (test[cut@1]): KINDS is all or some of cut,error,stall,cancel, "
        "against each recorded call; the `openprogram_fault` fixture gives the test its fault",
    )
    group.addoption(
        "--openprogram-stall",
        dest="openprogram_stall",
        type=_pace,
        default=None,
        metavar="S",
        help="how long a stall fault lasts (default 120 s, past the HTTP providers' read timeout)",
    )
    group.addoption(
        UNUSED_OPTION,
        dest="openprogram_unused",
        choices=("warn", "fail"),
        default=None,
        help="after the session, list the recordings (*.jsonl under the recordings/ folder beside "
        "each collected test module) that no collected test uses; fail makes the run fail when "
        "there are any. Checked only when the whole suite was collected (no paths or ids given, "
        "nothing deselected, no collection error). `openprogram recordings prune --unused` "
        "removes what the last complete check found.",
    )
    group.addoption(
        REPORT_OPTION,
        dest="openprogram_report",
        metavar="DIR",
        default=None,
        help="for each test that fails on its recording, write DIR/<test id>.json (the shape of "
        "`openprogram recordings check --json`) and name it in the failure: for a CI artifact",
    )
    group.addoption(
        ANNOTATIONS_OPTION,
        dest="openprogram_annotations",
        action="store_true",
        default=False,
        help="print a GitHub Actions `::error file=...,line=...::` line per test that failed on "
        "its recording (on by itself when GITHUB_ACTIONS=true)",
    )
    parser.addini(
        INI_MODE,
        type="string",
        default="none",
        help="default for --openprogram-record outside CI (none, once, rewrite, accept or rerecord; "
        "resume is an alias of rerecord)",
    )


def resolve_record_mode(
    option: str | None, ini: str, environ: Mapping[str, str]
) -> tuple[RecordMode, str | None]:
    """The session's record mode and, when not simply as configured, why.

    The command line wins; otherwise, with `CI` set, recording is off whatever the ini file says.
    """
    if option is not None:
        return _checked(option, OPTION), None
    configured = _checked(ini.strip() or "none", INI_MODE)
    if environ.get("CI", "").strip().lower() not in CI_FALSE_VALUES:
        reason = f"CI is set, so only {OPTION}=once|rewrite|rerecord records"
        if configured != "none":
            reason += f" (the ini setting {INI_MODE} = {configured} is ignored)"
        return "none", reason
    return configured, None


def _checked(mode: str, source: str) -> RecordMode:
    mode = ALIASES.get(mode, mode)
    for choice in CHOICES:
        if mode == choice:
            return choice
    raise pytest.UsageError(
        f"{source}: unknown record mode {mode!r} (use none, once, rewrite, accept or rerecord)"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and settle the record mode for the whole session."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(name_or_path=None): replay this test's recording for every provider api "
        f"(default {RECORDINGS_DIR}/<module>/<test>.jsonl next to the test module; a name picks "
        f"{RECORDINGS_DIR}/<module>/<name>.jsonl, a path ending .jsonl or holding / is relative "
        "to the test module); fails at teardown when recorded calls remain",
    )
    config.stash[_MODE_KEY] = resolve_record_mode(
        config.getoption("openprogram_record"), str(config.getini(INI_MODE)), os.environ
    )
    config.stash[_ACTIVE_KEY] = set()
    config.pluginmanager.register(_ReportCollector(), _COLLECTOR)
    kinds = config.getoption("openprogram_faults")
    if kinds is not None:
        from openprogram.providers.recording.stream_faults import StreamFaultError, parse_kinds

        try:
            config.stash[_FAULT_KINDS_KEY] = parse_kinds(kinds)
        except StreamFaultError as exc:
            raise pytest.UsageError(f"{FAULTS_OPTION}: {exc}") from None


_COLLECTOR = "openprogram-report-collector"


class _ReportCollector:
    """Keeps the reports that carry our properties (the terminal keeps no passing teardown)."""

    def __init__(self) -> None:
        self.reports: list[pytest.TestReport] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        names = {name for name, _ in report.user_properties}
        if names & {_ANNOTATION_PROPERTY, _WRITTEN_PROPERTY}:
            self.reports.append(report)


def pytest_unconfigure(config: pytest.Config) -> None:
    """An interrupted run leaves no partial recording and no wrapper on the providers behind."""
    active: set[OpenProgramRecording] = config.stash.get(_ACTIVE_KEY, set())
    for recording in list(active):
        recording.abort()


def pytest_report_header(config: pytest.Config) -> str | None:
    """Name the record mode when it was configured, so a run says whether it may go live."""
    configured = config.getoption("openprogram_record") is not None or str(
        config.getini(INI_MODE)
    ).strip() not in ("", "none")
    mode, reason = config.stash[_MODE_KEY]
    if not configured and mode == "none":
        return None
    return f"openprogram: record mode {mode}" + (f" ({reason})" if reason else "")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """With `--openprogram-faults` in replay, one test per stream fault of the test's recording."""
    config = metafunc.config
    kinds = config.stash.get(_FAULT_KINDS_KEY, None)
    definition = metafunc.definition
    uses = definition.get_closest_marker(MARKER) is not None or FIXTURE in metafunc.fixturenames
    if kinds is None or not uses or config.stash[_MODE_KEY][0] != "none":
        return
    from openprogram.providers.recording.reader import read_recording
    from openprogram.providers.recording.stream_faults import (
        DEFAULT_STALL_SECONDS,
        fault_variants,
    )

    path = recording_path(definition)
    if not path.is_file():
        return  # the test itself says the recording is missing
    seconds = config.getoption("openprogram_stall") or DEFAULT_STALL_SECONDS
    calls = [call.events for call in read_recording(path).calls]
    faults = fault_variants(calls, kinds, seconds)
    if FAULT_PARAMETER not in metafunc.fixturenames:
        metafunc.fixturenames.append(FAULT_PARAMETER)
    ids = [f"{fault.kind}@{fault.call}" for fault in faults]
    metafunc.parametrize(FAULT_PARAMETER, faults, ids=ids)


@pytest.fixture
def openprogram_fault(request: pytest.FixtureRequest) -> StreamFault | None:
    """The stream fault this test runs under (`--openprogram-faults`), or None."""
    return None


def _fault_of(item: pytest.Item) -> StreamFault | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(FAULT_PARAMETER) if callspec is not None else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A marked test uses the fixture, set up before its other function fixtures."""
    for item in items:
        if (
            isinstance(item, pytest.Function)
            and item.get_closest_marker(MARKER) is not None
            and FIXTURE not in item.fixturenames
        ):
            item.fixturenames.insert(0, FIXTURE)


def pytest_deselected(items: Sequence[pytest.Item]) -> None:
    """Count deselected tests: a narrowed collection cannot tell which recordings are unused."""
    if items:
        stash = items[0].config.stash
        stash[_DESELECTED_KEY] = stash.get(_DESELECTED_KEY, 0) + len(items)


def _narrowed(session: pytest.Session) -> str | None:
    config = session.config
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        return "test paths or ids were given on the command line"
    if config.stash.get(_DESELECTED_KEY, 0):
        deselected = config.stash[_DESELECTED_KEY]
        were = "was" if deselected == 1 else "were"
        return f"{plural(deselected, 'test')} {were} deselected (-k, -m, --lf, ...)"
    if session.testsfailed:
        return "collection had errors"
    return None


def _used_recording(item: pytest.Item) -> Path | None:
    if not isinstance(item, pytest.Function):
        return None
    if item.get_closest_marker(MARKER) is None and FIXTURE not in item.fixturenames:
        return None
    try:
        return recording_path(item)
    except pytest.fail.Exception:  # a malformed marker: the test itself says so when it runs
        return None


def pytest_collection_finish(session: pytest.Session) -> None:
    """With `--openprogram-unused`, find the recordings no collected test uses."""
    if session.config.getoption("openprogram_unused") is None:
        return
    from openprogram.recordings.unused import check_unused

    check = check_unused(session.items, _used_recording, RECORDINGS_DIR, _narrowed(session))
    session.config.stash[_UNUSED_KEY] = check
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:  # an xdist worker: the controller reports it
        worker_output[_WORKER_UNUSED] = check.to_json()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist: the controller collects nothing; every worker collected the whole suite."""
    output = getattr(node, "workeroutput", {}).get(_WORKER_UNUSED)
    if output is not None:
        from openprogram.recordings.unused import UnusedCheck

        node.config.stash[_UNUSED_KEY] = UnusedCheck.from_json(output)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Keep a complete answer for `prune --unused`; with `fail`, unused recordings fail the run."""
    config = session.config
    check: UnusedCheck | None = config.stash.get(_UNUSED_KEY, None)
    if check is None or hasattr(config, "workeroutput"):
        return
    cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
    if check.narrowed is None and cache is not None:
        from openprogram.recordings.unused import UNUSED_CACHE_KEY

        cache.set(UNUSED_CACHE_KEY, check.to_json())
    failing = config.getoption("openprogram_unused") == "fail" and check.unused
    if failing and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """GitHub Actions annotations of the tests that failed on their recording; then which
    recordings no collected test uses, or why that was not checked."""
    if hasattr(config, "workeroutput"):
        return
    annotations, written = [], []
    collector = config.pluginmanager.get_plugin(_COLLECTOR)
    for report in getattr(collector, "reports", ()):  # under xdist, from the workers
        for name, value in report.user_properties:
            if name == _ANNOTATION_PROPERTY:
                annotations.append(str(value))
            elif name == _WRITTEN_PROPERTY:
                written.append(str(value))
    if written:
        terminalreporter.section("openprogram recordings written", sep="-")
        for line in sorted(written):
            terminalreporter.write_line(line)
    for line in annotations:
        terminalreporter.write_line(line)
    _summarise_unused(terminalreporter, config)


def _summarise_unused(terminalreporter: Any, config: pytest.Config) -> None:
    check: UnusedCheck | None = config.stash.get(_UNUSED_KEY, None)
    if check is None:
        return
    write = terminalreporter.write_line
    if check.narrowed is not None:
        write(f"openprogram: unused recordings not checked: {check.narrowed}")
        return
    if not check.unused:
        write("openprogram: every recording is used by a collected test")
        return
    red = config.getoption("openprogram_unused") == "fail"
    terminalreporter.section("recordings no collected test uses", sep="-", red=red, yellow=not red)
    for path in check.unused:
        write(_display_path(path, config))
    write(
        f"{len(check.unused)} unused; `openprogram recordings prune --unused` removes them"
        + (" (this fails the run: --openprogram-unused=fail)" if red else "")
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep each phase's report (the fixture saves a recording only after a passing call) and add
    the mismatch, the recording path and the TUI command to a failure caused by replay."""
    report = yield
    item.stash.setdefault(_REPORTS_KEY, {})[report.when] = report
    recording = item.stash.get(_RECORDING_KEY, None)
    if recording is not None and report.when == "teardown" and recording.written:
        report.user_properties.append((_WRITTEN_PROPERTY, recording.written))
    failed_on_recording = report.failed and report.when in ("call", "teardown")
    if recording is not None and failed_on_recording and recording.mismatches:
        mismatch = recording.mismatches[0]
        from openprogram.testing.ci_report import annotation_text

        file, number = item.location[:2]
        line = number + 1 if number is not None else None
        summary = annotation_text(mismatch.report)
        where = file if line is None else f"{file}:{line}"
        text = f"{where}: {summary}\n" + recording.mismatch_report(mismatch)
        written = _write_ci_report(item, recording, mismatch, report.duration)
        if written is not None:
            text += f"\nreport: {_display_path(written, item.config)}"
        addsection = getattr(report.longrepr, "addsection", None)
        if callable(addsection):
            addsection("openprogram replay mismatch", text)
        else:
            report.sections.append(("openprogram replay mismatch", text))
        if _annotations_on(item.config):
            from openprogram.testing.ci_report import github_annotation

            annotation = github_annotation(file, line, "openprogram replay mismatch", summary)
            report.user_properties.append((_ANNOTATION_PROPERTY, annotation))
    return report


def _annotations_on(config: pytest.Config) -> bool:
    enabled = bool(config.getoption("openprogram_annotations"))
    return enabled or os.environ.get("GITHUB_ACTIONS", "").strip().lower() == "true"


def _write_ci_report(
    item: pytest.Item, recording: OpenProgramRecording, mismatch: Any, duration: float
) -> Path | None:
    directory = item.config.getoption("openprogram_report")
    if not directory or recording.replay is None:
        return None
    from openprogram.testing.ci_report import check_result, write_report

    replay = recording.replay
    result = check_result(
        recording=recording.display_path,
        command=_pytest_command(item, item.config, "none"),
        cwd=item.config.invocation_params.dir,
        calls_recorded=replay.recorded_call_count,
        calls_consumed=replay.call_count,
        duration_seconds=duration,
        mismatch=mismatch.report,
        rules=replay.rules.describe(),
    )
    base = Path(directory)
    if not base.is_absolute():
        base = item.config.invocation_params.dir / base
    from openprogram.testing.session import tui_command

    commands = [("open it in the TUI:", tui_command(recording.display_path, mismatch))]
    if recording.accept_command and mismatch.kind == "request":
        commands.append(
            ("if the change is intended, accept it (offline):", recording.accept_command)
        )
    if recording.rewrite_command:
        commands.append(("if the change is intended, record it again:", recording.rewrite_command))
    return write_report(base, item.nodeid, result, replay.recording.calls, commands)


@pytest.fixture
def openprogram_recording(request: pytest.FixtureRequest) -> Iterator[OpenProgramRecording]:
    """Answer every provider api from this test's recording, or record it (`--openprogram-record`).

    Replay: the file must exist (else the test errors with the command that records it); every
    call is matched against it and a divergence raises `ReplayMismatch`; after a passing test,
    calls left unconsumed (or a mismatch the code swallowed) fail its teardown. Record: the real
    providers (what the registry resolves) are wrapped; the file is written 0600 next to its target
    and renamed into place only when the test passed, so a failure keeps the old file untouched.
    """
    from openprogram.testing.session import OpenProgramRecording, RecordingUnavailable

    item = request.node
    config = request.config
    mode, reason = config.stash[_MODE_KEY]
    path = recording_path(item)
    recording = OpenProgramRecording(
        path,
        mode,
        node_id=item.nodeid,
        display_path=_display_path(path, config),
        rewrite_command=_pytest_command(item, config, "rewrite"),
        accept_command=_pytest_command(item, config, "accept"),
        record_command=_pytest_command(item, config, "once"),
        mode_reason=reason,
        rules=marker_rules(item),
        pace=config.getoption("openprogram_pace"),
        fault=_fault_of(item),
        check_command=[sys.executable, "-m", "pytest", item.nodeid],
        check_cwd=config.rootpath,
    )
    unavailable: str | None = None
    try:
        recording.start()
    except RecordingUnavailable as exc:
        unavailable = str(exc)
    if unavailable is not None:
        pytest.fail(unavailable, pytrace=False)  # outside `except`: no chained traceback
    active = config.stash[_ACTIVE_KEY]
    active.add(recording)
    item.stash[_RECORDING_KEY] = recording
    item.stash[_REPORTS_KEY] = {}  # nothing from an earlier attempt (a retry plugin) counts
    try:
        yield recording
    finally:
        active.discard(recording)
        reports = item.stash.get(_REPORTS_KEY, {})
        call = reports.get("call")
        problem = recording.finish(passed=call is not None and call.passed)
    if problem:
        pytest.fail(problem, pytrace=False)


def recording_path(item: pytest.Item) -> Path:
    """Where `item`'s recording lives, from its marker or the default layout."""
    directory, module = item.path.parent, item.path.stem
    marker = item.get_closest_marker(MARKER)
    argument: object = None
    if marker is not None:
        unknown = set(marker.kwargs) - {"path", "ignore", "normalize"}
        if len(marker.args) > 1 or unknown or (marker.args and "path" in marker.kwargs):
            pytest.fail(
                f"@pytest.mark.{MARKER} takes one name or path, e.g. "
                f'@pytest.mark.{MARKER}("echo_hi")',
                pytrace=False,
            )
        argument = marker.args[0] if marker.args else marker.kwargs.get("path")
    if argument is None:
        test = "::".join(_without_fault_id(item).split("::")[1:]) or item.name
        return directory / RECORDINGS_DIR / module / f"{file_stem(test)}.jsonl"
    if not isinstance(argument, str | os.PathLike):
        pytest.fail(f"@pytest.mark.{MARKER} expects a str or path, got {argument!r}", pytrace=False)
    text = os.fspath(argument)
    if not text or text in (".", ".."):
        pytest.fail(f"@pytest.mark.{MARKER}: {text!r} is not a recording name", pytrace=False)
    if "/" in text or os.sep in text or text.endswith(".jsonl"):
        path = Path(text).expanduser()
        return path if path.is_absolute() else directory / path
    return directory / RECORDINGS_DIR / module / f"{file_stem(text)}.jsonl"


def _without_fault_id(item: pytest.Item) -> str:
    """`item`'s node id without its stream fault's part (`test[cut@1]` → `test`): every fault
    variant replays the one recording of its test."""
    fault = _fault_of(item)
    nodeid = item.nodeid
    if fault is None:
        return nodeid
    part = f"{fault.kind}@{fault.call}"
    for old, new in ((f"[{part}]", ""), (f"[{part}-", "["), (f"-{part}]", "]"), (f"-{part}-", "-")):
        if old in nodeid:
            return nodeid.replace(old, new, 1)
    return nodeid


def marker_rules(item: pytest.Item) -> MatchingRules | None:
    """The matching rules the marker gives: `ignore=[PATTERN, ...]`,
    `normalize=[{"path": ..., "preset": ...} or {"path": ..., "pattern": ..., "replace": ...}]`."""
    marker = item.get_closest_marker(MARKER)
    if marker is None or not ({"ignore", "normalize"} & set(marker.kwargs)):
        return None
    from openprogram.providers.recording.rules import RulesConfigError
    from openprogram.providers.recording.rules_sources import rules_from_tables

    tables = {key: marker.kwargs[key] for key in ("ignore", "normalize") if key in marker.kwargs}
    try:
        return rules_from_tables(tables, {}, "marker", f"@pytest.mark.{MARKER}")
    except RulesConfigError as exc:
        pytest.fail(str(exc), pytrace=False)


def _display_path(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)


def _pytest_command(item: pytest.Item, config: pytest.Config, mode: RecordMode) -> str:
    """`pytest --openprogram-record=MODE '<this test>'`, runnable from where pytest was started."""
    selector = os.path.relpath(item.path, config.invocation_params.dir)
    if "::" in item.nodeid:
        selector += "::" + item.nodeid.split("::", 1)[1]
    return f"pytest {OPTION}={mode} {shlex.quote(selector)}"
