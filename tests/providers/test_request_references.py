"""Format 2: request rows refer to earlier calls; readers rebuild every full request (issue #33)."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.providers.recording.recorder import request_payload
from openprogram.providers.recording.row_encoding import NonFiniteNumberError, encode_row
from openprogram.providers.recording.row_models import RequestRow, parse_row
from openprogram.providers.recording.rules import MatchingRules, ScrubRule
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.providers.types import StreamOptions
from tests.helpers import SCRIPTED_MODEL

MODEL = {"id": "m", "api": "scripted"}


def message(text: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": text}


def request(
    messages: list[dict[str, Any]],
    *,
    system: str | None = "Be brief.",
    tools: list[dict[str, Any]] | None = None,
    model: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "model": model or MODEL,
        "context": {"messages": messages, "system_prompt": system, "tools": tools},
        "options": options,
    }


def record(path: Path, requests: list[dict[str, Any]], clock: Any = None) -> None:
    """Each request as one call with one event, through the writer (deep copies: the writer
    must not depend on the caller keeping its dicts)."""
    sink = RecordingSink(path, clock=clock) if clock else RecordingSink(path)
    for sent in requests:
        index = sink.begin_call(copy.deepcopy(sent))
        sink.write_event(index, 0, {"type": "text_start", "content_index": 0})
        sink.end_call(index, 1, "complete")
    sink.close()


def rebuilt(path: Path) -> list[dict[str, Any]]:
    return [call.request_payload() for call in read_recording(path).calls]


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


SHAPES = {
    "appended": [
        request([message("a")]),
        request([message("a"), message("b", "assistant"), message("c")]),
    ],
    "edited": [
        request([message("a"), message("b")]),
        request([message("a"), message("B"), message("c")]),
    ],
    "removed": [
        request([message("a"), message("b"), message("c")]),
        request([message("a")]),
    ],
    "emptied": [request([message("a")]), request([])],
    "same": [request([message("a")]), request([message("a")])],
    "system prompt": [request([message("a")]), request([message("a")], system="Be long.")],
    "system prompt gone": [request([message("a")]), request([message("a")], system=None)],
    "tools": [
        request([message("a")]),
        request([message("a")], tools=[{"name": "t", "description": "", "parameters": {}}]),
    ],
    "model": [request([message("a")]), request([message("a")], model={"id": "n"})],
    "options": [
        request([message("a")], options={"temperature": 0.5}),
        request([message("a")]),
    ],
    "not a conversation": [
        {"model": {}, "context": {}, "options": None},
        request([message("a")]),
        {"model": {}, "context": {"messages": "x"}, "options": None},
    ],
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_reference_shape_rebuilds_the_request_sent(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "r.jsonl"
    record(path, SHAPES[shape])
    assert rebuilt(path) == SHAPES[shape]
    assert scan_recording(path).valid


def test_unchanged_fields_are_not_stored_again(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first = request([message("a" * 1000)], tools=[{"name": "t", "description": "x" * 500}])
    second = request(
        [message("a" * 1000), message("b", "assistant")],
        tools=[{"name": "t", "description": "x" * 500}],
    )
    record(path, [first, second])
    row = rows(path)[4]
    assert row["base"] == 0 and row["keep"] == 1
    assert row["context"] == {"messages": [message("b", "assistant")]}
    assert "model" not in row and "options" not in row


@st.composite
def sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A session: each call appends, edits or removes messages (parallel tool calls included),
    and sometimes changes the system prompt, the tools, the model or the options."""
    texts = st.text(alphabet="ab\u00e9\n\"'", max_size=6)
    messages: list[dict[str, Any]] = [message(draw(texts))]
    system, tools, model, options = "s", None, dict(MODEL), None
    calls = []
    for _ in range(draw(st.integers(1, 8))):
        calls.append(
            request(list(messages), system=system, tools=tools, model=model, options=options)
        )
        action = draw(st.sampled_from(["append", "parallel", "edit", "remove", "same"]))
        if action == "append":
            messages.append(message(draw(texts), "assistant"))
        elif action == "parallel":
            messages += [
                {"role": "toolResult", "id": str(n), "content": draw(texts)} for n in range(3)
            ]
        elif action == "edit" and messages:
            messages[draw(st.integers(0, len(messages) - 1))] = message(draw(texts))
        elif action == "remove" and messages:
            del messages[draw(st.integers(0, len(messages) - 1))]
        if draw(st.booleans()):
            system = draw(st.sampled_from(["s", "t", None]))
        if draw(st.booleans()):
            tools = draw(st.sampled_from([None, [], [{"name": "t"}], [{"name": "u"}]]))
        if draw(st.booleans()):
            model = {**MODEL, "id": draw(st.sampled_from(["m", "n"]))}
        if draw(st.booleans()):
            options = draw(st.sampled_from([None, {"temperature": 0.0}, {"max_tokens": 5}]))
    return calls


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session=sessions())
def test_random_sessions_rebuild_every_request_sent(
    tmp_path_factory: pytest.TempPathFactory, session: list[dict[str, Any]]
) -> None:
    path = tmp_path_factory.mktemp("session") / "r.jsonl"
    record(path, session)
    assert rebuilt(path) == session
    facts = scan_recording(path).facts
    assert facts.calls == len(session) and not facts.problems


