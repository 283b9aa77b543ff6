"""Property tests: planted secrets never reach the dump, ordinary text comes back unchanged."""

from __future__ import annotations

import base64
import json
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from openprogram.providers.recording.redaction import (
    SECRET_FIELD_NAMES,
    SECRET_PLACEHOLDER,
    is_secret_field_name,
    remove_secret_text,
    remove_secret_values,
)

EXAMPLES = settings(max_examples=300, deadline=None)

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "_-"
TOKEN_CHARS = ALNUM + "._~+/=-"

WORDS = [
    "the", "key", "keys", "token", "tokens", "secret", "secrets", "password", "bearer", "Bearer",
    "basic", "Basic", "BASIC", "api", "API", "limit", "reached", "idea", "of", "bad", "news",
    "point", "note", "sticky", "on", "On", "is", "my", "this", "with", "for", "and", "not", "use",
    "rotate", "value", "config", "client", "session", "cookie", "header", "model", "prompt",
    "answer", "tool", "monkey", "keyboard", "secretary", "cache", "count", "max", "sk-learn",
    "desk-lamp", "Token", "Secret", "PASSWORD", "Authorization", "credentials", "passwd", "auth",
]  # fmt: skip
SEPARATORS = [" ", ", ", ". ", "\n", " = ", ": ", " -> ", " (", ") ", "; "]
FIELD_WORDS = ["content", "text", "role", "model", "max_tokens", "usage", "cache_key", "monkey",
               "thinking", "id", "name", "arguments", "headers", "metadata",
               "input_tokens", "total_tokens", "token_count", "options", "url"]  # fmt: skip
SECRET_NAMES = [
    *sorted(SECRET_FIELD_NAMES),
    "X-Session-Token", "service_api_key", "refreshToken", "clientSecret", "db_password",
    "X-Api-Key", "apiKey", "AWS_SECRET_ACCESS_KEY", "private_key", "OPENAI_API_KEY",
]  # fmt: skip
QUERY_NAMES = ["api_key", "key", "access_token", "refresh_token", "id_token", "token",
               "client_secret", "password", "sig", "X-Amz-Security-Token"]  # fmt: skip


def chars(
    alphabet: str, min_size: int, max_size: int, digit: bool = False
) -> st.SearchStrategy[str]:
    """Random token bodies; `digit` plants one, as the Bearer and sk- rules require."""
    body = st.text(alphabet=alphabet, min_size=min_size, max_size=max_size)
    if not digit:
        return body
    return st.tuples(body, st.sampled_from(string.digits), st.integers(0, max_size)).map(
        lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :]
    )


def shaped(template: str, *parts: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, str]]:
    """A planted (text, secret) pair: the secret is the whole formatted credential."""
    return st.tuples(*parts).map(lambda p: (template.format(*p), template.format(*p)))


def hidden(template: str, *parts: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, str]]:
    """A planted (text, secret) pair where only the last part is the secret."""
    return st.tuples(*parts).map(lambda p: (template.format(*p), p[-1]))


def basic_credential(user: str, password: str) -> tuple[str, str]:
    encoded = base64.b64encode(f"{user}:{password}".encode()).decode()
    return f"Basic {encoded}", encoded


def pem_block(kind: str, lines: list[str]) -> tuple[str, str]:
    body = "\n".join(lines)
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----", body


PRINTABLE = string.ascii_letters + string.digits + string.punctuation
pem_body = st.lists(chars(string.ascii_letters + string.digits + "+/", 20, 64), min_size=1)
shapes: st.SearchStrategy[tuple[str, str]] = st.one_of(
    hidden("Bearer {}", chars(TOKEN_CHARS, 16, 48, digit=True)),
    hidden("authorization: bearer {}", chars(TOKEN_CHARS, 16, 48, digit=True)),
    st.builds(basic_credential, chars(PRINTABLE.replace(":", ""), 3, 20), chars(PRINTABLE, 3, 20)),
    shaped("{}{}", st.sampled_from(["sk-", "sk-proj-", "sk-ant-api03-"]),
           chars(URLSAFE, 16, 60, digit=True)),
    shaped("eyJ{}.eyJ{}.{}", chars(URLSAFE, 8, 40), chars(URLSAFE, 8, 80), chars(URLSAFE, 0, 43)),
    shaped("{}_{}", st.sampled_from(["ghp", "gho", "ghu", "ghs", "ghr"]), chars(ALNUM, 36, 36)),
    shaped("github_pat_{}", chars(ALNUM + "_", 22, 82)),
    shaped("{}{}", st.sampled_from(["AKIA", "ASIA"]), chars(UPPER_ALNUM, 16, 16)),
    shaped("AIza{}", chars(URLSAFE, 35, 35)),
    shaped("xox{}-{}", st.sampled_from("baprs"), chars(ALNUM + "-", 10, 60)),
    st.builds(pem_block, st.sampled_from(["", "RSA ", "EC ", "OPENSSH "]), pem_body),
    hidden("https://{}.example.com/v1/x?a=1&{}={}&z=2", chars(string.ascii_lowercase, 1, 10),
           st.sampled_from(QUERY_NAMES), chars(ALNUM + "._~%-", 12, 40)),
    hidden("https://{0}:{2}@{1}.example.org/repo.git", chars(ALNUM, 1, 10),
           chars(string.ascii_lowercase, 1, 10), chars(ALNUM + "._~!$*+-:@", 12, 30)),
    hidden("--{}={}", st.sampled_from(["api-key", "token", "password", "client-secret"]),
           chars(ALNUM + "._-", 12, 30)),
)  # fmt: skip


