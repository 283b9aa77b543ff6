"""`openprogram recordings check --fault/--faults`: programs recorded for real, rerun with a broken
stream, each outcome classified; run as real subprocesses."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.recording_files import REPO_ROOT, run_cli
from tests.sse_server import SSEServer, sse_event, sse_response

ECHO = [sys.executable, str(REPO_ROOT / "examples" / "echo_agent.py")]
KEY = "sk-test-fault-key-123456"

TWO_TOOL_PROGRAM = """
import asyncio, os
from pathlib import Path
from openprogram.agent import AgentTool, run_agent_loop
from openprogram.providers import Context, Model, SimpleStreamOptions, TextContent, UserMessage

def logged(name, answer):
    def tool(**arguments):
        with Path("ran.log").open("a") as log:
            log.write(f"{name} {arguments}\\n")
        return answer(**arguments)
    return tool

STRING = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = [
    AgentTool("lookup", "The weather of a city.", logged("lookup", lambda text: "12 C"), STRING),
    AgentTool("shout", "The text in capitals.", logged("shout", lambda text: text.upper()), STRING),
]

async def main():
    model = Model(id="gpt-test", api="openai-completions", provider="openai",
                  base_url=os.environ["AGENT_BASE_URL"])
    context = Context(messages=[UserMessage(content="the weather in Oslo, loudly")])
    run = await run_agent_loop(model, context, TOOLS, SimpleStreamOptions(timeout=1))
    print("".join(b.text for b in run.final_message.content if isinstance(b, TextContent)))

asyncio.run(main())
"""

NAIVE_PROGRAM = """
import asyncio, os
from openprogram.providers import Context, Model, TextContent, UserMessage, complete_simple

async def main():
    model = Model(id="gpt-test", api="openai-completions", provider="openai",
                  base_url=os.environ["AGENT_BASE_URL"])
    answer = await complete_simple(model, Context(messages=[UserMessage(content="a poem")]))
    print("".join(b.text for b in answer.content if isinstance(b, TextContent)))

asyncio.run(main())
"""

RETRYING_PROGRAM = """
import asyncio, os, sys
from openprogram.providers import Context, Model, TextContent, UserMessage, complete_simple

async def main():
    model = Model(id="gpt-test", api="openai-completions", provider="openai",
                  base_url=os.environ["AGENT_BASE_URL"])
    for attempt in range(3):
        answer = await complete_simple(model, Context(messages=[UserMessage(content="a poem")]))
        if answer.stop_reason != "error":
            break
        print(f"attempt {attempt} broke: {answer.error_message}", file=sys.stderr)
    print("".join(b.text for b in answer.content if isinstance(b, TextContent)))
    return 0 if answer.stop_reason != "error" else 1

sys.exit(asyncio.run(main()))
"""

CARRYING_ON_PROGRAM = """
import asyncio, os
from openprogram.providers import Context, Model, UserMessage, complete_simple

async def main():
    model = Model(id="gpt-test", api="openai-completions", provider="openai",
                  base_url=os.environ["AGENT_BASE_URL"])
    context = Context(messages=[UserMessage(content="a poem")])
    context.messages.append(await complete_simple(model, context))  # whatever came back
    context.messages.append(UserMessage(content="another"))
    await complete_simple(model, context)