def write_rows(path: Path, *row_list: dict[str, Any]) -> Path:
    path.write_bytes(b"".join(encode_row(row) for row in row_list))
    path.chmod(0o600)
    return path


def call(index: int, **fields: Any) -> list[dict[str, Any]]:
    return [
        {"type": "request", "call_index": index, **fields},
        {"type": "call_end", "call_index": index, "event_count": 0, "outcome": "complete"},
    ]


HEADER = {"type": "header", "format_version": 2}
FULL = {"model": MODEL, "context": {"messages": [message("a")]}, "options": None}
BROKEN = {
    "forward": (
        [*call(0, **FULL), *call(1, base=1, context={})],
        "request base 1 is not an earlier call (a forward reference)",
    ),
    "dangling": (  # call 1's own reference was refused, so call 2 has nothing to build on
        [*call(0, **FULL), *call(1, base=5, context={}), *call(2, base=1, context={})],
        "request base 1 has no request row that was read (a dangling reference)",
    ),
    "out of range": (
        [*call(0, **FULL), *call(1, base=0, keep=2, context={})],
        "request keep 2 is out of range (call 0 has 1 message)",
    ),
    "keep without base": (
        [*call(0, **FULL, keep=1)],
        "request keep needs a base (a reference of the wrong kind)",
    ),
    "no messages to keep": (
        [
            *call(0, model=MODEL, context={"messages": "x"}, options=None),
            *call(1, base=0, keep=1, context={}),
        ],
        "request base 0 has no messages list to keep (a reference of the wrong kind)",
    ),
    "messages not a list": (
        [*call(0, **FULL), *call(1, base=0, context={"messages": {"a": 1}})],
        "request context.messages must be a list (a reference of the wrong kind)",
    ),
    "full row without model": (
        [*call(0, context={}, options=None)],
        "request row without a base needs model",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_references_are_refused_with_one_line(tmp_path: Path, case: str) -> None:
    written, reason = BROKEN[case]
    path = write_rows(tmp_path / "r.jsonl", HEADER, *written)
    found = [problem for problem in scan_recording(path).problems if problem.reason == reason]
    assert len(found) == 1 and found[0].call_index is not None and found[0].line_number
    if case == "dangling":
        return  # the strict reader stops at the row the reference needed, before it
    with pytest.raises(RecordingFileError) as refused:
        read_recording(path)
    text = str(refused.value)
    assert "\n" not in text and text.endswith(reason)
    assert f"at line {found[0].line_number} for call {found[0].call_index}: " in text


def test_no_secret_is_reachable_through_a_reference(tmp_path: Path) -> None:
    """Call 1 keeps call 0's messages: what it keeps is call 0's stored (redacted) form."""
    path = tmp_path / "r.jsonl"
    key = "sk-proj-" + "A1b2C3d4" * 6
    rules = MatchingRules(
        scrub=(ScrubRule(path="**", regex=r"customer-\d+", replace="customer-N"),)
    )
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), path, rules=rules)

    async def run() -> None:
        said = [UserMessage(content=f"my key is {key}, I am customer-42")]
        for text in ("again", "and again", "once more"):
            async for _ in provider.stream(SCRIPTED_MODEL, Context(messages=list(said))):
                pass
            said.append(UserMessage(content=text))

    asyncio.run(run())
    provider.sink.close()
    data = path.read_text()
    assert key not in data and "customer-42" not in data
    assert '"base":0' in data and '"base":1' in data
    for recorded in read_recording(path).calls:
        text = json.dumps(recorded.request_payload())
        assert key not in text and "customer-42" not in text
        assert "[secret removed]" in text and "customer-N" in text


