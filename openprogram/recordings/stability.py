"""`check --runs N`: which differences change by themselves, and which did the code make.

Each run replays the recording in accept mode into a scratch file (`run_check(accept_into=…)`),
so the program runs to its end and every request it sends is kept: every difference it meets is
seen, not only the first. The differences of two runs are compared field by field, with the one
difference walker and the rules in force (`rule_edits.rules_in_force`):

- **changes by itself**: the incoming value differs between runs of the same code (or is there in
  one run only): a date, a UUID, a temporary path. The presets that make two runs' values equal
  (`rules.suggested_rules`, the suggestion a mismatch carries) are proposed and, when `accept`
  says yes, written to the project's `pyproject.toml` (`rule_edits.add_rule_to_pyproject`);
- **the code changed**: the same incoming value every run.

After rules are written the program runs again, until no difference changes by itself or the
`runs` are spent (rules accepted after the last run are written, with no run left to check them).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from openprogram.providers.recording.difference_text import format_value
from openprogram.providers.recording.differences import MISSING, FieldDifference, PathToken
from openprogram.providers.recording.reader import Recording, read_recording
from openprogram.providers.recording.rules import (
    MatchingRules,
    NormalizeRule,
    iter_ruled_differences,
    suggested_rules,
)
from openprogram.providers.recording.store import locate_recording
from openprogram.recordings.check import CheckProgress, CheckResult, entry_of, run_check
from openprogram.recordings.rule_edits import (
    add_rule_to_pyproject,
    project_rules_file,
    rules_in_force,
)

VALUE_CHARS = 120
"""Values in the report are cut to this many characters."""
Key = tuple[int, str]
"""A difference's place: the call and the field path."""


@dataclass(frozen=True)
class Seen:
    """One difference of one run: its path tokens, the recorded value and the incoming one."""

    tokens: tuple[PathToken, ...]
    recorded: Any
    incoming: Any


class StableDifference(BaseModel):
    """A difference sorted: where, the recorded value, each run's incoming value (in run order,
    `<missing>` where a run had none) and, for one that changes by itself, the rules proposed."""

    call_index: int
    field_path: str
    kind: Literal["by_itself", "code_changed"]
    recorded: str
    incoming: list[str]
    rules: list[str] = []
    """The preset rules that absorb it (`normalize PATH PRESET`); empty: none fits."""


class StabilityReport(BaseModel):
    """What `check --runs` found: the runs made, the rules written, and what is left of each kind."""

    recording: str
    runs: int
    runs_allowed: int
    rules_written: list[str]
    rules_file: str | None
    ruled: list[StableDifference]
    """The differences that change by themselves and the rules written now absorb."""
    changes_by_itself: list[StableDifference]
    """Left after the rules written: no preset fits, or the rules were not accepted."""
    code_changed: list[StableDifference]
    last_run: CheckResult
    """The last run's check (accept mode: `accepted` lists each call's differences)."""

    def json_value(self) -> dict[str, Any]:
        value = self.model_dump(mode="json", exclude={"last_run"})
        value["last_run"] = {"exit_code": self.last_run.exit_code, "error": self.last_run.error}
        return value


def _differences(recording: Recording, accepted: Path, rules: MatchingRules) -> dict[Key, Seen]:
    """Every difference no rule absorbs between the recording and what a run sent (the requests
    accept mode kept); a call the run never made has none."""
    try:
        sent = read_recording(accepted).calls
    except (OSError, ValueError):
        return {}
    found: dict[Key, Seen] = {}
    for call, kept in zip(recording.calls, sent, strict=False):
        for ruled in iter_ruled_differences(call.request_payload(), kept.request_payload(), rules):
            if not ruled.absorbed:
                d = ruled.difference
                found[(call.call_index, d.field_path)] = Seen(d.path_tokens, d.recorded, d.incoming)
    return found


def _same(one: Seen | None, other: Seen | None) -> bool:
    if one is None or other is None:
        return one is other
    return json.dumps(one.incoming, sort_keys=True, default=str) == json.dumps(
        other.incoming, sort_keys=True, default=str
    )