asyncio.run(main())
"""


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> str:
    choices = (
        []
        if delta is None and finish is None
        else [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    )
    return sse_event({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": choices})


def tool_stream(call_id: str, name: str, pieces: list[str]) -> list[str]:
    """A tool call whose JSON arguments arrive in `pieces` (one event each)."""
    opening = {"index": 0, "id": call_id, "type": "function", "function": {"name": name}}
    return [
        chunk(
            {
                "role": "assistant",
                "tool_calls": [{**opening, "function": {**opening["function"], "arguments": ""}}],
            }
        ),
        *(chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces),
        chunk(finish="tool_calls"),
        "data: [DONE]\n\n",
    ]


def text_stream(pieces: list[str]) -> list[str]:
    return [
        chunk({"role": "assistant", "content": ""}),
        *(chunk({"content": piece}) for piece in pieces),
        chunk(finish="stop"),
        "data: [DONE]\n\n",
    ]


def record(
    home: Path, tmp_path: Path, name: str, program: str, *streams: list[str]
) -> tuple[list[str], str]:
    """Record `program` (written into tmp_path) for real against a loopback server playing
    `streams`: the command that reruns it, and the base URL it was given (replay compares it;
    nothing listens there any more)."""
    script = tmp_path / f"{name}.py"
    script.write_text(program)
    with SSEServer() as server:
        server.respond(*(sse_response(stream) for stream in streams))
        base_url = server.url + "/v1"
        made = run_cli(
            home,
            "record",
            "--name",
            name,
            "--",
            sys.executable,
            str(script),
            cwd=tmp_path,
            AGENT_BASE_URL=base_url,
            OPENAI_API_KEY=KEY,
        )
    assert made.returncode == 0, made.stderr
    return [sys.executable, str(script)], base_url


def outcomes(done: Any) -> dict[str, str]:
    return {
        run["fault"]["kind"] + f"@{run['fault']['call']}": run["outcome"]
        for run in json.loads(done.stdout)["runs"]
    }


def test_the_four_faults_against_the_echo_agent(openprogram_home: Path) -> None:
    made = run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    assert made.returncode == 0, made.stderr

    done = run_cli(
        openprogram_home, "check", "echo", "--faults", "--stall", "0.2", "--", *ECHO, "hi"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "running 8 variants of echo, each stopped after 30 s"
    assert lines[1].startswith("[1/8] cut@0") and lines[8].startswith("[8/8] cancel@1")
    assert lines[-1] == "2 ended cleanly, 6 raised"
    # A cut or a vendor error: the loop refuses the broken answer, the agent says why, exit 1.
    cut = next(line for line in lines if "cut@0" in line)
    assert "raised" in cut and "did not finish: scripted: connection to scripted closed" in cut

    said = {line.split()[1]: line for line in lines[1:9]}  # `cut@0` → its line
    for fault in ("cut@0", "error@0", "cancel@0", "cut@1", "error@1", "cancel@1"):
        assert "raised" in said[fault], said[fault]
    assert "ended cleanly" in said["stall@0"] and "ended cleanly" in said["stall@1"]
    assert "went on after the stall" in said["stall@1"]

    # A stall past the provider's read timeout and past the check's: the program hangs.
    hung = run_cli(
        openprogram_home,
        "check",
        "echo",
        "--fault",
        "stall@1",
        "--stall",
        "300",
        "--timeout",
        "2",
        "--",
        *ECHO,
        "hi",
    )
    assert hung.returncode == 1
    assert "hung" in hung.stdout and "timed out after 2 s" in hung.stdout


def test_the_two_tool_loop_never_runs_a_cut_tool_call_and_fails_loudly(
    openprogram_home: Path, tmp_path: Path
) -> None:
    command, base_url = record(
        openprogram_home,
        tmp_path,
        "two",
        TWO_TOOL_PROGRAM,
        tool_stream("call_1", "lookup", ['{"text":', ' "Oslo"}']),
        tool_stream("call_2", "shout", ['{"text":', ' "12 C in Oslo"}']),
        text_stream(["It is ", "12 C ", "in Oslo"]),
    )
    log = tmp_path / "ran.log"
    assert log.read_text().splitlines() == [
        "lookup {'text': 'Oslo'}",
        "shout {'text': '12 C in Oslo'}",
    ]
    log.unlink()

    # Cut in the middle of call 1's tool call (after its first piece of arguments).
    cut = run_cli(
        openprogram_home,
        "check",
        "two",
        "--fault",
        "cut@1:2",
        "--json",
        "--",
        *command,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    run = json.loads(cut.stdout)["runs"][0]
    assert (run["outcome"], run["event_index"]) == ("raised", 2), run
    assert "AgentAnswerBrokeError: the model's answer to call 1 did not finish" in run["detail"]
    assert "closed before the response finished" in run["detail"]
    assert log.read_text().splitlines() == ["lookup {'text': 'Oslo'}"]  # shout never ran

    # Every kind against every call: the program's own 1 s timeout ends each stall.
    every = run_cli(
        openprogram_home,
        "check",
        "two",
        "--faults",
        "--stall",
        "30",
        "--json",
        "--",
        *command,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    assert every.returncode == 0, every.stdout + every.stderr
    assert set(outcomes(every).values()) == {"raised"}
    stall = next(r for r in json.loads(every.stdout)["runs"] if r["fault"]["kind"] == "stall")
    assert "timed out after 1s waiting for" in stall["detail"]


def test_a_program_that_prints_a_broken_answer_took_it_as_complete(
    openprogram_home: Path, tmp_path: Path
) -> None:
    command, base_url = record(
        openprogram_home,
        tmp_path,
        "naive",
        NAIVE_PROGRAM,
        text_stream(["Roses ", "are ", "red, ", "violets ", "are ", "blue"]),
    )
    done = run_cli(
        openprogram_home,
        "check",
        "naive",
        "--fault",
        "error@0:3",
        "--",
        *command,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    assert done.returncode == 1
    assert "took a partial answer as complete" in done.stdout
    assert "exited 0 without the whole answer of call 0" in done.stdout


def test_a_program_that_goes_on_with_a_broken_answer_is_named_at_its_next_request(
    openprogram_home: Path, tmp_path: Path
) -> None:
    command, base_url = record(
        openprogram_home,
        tmp_path,
        "carrying",
        CARRYING_ON_PROGRAM,
        text_stream(["Roses ", "are ", "red"]),
        text_stream(["Violets"]),
    )
    done = run_cli(
        openprogram_home,
        "check",
        "carrying",
        "--fault",
        "cut@0:2",
        "--json",
        "--",
        *command,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    assert done.returncode == 1
    [run] = json.loads(done.stdout)["runs"]
    assert run["outcome"] == "partial", run
    assert run["detail"].startswith("went on with the broken answer: replay mismatch at call 0")


def test_a_program_that_asks_again_gets_the_whole_answer_and_ends_cleanly(
    openprogram_home: Path, tmp_path: Path
) -> None:
    command, base_url = record(
        openprogram_home,
        tmp_path,
        "retrying",
        RETRYING_PROGRAM,
        text_stream(["Roses ", "are ", "red"]),
    )
    done = run_cli(
        openprogram_home,
        "check",
        "retrying",
        "--faults",
        "--stall",
        "0.3",
        "--json",
        "--",
        *command,
        cwd=tmp_path,
        AGENT_BASE_URL=base_url,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    runs = {run["fault"]["kind"]: run for run in json.loads(done.stdout)["runs"]}
    for kind in ("cut", "error"):
        assert runs[kind]["outcome"] == "clean", runs[kind]
        assert runs[kind]["detail"] == "asked call 0 again and finished with exit 0"
    # A cancellation is not an answer to retry: the program's task ends there.
    assert runs["cancel"]["outcome"] == "raised"


def test_a_fault_the_recording_cannot_have_is_one_line(openprogram_home: Path) -> None:
    run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    for fault, said in [
        ("cut@5", "--fault cut@5: the recording has 2 calls"),
        ("cut@0:99", "call 0 can break after event 0–12 only, not 99"),
        ("melt", "expected KIND[@CALL[:EVENT]] with KIND one of cut, error, stall, cancel"),
    ]:
        done = run_cli(openprogram_home, "check", "echo", "--fault", fault, "--", *ECHO, "hi")
        assert done.returncode == 2 and said in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    both = run_cli(openprogram_home, "check", "echo", "--faults", "--runs", "2")
    assert both.returncode == 2 and "--runs and --fault/--faults do not go together" in both.stderr
    bounded = run_cli(openprogram_home, "check", "echo", "--faults", "--max-runs", "3")
    assert bounded.returncode == 2
    assert "--faults would run 8 variants, more than --max-runs 3" in bounded.stderr