def test_non_finite_numbers_are_refused_when_writing_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), path)

    async def run() -> None:
        context = Context(messages=[UserMessage(content="hi")])
        async for _ in provider.stream(
            SCRIPTED_MODEL, context, StreamOptions(temperature=math.nan)
        ):
            pass

    with pytest.raises(NonFiniteNumberError, match=r"cannot record nan at options\.temperature"):
        asyncio.run(run())
    provider.sink.close()
    assert read_recording(path).calls == ()  # nothing was written for the refused call


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_refused_when_reading(tmp_path: Path, constant: str) -> None:
    path = tmp_path / "r.jsonl"
    record(
        path, [request([message("NaN and Infinity are words here")], options={"temperature": 1.5})]
    )
    assert read_recording(path).calls  # the words alone are fine
    path.write_bytes(
        path.read_bytes().replace(b'"temperature":1.5', f'"temperature":{constant}'.encode())
    )
    with pytest.raises(
        RecordingFileError,
        match=f"line 2 for call 0: request row holds the non-finite number {constant}",
    ):
        read_recording(path)


def test_times_are_recorded_per_event_call_and_session(tmp_path: Path) -> None:
    ticks = itertools.count()
    path = tmp_path / "r.jsonl"
    record(
        path,
        [request([message("a")]), request([message("a"), message("b")])],
        clock=lambda: next(ticks) * 0.01,
    )
    first, second = read_recording(path).calls
    # Clock readings: open 0; call 0 begins 1, its event 2, its end 3; call 1 begins 4, ...
    assert (first.start_ms, first.event_ms, first.duration_ms) == (10, (10,), 20)
    assert (second.start_ms, second.event_ms, second.duration_ms) == (40, (10,), 20)
    assert all(
        len(line) - len(line.replace(b',"ms":10', b"")) == 8
        for line in path.read_bytes().splitlines()
        if line.endswith(b'"type":"event"}')
    )


def fixed_clock() -> Any:
    """A clock that moves 10 ms per reading, so two recordings of one session have equal times."""
    ticks = itertools.count()
    return lambda: next(ticks) * 0.01