def _joined(pairs: list[tuple[str, str]]) -> str:
    # A credential name then `:` or `=` and one word is a header or config line (`password: x`),
    # which redaction removes by design (TEXT_RULES): prose here never forms one.
    return "".join(
        word + (" " if sep.strip() in (":", "=") and is_secret_field_name(word) else sep)
        for word, sep in pairs
    ).strip()


prose = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), min_size=1, max_size=30
).map(_joined)
identifier = st.lists(st.sampled_from(WORDS[:40]), min_size=1, max_size=3).map(
    lambda ws: "_".join(w.lower() for w in ws if w.isalpha()) or "value"
)
code = st.one_of(
    st.builds(lambda a, b: f'{a} = os.environ["{b.upper()}"]', identifier, identifier),
    st.builds(lambda a, b: f'config["{a}"] = load_{b}()', identifier, identifier),
    st.builds(lambda a: f"def get_{a}(self) -> str:\n    return self._{a}", identifier),
    st.builds(lambda a, b: f"if {a} == {b}:\n    {a} += 1", identifier, identifier),
    st.builds(lambda a: f"{a}: str | None = None  # the {a} stays", identifier),
)
ordinary_text = st.one_of(prose, code)


@st.composite
def planted_payload(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A nested vendor-style payload with secrets planted by shape and under secret names."""
    secrets: list[str] = []

    def leaf() -> Any:
        kind = draw(st.sampled_from(["prose", "shape", "named", "tool_args", "scalar"]))
        if kind == "prose":
            return draw(ordinary_text)
        if kind == "scalar":
            # Small numbers only: a long number could contain a planted body by chance.
            return draw(st.one_of(st.integers(-999, 999), st.sampled_from([0.5, True]), st.none()))
        if kind == "shape":
            text, secret = draw(shapes)
            secrets.append(secret)
            return f"{draw(prose)} {text} {draw(prose)}"
        name = draw(st.sampled_from(SECRET_NAMES))
        name = draw(st.sampled_from([name, name.swapcase(), name.upper(), name.lower()]))
        # Any shape at all; the "S#" prefix keeps it from matching a field name by chance.
        value = "S#" + draw(chars(ALNUM + "!$%*+,./:;=?@^_|~- ", 10, 40))
        secrets.append(value)
        if kind == "named":
            nested: Any = draw(st.sampled_from([value, [value], {"inner": value}, (value, 1)]))
            return {name: nested, draw(st.sampled_from(FIELD_WORDS)): draw(prose)}
        arguments = {name: value, "query": draw(prose)}
        return {"type": "toolCall", "name": "fetch", "arguments": json.dumps(arguments)}

    def node(depth: int) -> Any:
        if depth == 0 or draw(st.integers(0, 3)) == 0:
            return leaf()
        if draw(st.booleans()):
            keys = draw(st.lists(st.sampled_from(FIELD_WORDS), min_size=1, max_size=4, unique=True))
            return {key: node(depth - 1) for key in keys}
        return [node(depth - 1) for _ in range(draw(st.integers(1, 3)))]

    return node(4), secrets


def test_generated_field_words_are_not_secret_names() -> None:
    assert not any(is_secret_field_name(word) for word in FIELD_WORDS)
    assert all(is_secret_field_name(name) for name in SECRET_NAMES)


@EXAMPLES
@given(planted_payload())
def test_no_planted_secret_reaches_the_dump_and_a_second_pass_changes_nothing(
    planted: tuple[Any, list[str]],
) -> None:
    payload, secrets = planted
    redacted = remove_secret_values(payload)
    assert remove_secret_values(redacted) == redacted  # idempotent: replay redacts again
    dumped = json.dumps(redacted, ensure_ascii=False)
    keys = " ".join(_keys(redacted))
    for secret in secrets:
        if secret in keys:  # a generated body that happens to spell part of a kept key name
            continue  # (`proxy-author` in `proxy-authorization`): keys are never secrets
        assert secret not in dumped
        assert json.dumps(secret, ensure_ascii=False)[1:-1] not in dumped


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [str(key) for key in value] + [k for item in value.values() for k in _keys(item)]
    if isinstance(value, list | tuple):
        return [k for item in value for k in _keys(item)]
    return []


@EXAMPLES
@given(shapes, prose, prose)
def test_prose_around_a_shaped_secret_survives(
    planted: tuple[str, str], before: str, after: str
) -> None:
    text, secret = planted
    redacted = remove_secret_text(f"{before} {text} {after}")
    assert secret not in redacted
    assert redacted.startswith(f"{before} ") and redacted.endswith(f" {after}")
    assert SECRET_PLACEHOLDER in redacted


@EXAMPLES
@given(ordinary_text)
def test_ordinary_text_comes_back_unchanged(text: str) -> None:
    assert remove_secret_text(text) == text
    assert remove_secret_values({"content": [{"text": text}]}) == {"content": [{"text": text}]}


FRAGMENTS = ["Bearer ", "Basic ", "sk-", "://", "?", "&", "=", "eyJ", ".", "ghp_", "AKIA", "AIza",
             "xoxb-", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", '"', "'", ":",
             "\\", "token", "api_key", "key", "a1B2c3D4e5F6g7H8", "dXNlcjpwYXNz", "@", "/", " ",
             "\n", SECRET_PLACEHOLDER, "[", "]", "--", "x"]  # fmt: skip
tricky_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
)


@EXAMPLES
@given(tricky_text)
def test_text_redaction_is_idempotent(text: str) -> None:
    once = remove_secret_text(text)
    assert remove_secret_text(once) == once