def sort_differences(
    runs: Sequence[dict[Key, Seen]], in_force: MatchingRules
) -> list[StableDifference]:
    """Every difference met in any run, sorted into the two kinds (in call and path order)."""
    keys = sorted({key for run in runs for key in run}, key=lambda k: (k[0], k[1]))
    sorted_differences = []
    for key in keys:
        seen = [run.get(key) for run in runs]
        first = next(s for s in seen if s is not None)
        stable = all(_same(s, seen[0]) for s in seen)
        rules: list[str] = []
        if not stable:
            values = [s.incoming for s in seen if s is not None]
            pair = (values[0], values[1]) if len(values) > 1 else (first.recorded, values[0])
            difference = FieldDifference(first.tokens, pair[0], pair[1], "changed")
            rules = [rule.describe() for rule in suggested_rules(difference, in_force)]
        sorted_differences.append(
            StableDifference(
                call_index=key[0],
                field_path=key[1],
                kind="code_changed" if stable else "by_itself",
                recorded=format_value(first.recorded, VALUE_CHARS),
                incoming=[
                    format_value(MISSING if s is None else s.incoming, VALUE_CHARS) for s in seen
                ],
                rules=rules,
            )
        )
    return sorted_differences


def _proposed(
    differences: Sequence[StableDifference], in_force: MatchingRules
) -> list[NormalizeRule]:
    """The rules to write for the differences that change by themselves (each once)."""
    wanted: dict[str, NormalizeRule] = {}
    for difference in differences:
        for line in difference.rules:
            _, path, preset = line.split(" ", 2)
            rule = NormalizeRule.model_validate(
                {"path": path, "preset": preset, "source": "--runs"}
            )
            wanted.setdefault(rule.describe(), rule)
    return list(wanted.values())


def check_stability(
    selector: str,
    argv: Sequence[str] | None,
    runs: int,
    *,
    accept: Callable[[list[NormalizeRule], list[StableDifference]], bool],
    rules: MatchingRules | None = None,
    timeout: float | None = None,
    on_run: Callable[[int, CheckResult], None] | None = None,
    cwd: str | None = None,
    on_progress: Callable[[CheckProgress], None] | None = None,
    cancel: threading.Event | None = None,
    keep_last_run: Path | None = None,
) -> StabilityReport:
    """Run the program up to `runs` times (at least 2) and sort its differences; `accept(rules,
    differences)` is asked before rules are written (False: they are only proposed), with every
    difference sorted so far. `cwd`, `on_progress` and `cancel` are `run_check`'s (a cancelled
    run ends the runs). `keep_last_run`: copy the last run's requests there (a recording file,
    each call with its recorded answer) before the scratch files go."""
    if runs < 2:
        raise ValueError("--runs needs at least 2 runs to compare")
    path = locate_recording(selector).path
    recording = read_recording(path)
    entry = entry_of(recording)
    start = cwd or (entry.cwd if not argv and entry is not None else ".")
    project = Path(start).resolve()
    observed: list[dict[Key, Seen]] = []
    written: list[str] = []
    ruled: list[StableDifference] = []
    rules_file: Path | None = None
    scratch = Path(tempfile.mkdtemp(prefix="openprogram-runs-"))
    made = 0
    found: list[StableDifference] = []
    try:
        while True:
            accepted = scratch / f"run-{made}.jsonl"
            result = run_check(
                selector,
                argv,
                cwd=cwd,
                timeout=timeout,
                rules=rules,
                accept_into=accepted,
                on_progress=on_progress,
                cancel=cancel,
            )
            made += 1
            if on_run is not None:
                on_run(made, result)
            if cancel is not None and cancel.is_set():
                break
            in_force = rules_in_force(path, project).merged(rules or MatchingRules())
            observed.append(_differences(recording, accepted, in_force))
            if len(observed) < 2:
                continue
            found = sort_differences(observed, in_force)
            by_itself = [d for d in found if d.kind == "by_itself"]
            proposed = _proposed(by_itself, in_force)
            if not by_itself or not proposed or not accept(proposed, found):
                break
            rules_file = project_rules_file(project)
            for rule in proposed:
                add_rule_to_pyproject(rules_file, rule)
                written.append(rule.describe())
            ruled += [d for d in by_itself if d.rules and set(d.rules) <= set(written)]
            if made >= runs:
                break
            # What the new rules absorb is gone from the last run too; the next run is compared
            # with what is left of it.
            in_force = rules_in_force(path, project).merged(rules or MatchingRules())
            observed = [_differences(recording, accepted, in_force)]
        if keep_last_run is not None and accepted.exists():
            shutil.copyfile(accepted, keep_last_run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return StabilityReport(
        recording=str(path),
        runs=made,
        runs_allowed=runs,
        rules_written=written,
        rules_file=str(rules_file) if rules_file is not None else None,
        ruled=ruled,
        changes_by_itself=[
            d
            for d in found
            if d.kind == "by_itself" and not (d.rules and set(d.rules) <= set(written))
        ],
        code_changed=[d for d in found if d.kind == "code_changed"],
        last_run=result,
    )