def fifty_calls(system: str) -> list[dict[str, Any]]:
    messages = [message("start")]
    calls = []
    for number in range(50):
        calls.append(request(list(messages), system=system))
        messages += [message(f"answer {number}", "assistant"), message(f"result {number}" * 20)]
    return calls


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_reworded_system_prompt_is_one_changed_row_in_git_diff(tmp_path: Path) -> None:
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    for path, system in ((before, "Be brief."), (after, "Be brief and kind.")):
        record(path, fifty_calls(system), clock=fixed_clock())
    diff = subprocess.run(
        ["git", "diff", "--no-index", "--unified=0", str(before), str(after)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    changed = [
        line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert len(changed) == 2 and diff.count("@@ ") == 1  # one row out, one row in: one hunk
    assert '"call_index":0' in changed[0] and "Be brief and kind." in changed[1]


def test_the_recorder_redacts_a_message_changed_in_place_again(tmp_path: Path) -> None:
    """Messages redacted on the previous call are reused only when they are dumped equal."""
    path = tmp_path / "r.jsonl"
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), path)
    key = "sk-proj-" + "Z9y8X7w6" * 6
    said = [UserMessage(content="hello"), UserMessage(content="plain")]
    sent = []

    async def run() -> None:
        for step in range(3):
            if step == 1:
                said[1].content = f"now with {key}"  # the same object, changed in place
            context = Context(messages=list(said))
            sent.append(request_payload(SCRIPTED_MODEL, context, None))
            async for _ in provider.stream(SCRIPTED_MODEL, context):
                pass
            said.append(UserMessage(content=f"step {step}"))

    asyncio.run(run())
    provider.sink.close()
    assert rebuilt(path) == sent and key not in path.read_text()


def agent_session(path: Path, system: str, calls: int = 50) -> Path:
    """`calls` calls of the scripted provider, the conversation growing, under `system`."""
    sink = RecordingSink(path, clock=fixed_clock())
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), sink)

    async def run() -> None:
        messages: list[Any] = [UserMessage(content="start", timestamp=1)]
        for number in range(calls):
            context = Context(system_prompt=system, messages=list(messages))
            async for _ in provider.stream(SCRIPTED_MODEL, context):
                pass
            messages.append(UserMessage(content=f"result {number}", timestamp=1))

    asyncio.run(run())
    sink.close()
    return path


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_reworded_system_prompt_is_one_small_hunk_through_the_documented_textconv(
    tmp_path: Path,
) -> None:
    # Rewordings of one length: the scripted model counts input tokens by length, and a longer
    # prompt's token counts are the model's answer changing (a real recording's change too).
    before = agent_session(tmp_path / "before.jsonl", "Be brief and kind.")
    after = agent_session(tmp_path / "after.jsonl", "Be short and nice.")
    attributes = tmp_path / "attributes"
    attributes.write_text("*.jsonl diff=openprogram\n")
    textconv = f"{shlex.quote(sys.executable)} -m openprogram recordings show --textconv"
    diff = subprocess.run(
        ["git", "-c", f"core.attributesFile={attributes}",
         "-c", f"diff.openprogram.textconv={textconv}",
         "diff", "--no-index", "--textconv", "--unified=0", str(before), str(after)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    ).stdout  # fmt: skip
    changed = [
        line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert changed == ["-system> Be brief and kind.", "+system> Be short and nice."]
    assert diff.count("@@ ") == 1


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session=sessions(), data=st.data())
def test_the_shared_chain_builds_every_request_in_any_order(
    tmp_path_factory: pytest.TempPathFactory, session: list[dict[str, Any]], data: st.DataObject
) -> None:
    """Whatever the order calls are read in, however few full requests are remembered and
    however often checkpoints are kept, the chain builds exactly the request sent (issue #39:
    requests are built on demand, not kept)."""
    from openprogram.providers.recording.request_references import RequestChain

    path = tmp_path_factory.mktemp("session") / "r.jsonl"
    record(path, session)
    from openprogram.providers.recording.request_references import StoredRequests

    typed = {call.call_index: call.stored for call in read_recording(path).calls}
    # What a reader that keeps no call holds: each row as its line, parsed again when a
    # reference leads to it, here with a single row kept parsed.
    as_lines = StoredRequests(parsed=1)
    for line in path.read_bytes().splitlines():
        row = parse_row(line)
        if isinstance(row, RequestRow):
            as_lines.add(row, line)
    remember = data.draw(st.integers(1, 4))
    checkpoints = data.draw(st.none() | st.integers(1, 4))
    order = data.draw(st.permutations(range(len(session))))
    for stored in (typed.get, as_lines.get):
        chain = RequestChain(stored, remember=remember, checkpoints=checkpoints)
        for index in [*order, *order]:
            full = chain.full(index)
            assert {"model": full.model, "context": full.context, "options": full.options} == (
                session[index]
            )
            assert chain.model(index) == session[index]["model"]
            assert full.base is None and full.keep is None
            assert chain.row(index) == typed[index]


def test_walking_up_a_long_chain_follows_a_bounded_number_of_references(tmp_path: Path) -> None:
    """A user walking up a long session (its last call, then the one before, ...) with a chain
    that keeps checkpoints reads a bounded number of rows per call (issue #39), whichever rows
    the reader still holds parsed."""
    from openprogram.providers.recording.request_references import RequestChain
    from tests.hostile_recordings import write_chain

    calls, every = 300, 16
    path = write_chain(tmp_path / "chain.jsonl", calls)
    rows = {
        row.call_index: row
        for line in path.read_bytes().splitlines()
        if isinstance(row := parse_row(line), RequestRow)
    }
    reads: list[int] = []

    def stored(call_index: int) -> RequestRow | None:
        reads.append(call_index)
        return rows.get(call_index)

    chain = RequestChain(stored, remember=4, checkpoints=every)
    assert len(chain.full(calls - 1).context["messages"]) == calls
    for index in range(calls - 2, -1, -1):
        reads.clear()
        full = chain.full(index)
        assert [m["content"] for m in full.context["messages"]] == [
            f"m{n}" for n in range(index + 1)
        ]
        # Back to the checkpoint below it at most: without checkpoints, back to call 0.
        assert len(reads) <= every + 1


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session=sessions(), data=st.data())
def test_the_chain_finds_tools_and_last_message_without_building_the_request(
    tmp_path_factory: pytest.TempPathFactory, session: list[dict[str, Any]], data: st.DataObject
) -> None:
    """What the diff aligns calls on (model, tools, last message) is what the built request
    holds, in any order and whatever is remembered (issue #39: found from the rows)."""
    from openprogram.providers.recording.request_references import RequestChain

    path = tmp_path_factory.mktemp("session") / "r.jsonl"
    record(path, session)
    typed = {call.call_index: call.stored for call in read_recording(path).calls}
    order = data.draw(st.permutations(range(len(session))))
    built = RequestChain(typed.get, remember=data.draw(st.integers(1, 4)))
    for index in [*order, *order]:
        chain = RequestChain(typed.get, remember=1)  # a fresh one for each: from no memo...
        for walked in (chain, built):  # ...and one that has walked every call before
            messages = session[index]["context"]["messages"]
            assert walked.last_message(index) == (messages[-1] if messages else None)
            assert walked.tools(index) == session[index]["context"]["tools"]
            assert walked.model(index) == session[index]["model"]


