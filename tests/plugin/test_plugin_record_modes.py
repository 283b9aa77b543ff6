"""Record modes (pytester): when the plugin records, and that only passing tests save a file."""

from __future__ import annotations

from tests.plugin.inner_project import BASE_ARGS, INNER_INI, InnerProject

LOOP = "test_inner_echo.py::test_loop"


def test_rewrite_on_a_failing_test_keeps_the_old_file(inner: InnerProject) -> None:
    inner.run(LOOP, "--openprogram-record=once").assert_outcomes(passed=1)
    path = inner.recording()
    before = path.read_bytes()

    failed = inner.run(LOOP, "--openprogram-record=rewrite", INNER_PROMPT="new", INNER_FAIL="1")
    failed.assert_outcomes(failed=1)
    assert path.read_bytes() == before
    assert inner.leftovers() == []
    # The kept file still replays the old behaviour.
    inner.run(LOOP).assert_outcomes(passed=1)


def test_rewrite_on_a_passing_test_replaces_the_file_atomically(inner: InnerProject) -> None:
    inner.run(LOOP, "--openprogram-record=once").assert_outcomes(passed=1)
    path = inner.recording()
    inode = path.stat().st_ino

    inner.run(LOOP, "--openprogram-record=rewrite", INNER_PROMPT="new").assert_outcomes(passed=1)
    assert path.stat().st_ino != inode  # a new file renamed into place, not rewritten in place
    assert '"content":"new"' in path.read_text()
    inner.run(LOOP, INNER_PROMPT="new").assert_outcomes(passed=1)
    inner.run(LOOP).assert_outcomes(failed=1)  # the old prompt no longer matches


def test_once_replays_an_existing_recording_instead_of_recording_again(
    inner: InnerProject,
) -> None:
    inner.run(LOOP, "--openprogram-record=once").assert_outcomes(passed=1)
    before = inner.recording().read_bytes()
    result = inner.run(LOOP, "--openprogram-record=once", INNER_PROMPT="changed")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["recorded 'hi', incoming 'changed'"])
    assert inner.recording().read_bytes() == before


def test_a_failing_test_in_once_mode_saves_nothing(inner: InnerProject) -> None:
    inner.run(LOOP, "--openprogram-record=once", INNER_FAIL="1").assert_outcomes(failed=1)
    assert not inner.recording().exists()
    assert inner.leftovers() == []


def test_an_interrupted_recording_leaves_nothing_behind(inner: InnerProject) -> None:
    inner.pytester.makepyfile(
        test_inner_interrupt="""
        import test_inner_echo

        async def test_interrupted(openprogram_recording):
            await test_inner_echo.converse()
            raise KeyboardInterrupt
        """
    )
    result = inner.pytester.runpytest(
        *BASE_ARGS, "test_inner_interrupt.py", "--openprogram-record=once", no_reraise_ctrlc=True
    )
    assert result.ret == 2  # interrupted
    assert not inner.recording("test_interrupted", module="test_inner_interrupt").exists()
    assert inner.leftovers() == []


def test_ci_never_records_unless_the_option_asks(inner: InnerProject) -> None:
    inner.pytester.makeini(
        """
        [pytest]
        asyncio_mode = auto
        asyncio_default_fixture_loop_scope = function
        openprogram_record_mode = once
        """
    )
    in_ci = inner.run(LOOP, CI="true")
    in_ci.assert_outcomes(errors=1)
    in_ci.stdout.fnmatch_lines(
        [
            "openprogram: record mode none (CI is set, so only --openprogram-record=once|rewrite|rerecord "
            "records (the ini setting openprogram_record_mode = once is ignored))",
            "no recording for this test at recordings/test_inner_echo/test_loop.jsonl "
            "(record mode none: replay only); CI is set, *",
        ]
    )
    assert not (inner.path / "recordings").exists()

    inner.run(LOOP, "--openprogram-record=once", CI="true").assert_outcomes(passed=1)
    inner.recording().unlink()
    local = inner.run(LOOP, CI="0")  # CI=0 is not CI: the ini default applies
    local.assert_outcomes(passed=1)
    local.stdout.fnmatch_lines(["openprogram: record mode once"])
    assert inner.recording().is_file()


def test_an_unknown_mode_is_a_usage_error(inner: InnerProject) -> None:
    result = inner.run("--openprogram-record=always")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*invalid choice: 'always'*"])

    inner.pytester.makeini(INNER_INI + "openprogram_record_mode = sometimes\n")
    result = inner.run()
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*openprogram_record_mode: unknown record mode 'sometimes'*"])


def test_a_default_run_prints_no_header_and_touches_nothing(inner: InnerProject) -> None:
    result = inner.run("--co")
    assert "openprogram: record mode" not in result.stdout.str()
    assert not (inner.path / "recordings").exists()
