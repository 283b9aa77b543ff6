"""Every pytest run that writes a recording says which, and what it did to it."""

from __future__ import annotations

from tests.plugin.inner_project import InnerProject

LOOP = "recordings/test_inner_echo/test_loop.jsonl"
SYNC = "recordings/test_inner_echo/test_loop_sync.jsonl"


def written(result: object) -> list[str]:
    lines: list[str] = result.stdout.lines  # type: ignore[attr-defined]
    starts = [i for i, line in enumerate(lines) if "openprogram recordings written" in line]
    if not starts:
        return []
    block = []
    for line in lines[starts[0] + 1 :]:
        if not line and not block:
            continue  # pytest may start a section with an empty line
        if not line or line.startswith(("=", "-", "openprogram:")):
            break
        block.append(line)
    return block


def test_record_rewrite_and_accept_say_what_they_wrote_and_replay_says_nothing(
    inner: InnerProject,
) -> None:
    recorded = inner.run("--openprogram-record=once")
    recorded.assert_outcomes(passed=2)
    assert written(recorded) == [f"recorded {LOOP} (2 calls)", f"recorded {SYNC} (2 calls)"]

    replayed = inner.run()
    replayed.assert_outcomes(passed=2)
    assert written(replayed) == []

    rewritten = inner.run("--openprogram-record=rewrite", "test_inner_echo.py::test_loop")
    rewritten.assert_outcomes(passed=1)
    assert written(rewritten) == [f"rewrote {LOOP} (2 calls)"]

    accepted = inner.run("--openprogram-record=accept", INNER_PROMPT="bye")
    accepted.assert_outcomes(passed=2)
    assert written(accepted) == [
        f"accepted 2 changed requests into {LOOP}",
        f"accepted 2 changed requests into {SYNC}",
    ]
    assert written(inner.run("-n", "2", "--openprogram-record=rewrite")) == [
        f"rewrote {LOOP} (2 calls)",
        f"rewrote {SYNC} (2 calls)",
    ]