@st.composite
def request_rows(draw: st.DrawFn) -> dict[int, RequestRow]:
    """Request rows as a file may hold them, references broken or not: any base (earlier,
    later, missing), any keep, messages a list or not, tools and model stated or not."""
    rows: dict[int, RequestRow] = {}
    count = draw(st.integers(1, 8))
    messages = st.lists(
        st.sampled_from([message("a"), message("b", "assistant"), None]), max_size=3
    )
    for index in range(count):
        if draw(st.integers(0, 19)) == 0:
            continue  # a row that was not read
        context: dict[str, Any] = {}
        if draw(st.booleans()):
            context["messages"] = draw(messages if draw(st.integers(0, 9)) else st.just("x"))
        if draw(st.booleans()):
            context["tools"] = draw(st.sampled_from([None, [], [{"name": "t"}], "t"]))
        fields: dict[str, Any] = {"type": "request", "call_index": index, "context": context}
        if index and draw(st.integers(0, 4)):
            earlier = st.integers(0, index - 1)
            fields["base"] = draw(earlier if draw(st.integers(0, 5)) else st.integers(0, count))
            if draw(st.integers(0, 3)):
                fields["keep"] = draw(st.integers(0, 3))
            if draw(st.booleans()):
                fields["model"] = {"id": "n"}
        else:
            fields["model"] = MODEL
            if draw(st.booleans()):
                fields["context"] = {**context, "messages": draw(messages)}
        rows[index] = RequestRow.model_validate(fields)
    return rows


