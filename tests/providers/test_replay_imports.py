"""A replay that passes pays for what it uses: opening a recording and answering every call from
it imports no module that only a failure or a check needs (issue #39: a test that opens one
recording paid ~8 ms with bytecode cached, ~30 ms without, for the check protocol's row models,
the mismatch report and the stream faults)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.recording_files import REPO_ROOT, subprocess_env, write_recording

ONLY_WHEN_SOMETHING_GOES_WRONG = (
    "openprogram.providers.recording.check_protocol",
    "openprogram.providers.recording.mismatch",
    "openprogram.providers.recording.difference_text",
    "openprogram.providers.recording.stream_faults",
)

REPLAY_EVERY_CALL = """
import asyncio, sys
from openprogram.providers.types import Context, UserMessage
from tests.helpers import SCRIPTED_MODEL

if sys.argv[1] == "configured":  # the runtime starts: replay, as the state directory says
    from openprogram.providers import get_api_provider
    provider = get_api_provider(SCRIPTED_MODEL.api)
else:
    from openprogram.providers.replay import ReplayProvider
    provider = ReplayProvider(sys.argv[1])

async def run() -> list[str]:
    answers = []
    for text in ("hi", "there"):
        context = Context(messages=[UserMessage(content=text)])
        async for event in provider.stream(SCRIPTED_MODEL, context):
            if event.type == "done":
                answers.append(event.message.content[0].text)
    return answers

print("|".join(asyncio.run(run())))
provider.assert_consumed()  # replay mode serves every api from the one ReplayProvider
print(" ".join(m for m in sys.argv[2:] if m in sys.modules))
"""


def replay_two_calls(home: Path, source: str) -> list[str]:
    """The answers a fresh process replays from `source` (a path, or "configured"), and the
    modules of `ONLY_WHEN_SOMETHING_GOES_WRONG` it imported."""
    done = subprocess.run(
        [sys.executable, "-c", REPLAY_EVERY_CALL, source, *ONLY_WHEN_SOMETHING_GOES_WRONG],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
        env=subprocess_env(home),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_passing_replay_imports_no_mismatch_or_check_module(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "two.jsonl", ("hi", "there"))
    answers, imported = replay_two_calls(tmp_path / "home", str(recording))
    assert answers == "ok: hi|ok: there"
    assert imported == "", f"a passing replay imported {imported}"


def test_replay_mode_started_from_the_configuration_imports_none_of_them(tmp_path: Path) -> None:
    # The runtime's start read a check's run spec through the check protocol (its rows, the
    # mismatch report, the stream faults) whether or not a check had left one: ~35 ms of a
    # ~100 ms open.
    home = tmp_path / "home"
    (home / "recordings").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    write_recording(home / "recordings" / "two.jsonl", ("hi", "there"))
    (home / "config.json").write_text('{"record_replay": {"mode": "replay", "file": "two"}}')
    answers, imported = replay_two_calls(home, "configured")
    assert answers == "ok: hi|ok: there"
    assert imported == "", f"replay mode imported {imported}"


def test_the_public_names_still_load_from_the_replay_module() -> None:
    import openprogram.providers.replay as replay

    assert replay.ReplayMismatch.__name__ == "ReplayMismatch"
    assert replay.MismatchReport.__name__ == "MismatchReport"
    assert replay.StreamFault.__name__ == "StreamFault"
    assert "MismatchKind" in replay.__all__
