"""The HTTP side of vendor calls: the streamed POST, and one-line messages for all its failures.

Every HTTP provider reports failures through `ProviderStreamError`, whose message names the api, the
URL (without credentials or query) and the vendor's own error text (HTTP statuses, error bodies,
transport errors, timeouts, aborts), and never a traceback or a key.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from contextlib import AsyncExitStack, aclosing
from typing import Any, Literal

import httpx

from openprogram.errors import OpenProgramError
from openprogram.text import SECRET_PLACEHOLDER, one_line

MAX_MESSAGE_CHARS = 400


class ProviderStreamError(OpenProgramError):
    """A vendor call that cannot finish; `message` is the one-line text for `error_message`."""

    def __init__(self, message: str, reason: Literal["error", "aborted"] = "error") -> None:
        super().__init__(message)
        self.message = message
        self.reason: Literal["error", "aborted"] = reason


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every occurrence of each non-empty secret replaced by a placeholder."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, SECRET_PLACEHOLDER)
    return text


def display_url(url: str | httpx.URL) -> str:
    """The URL as shown in messages: scheme, host, port and path; no userinfo, no query."""
    try:
        parsed = httpx.URL(url)
    except Exception:
        # Messages about a malformed URL must not fail themselves.
        return one_line(str(url).split("?", 1)[0].rsplit("@", 1)[-1], limit=200)
    if not parsed.scheme or not parsed.host:
        return one_line(str(parsed.copy_with(query=None)), limit=200)
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme}://{parsed.host}{port}{parsed.path}"


def vendor_error_text(payload: Any) -> str | None:
    """The error text in a vendor error body, e.g. `Rate limit reached (rate_limit_exceeded)`.

    Understands OpenAI's `{"error": {"message", "code", "type"}}`, Anthropic's
    `{"type": "error", "error": {"type", "message"}}` and the common `{"error": "..."}` or
    `{"message": "..."}` shapes of compatible servers.
    """
    if not isinstance(payload, dict):
        return None
    error = payload.get("error", payload)
    if isinstance(error, str):
        return error or None
    if not isinstance(error, dict):
        return None
    message = error.get("message") or error.get("detail")
    kind = error.get("code") or error.get("type")
    if kind == "error":
        kind = None
    if not message:
        return str(kind) if kind else None
    return f"{message} ({kind})" if kind else str(message)


def describe_body(body: bytes) -> str:
    """The most useful text in an error body: the vendor's error if it is JSON, else the text."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        described = vendor_error_text(json.loads(text))
    except ValueError:
        described = None
    return described or text


def http_status_message(api: str, url: str, status: int, reason_phrase: str, body: bytes) -> str:
    """The message for an HTTP error status, e.g. `openai-completions: HTTP 429 from …: …`."""
    detail = describe_body(body) or reason_phrase or "no error details in the response"
    return one_line(f"{api}: HTTP {status} from {display_url(url)}: {detail}")


def transport_error_message(api: str, url: str, error: httpx.HTTPError, timeout: float) -> str:
    """The message for a timeout, a refused connection or a connection dropped mid-stream."""
    where = display_url(url)
    cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, httpx.TimeoutException):
        text = f"timed out after {timeout:g}s waiting for {where} ({cause})"
    elif isinstance(error, httpx.ConnectError):
        text = f"could not connect to {where} ({cause})"
    elif isinstance(error, httpx.RemoteProtocolError | httpx.ReadError):
        text = f"connection to {where} closed before the response finished ({cause})"
    else:
        text = f"request to {where} failed ({cause})"
    return one_line(f"{api}: {text}")


def aborted_error(api: str) -> ProviderStreamError:
    """The error for a call the caller aborted through `options.signal`."""
    return ProviderStreamError(f"{api}: request aborted by the caller", reason="aborted")


async def _abortable(lines: AsyncIterator[str], signal: Any, api: str) -> AsyncGenerator[str, None]:
    """`lines` until `signal` is set; an awaitable `signal.wait()` also interrupts a stalled read."""
    wait = getattr(signal, "wait", None)
    if signal is None or not inspect.iscoroutinefunction(wait):
        async for line in lines:
            if signal is not None and signal.is_set():
                raise aborted_error(api)
            yield line
        return
    waiter = asyncio.ensure_future(wait())
    read: asyncio.Future[str] | None = None
    try:
        while not signal.is_set():
            read = asyncio.ensure_future(anext(lines))
            await asyncio.wait({read, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if not read.done():
                break
            try:
                line = read.result()
            except StopAsyncIteration:
                return
            read = None
            yield line
        raise aborted_error(api)
    finally:
        waiter.cancel()
        if read is not None and not read.done():
            read.cancel()
            # Let the cancelled read unwind before the response is closed under it; `wait` never
            # raises the read's CancelledError, so a cancellation of our own task still propagates.
            await asyncio.wait({read})


async def post_streaming_lines(
    api: str,
    client: httpx.AsyncClient | None,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    timeout: float,
    signal: Any,
) -> AsyncGenerator[str, None]:
    """POST `body` as JSON and yield the response's lines; every failure is a `ProviderStreamError`.

    Without `client`, a client is opened for this call and closed with it. HTTP error statuses,
    a JSON body where a stream was expected, transport errors and timeouts get one-line messages;
    a set `signal` ends the lines with an `aborted` error.
    """
    try:
        async with AsyncExitStack() as stack:
            if client is None:
                client = await stack.enter_async_context(httpx.AsyncClient(timeout=timeout))
            response = await stack.enter_async_context(
                client.stream("POST", url, json=body, headers=headers, timeout=timeout)
            )
            if response.status_code >= 400:
                raw = await response.aread()
                raise ProviderStreamError(
                    http_status_message(api, url, response.status_code, response.reason_phrase, raw)
                )
            if "application/json" in response.headers.get("content-type", ""):
                # A JSON body where an event stream was asked for is usually a proxy's error page.
                detail = describe_body(await response.aread())
                raise ProviderStreamError(
                    one_line(f"{api}: expected an event stream from {display_url(url)}: {detail}")
                )
            lines = _abortable(response.aiter_lines(), signal, api)
            async with aclosing(lines):
                async for line in lines:
                    yield line
    except httpx.HTTPError as error:
        raise ProviderStreamError(transport_error_message(api, url, error, timeout)) from None