@settings(max_examples=300, deadline=None)
@given(rows=request_rows(), data=st.data())
def test_the_last_message_walk_refuses_what_building_the_request_refuses(
    rows: dict[int, RequestRow], data: st.DataObject
) -> None:
    """Whatever the references (broken included), the last message found by walking them is the
    built request's, or the same one-line reason is given for not following them."""
    from openprogram.providers.recording.request_references import (
        RequestChain,
        RequestReferenceError,
    )

    indexes = data.draw(st.permutations(range(9)))  # every row, and some never read
    walking = RequestChain(rows.get, remember=data.draw(st.integers(1, 3)))
    for index in indexes:
        try:
            built = RequestChain(rows.get).full(index)
        except RequestReferenceError as refused:
            with pytest.raises(RequestReferenceError) as walked:
                walking.last_message(index)
            assert str(walked.value) == str(refused)
            continue
        messages = built.context.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages else None
        assert walking.last_message(index) == last
        assert walking.tools(index) == built.context.get("tools")
        assert walking.model(index) == built.model


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session=sessions())
def test_the_diff_signs_each_call_as_its_built_request(
    tmp_path_factory: pytest.TempPathFactory, session: list[dict[str, Any]]
) -> None:
    """`diff` aligns calls on a signature found from the rows (issue #39): the same bytes as the
    signature of the request sent, for a reader that keeps every call and one that keeps none."""
    from openprogram.providers.recording.reader import verify_recording
    from openprogram.recordings.diff import call_signature, request_signature

    path = tmp_path_factory.mktemp("session") / "r.jsonl"
    record(path, session)
    sent = [
        request_signature(RequestRow.model_validate({"type": "request", "call_index": n, **r}))
        for n, r in enumerate(session)
    ]
    signed: list[str] = []
    verify_recording(path, lambda call: signed.append(call_signature(call)))
    assert signed == sent
    assert [call_signature(call) for call in read_recording(path).calls] == sent


def long_shapes(calls: int) -> dict[str, dict[int, RequestRow]]:
    """Rows whose last messages lie far down their chains: calls branching off the end of a long
    chain at any message, a chain dropping one message a call, a request sent again and again."""

    def row(index: int, **fields: Any) -> RequestRow:
        return RequestRow.model_validate({"type": "request", "call_index": index, **fields})

    first = row(0, model=MODEL, context={"messages": [message("0")]})
    chain = {0: first}
    for n in range(1, calls):
        chain[n] = row(n, base=n - 1, keep=n, context={"messages": [message(str(n))]})
    branches = dict(chain)
    for n in range(calls, 2 * calls):
        keep = (n * 7919) % calls + 1
        branches[n] = row(n, base=calls - 1, keep=keep, context={})
    everything = [message(str(n)) for n in range(calls)]
    dropping = {0: row(0, model=MODEL, context={"messages": everything})}
    again = dict(dropping)
    for n in range(1, calls):
        dropping[n] = row(n, base=n - 1, keep=calls - n, context={})
        again[n] = row(n, base=n - 1, keep=calls, context={})
    return {"branches": branches, "dropping": dropping, "again": again}


@pytest.mark.parametrize("shape", ["branches", "dropping", "again"])
def test_a_last_message_far_down_its_chain_is_the_built_requests(shape: str) -> None:
    from openprogram.providers.recording.request_references import RequestChain

    rows = long_shapes(500)[shape]
    walking = RequestChain(rows.get)
    for index in range(len(rows)):
        built = RequestChain(rows.get).full(index).context["messages"]
        assert walking.last_message(index) == built[-1]
