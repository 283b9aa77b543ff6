"""Redaction by field name and by value shape, with the prose that must survive it."""

from __future__ import annotations

import base64
import copy
import json

import pytest

from openprogram.providers.recording.redaction import (
    REDACTION_VERSION,
    SECRET_FIELD_NAMES,
    SECRET_PLACEHOLDER,
    is_secret_field_name,
    remove_secret_text,
    remove_secret_values,
)

COMPOUND_SECRET_NAMES = [
    "Authorization",
    "X-Session-Token",
    "service_api_key",
    "refreshToken",
    "clientSecret",
    "db_password",
    "X-Api-Key",
    "apiKey",
    "AWS_SECRET_ACCESS_KEY",
    "private_key",
    "OPENAI_API_KEY",
    "XApiKey",
    "Proxy-Authorization",
    "csrf_token",
    "bearer token",
    "basic_auth",
    "gcp_credentials",
    "session.cookie",
]
NON_SECRET_NAMES = [
    "max_tokens",
    "token_count",
    "total_tokens",
    "tokens",
    "input_tokens",
    "output_tokens",
    "prompt_tokens",
    "cached_tokens",
    "maxTokens",
    "max_output_token",
    "next_page_token",
    "key",
    "cache_key",
    "monkey",
    "keyboard",
    "secretary",
    "password_policy",
    "tokenizer",
    "content",
    "text",
    "thinking",
    "id",
    "name",
    "",
]

FAKE_OPENAI_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv"
FAKE_ANTHROPIC_KEY = "sk-ant-api03-Zy9xWv8uTs7rQp6oNm5lKj4i"
FAKE_JWT = (
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)
FAKE_GITHUB = "ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz"
FAKE_GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"
FAKE_AWS = "AKIAIOSFODNN7EXAMPLE"
FAKE_GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
FAKE_SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
FAKE_BEARER = "abcDEF123456ghiJKL789"
FAKE_BASIC = base64.b64encode(b"alice:s3cr3t-pw").decode()
FAKE_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq1\nx9Zk+/=\n-----END RSA PRIVATE KEY-----"
)

P = SECRET_PLACEHOLDER
# (text with a planted secret, the secret, what the text must become)
SHAPES = [
    (f"Authorization: Bearer {FAKE_BEARER} sent", FAKE_BEARER, f"Authorization: Bearer {P} sent"),
    (f"header bearer {FAKE_JWT}", FAKE_JWT, f"header bearer {P}"),
    (f"use Basic {FAKE_BASIC} for the proxy", FAKE_BASIC, f"use Basic {P} for the proxy"),
    (f"key {FAKE_OPENAI_KEY} in env", FAKE_OPENAI_KEY, f"key {P} in env"),
    (f"key {FAKE_ANTHROPIC_KEY}.", FAKE_ANTHROPIC_KEY, f"key {P}."),
    ("sk-abcdefghij0123456789 alone", "sk-abcdefghij0123456789", f"{P} alone"),
    (f"token was {FAKE_JWT}.", FAKE_JWT, f"token was {P}."),
    (f"push with {FAKE_GITHUB}", FAKE_GITHUB, f"push with {P}"),
    (f"pat {FAKE_GITHUB_PAT}", FAKE_GITHUB_PAT, f"pat {P}"),
    (f"aws id {FAKE_AWS}, region", FAKE_AWS, f"aws id {P}, region"),
    (f"maps {FAKE_GOOGLE} ok", FAKE_GOOGLE, f"maps {P} ok"),
    (f"slack {FAKE_SLACK}", FAKE_SLACK, f"slack {P}"),
    (f"before\n{FAKE_PEM}\nafter", "MIIEpAIBAAKCAQEA7bq1", f"before\n{P}\nafter"),
    (
        "GET https://api.example.com/v1?api_key=abc123XYZ&model=gpt",
        "abc123XYZ",
        f"GET https://api.example.com/v1?api_key={P}&model=gpt",
    ),
    (
        "https://maps.example.com/x?q=cafe&key=zzTopKey9#top",
        "zzTopKey9",
        f"https://maps.example.com/x?q=cafe&key={P}#top",
    ),
    (
        "https://x.io/cb?access_token=at-1&state=7",
        "at-1",
        f"https://x.io/cb?access_token={P}&state=7",
    ),
    ("https://x.io/cb?a=1&refresh_token=rt-1", "rt-1", f"https://x.io/cb?a=1&refresh_token={P}"),
    ("https://x.io/cb?id_token=it-1", "it-1", f"https://x.io/cb?id_token={P}"),
    (
        "https://x.io/cb?token=t-1&client_secret=cs-1",
        "cs-1",
        f"https://x.io/cb?token={P}&client_secret={P}",
    ),
    ("https://x.io/cb?password=pw-1", "pw-1", f"https://x.io/cb?password={P}"),
    (
        "https://blob.example.net/c?sv=2020&sig=SiGnAtUrE%2B1",
        "SiGnAtUrE",
        f"https://blob.example.net/c?sv=2020&sig={P}",
    ),
    (
        "clone https://alice:hunter2@git.example.com/repo.git now",
        "hunter2",
        f"clone https://{P}@git.example.com/repo.git now",
    ),
    (
        "run --api-key=plainsecret --max-tokens=100",
        "plainsecret",
        f"run --api-key={P} --max-tokens=100",
    ),
    ("env DB_PASSWORD=hunter22 python x.py", "hunter22", f"env DB_PASSWORD={P} python x.py"),
    (
        'error: {"x-api-key": "plain-key", "model": "m"}',
        "plain-key",
        f'error: {{"x-api-key": "{P}", "model": "m"}}',
    ),
    ("headers={'Authorization': 'Token abc'}", "Token abc", f"headers={{'Authorization': '{P}'}}"),
]

PROSE = [
    "the key point",
    "Token limit reached",
    "Basic idea",
    "Basic On and Off",
    "Bearer of bad news",
    "bearer bonds are rare",
    "basic authentication is weak",
    "my password is on a sticky note",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "sk-learn is a library",
    "desk-lamp and task-list-manager-2",
    "max_tokens=1024, token_count=3",
    "see https://example.com/docs?page=2&sort=asc#token",
    "a == b and x=y",
    "Secret of the monkey island: keyboard, key, cache_key",
    'config["token"] = load()',
    "ghp is not a token, AKIA alone is not, AIza alone is not, xoxb- alone is not",
    "eyJ alone, -----BEGIN PUBLIC KEY----- is public",
    "ssh://git@github.com/org/repo.git",
    "x = a ? b : c",
]


def test_version_and_placeholder_are_fixed() -> None:
    assert SECRET_PLACEHOLDER == "[secret removed]"
    assert isinstance(REDACTION_VERSION, int) and REDACTION_VERSION >= 1


@pytest.mark.parametrize("name", sorted(SECRET_FIELD_NAMES) + COMPOUND_SECRET_NAMES)
def test_secret_field_names_are_recognised_in_any_case(name: str) -> None:
    assert is_secret_field_name(name)
    assert is_secret_field_name(name.upper())
    assert is_secret_field_name(name.lower())


@pytest.mark.parametrize("name", NON_SECRET_NAMES)
def test_counters_and_ordinary_words_are_not_secret_names(name: str) -> None:
    assert not is_secret_field_name(name)


@pytest.mark.parametrize("name", sorted(SECRET_FIELD_NAMES) + COMPOUND_SECRET_NAMES)
def test_secret_fields_are_removed_at_any_depth(name: str) -> None:
    payload = {
        "headers": {name: "v1", "content-type": "application/json"},
        # (not a `text` block: there `signature` is Gemini's opaque thoughtSignature, kept)
        "messages": [
            {"role": "user", "content": [{"type": "input_text", "text": "hi", name: "v2"}]}
        ],
        "vendor": {"config": {"nested": [[{name: {"deep": "v3"}}]], "max_tokens": 7}},
        name: 12345,
    }
    redacted = remove_secret_values(payload)
    assert redacted == {
        "headers": {name: SECRET_PLACEHOLDER, "content-type": "application/json"},
        "messages": [
            {
                "role": "user",
                "content": [{"type": "input_text", "text": "hi", name: SECRET_PLACEHOLDER}],
            }
        ],
        "vendor": {"config": {"nested": [[{name: SECRET_PLACEHOLDER}]], "max_tokens": 7}},
        name: SECRET_PLACEHOLDER,
    }


def test_secret_fields_keep_none_and_lose_every_other_value() -> None:
    redacted = remove_secret_values(
        {"api_key": None, "token": "", "password": 0, "secret": False, "cookie": ["a"]}
    )
    assert redacted == {
        "api_key": None,
        "token": SECRET_PLACEHOLDER,
        "password": SECRET_PLACEHOLDER,
        "secret": SECRET_PLACEHOLDER,
        "cookie": SECRET_PLACEHOLDER,
    }


def test_non_secret_fields_and_scalars_pass_through() -> None:
    payload = {
        "usage": {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8, "cache_key": "k1"},
        "thinking": "so the key point is", "type": "thinking", "signature": "c2lnbmF0dXJl",
        "id": "msg_1",
        "temperature": 0.5, "stream": True, "stop": None, 7: "int key",
    }  # fmt: skip
    assert remove_secret_values(payload) == payload


@pytest.mark.parametrize(("text", "secret", "expected"), SHAPES)
def test_value_shapes_are_removed_and_the_prose_around_them_survives(
    text: str, secret: str, expected: str
) -> None:
    redacted = remove_secret_text(text)
    assert secret not in redacted
    assert redacted == expected


def test_bearer_and_basic_keep_their_scheme_word() -> None:
    assert remove_secret_text(f"Bearer {FAKE_BEARER}") == f"Bearer {SECRET_PLACEHOLDER}"
    assert remove_secret_text(f"Basic {FAKE_BASIC}") == f"Basic {SECRET_PLACEHOLDER}"
    assert remove_secret_text(FAKE_PEM) == SECRET_PLACEHOLDER


def test_a_rejected_scheme_word_does_not_hide_the_credential_after_it() -> None:
    assert remove_secret_text(f"basic Basic {FAKE_BASIC}") == f"basic Basic {P}"
    assert remove_secret_text(f"Bearer Bearer {FAKE_BEARER}") == f"Bearer Bearer {P}"


def test_unterminated_private_key_block_is_removed_to_the_end() -> None:
    text = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"
    assert remove_secret_text(text) == f"key:\n{SECRET_PLACEHOLDER}"


def test_secrets_nested_in_json_strings_are_removed() -> None:
    arguments = json.dumps({"query": "weather", "auth": {"token": "plain", "user": "bob"}})
    tool_call = {"type": "toolCall", "name": "fetch", "arguments": arguments}
    redacted = remove_secret_values(tool_call)
    assert "plain" not in json.dumps(redacted)
    assert json.loads(redacted["arguments"])["query"] == "weather"
    double = json.dumps({"wrapper": json.dumps({"password": "pw-in-json"})})
    assert "pw-in-json" not in remove_secret_text(double)


@pytest.mark.parametrize("text", PROSE)
def test_ordinary_prose_survives_byte_for_byte(text: str) -> None:
    assert remove_secret_text(text) == text
    assert remove_secret_values({"content": [text]}) == {"content": [text]}


def test_strings_inside_lists_and_tuples_are_scrubbed() -> None:
    redacted = remove_secret_values(["x", (f"Bearer {FAKE_BEARER}", 3), [FAKE_AWS]])
    assert redacted == ["x", (f"Bearer {SECRET_PLACEHOLDER}", 3), [SECRET_PLACEHOLDER]]


def test_input_is_not_mutated() -> None:
    payload = {
        "headers": {"Authorization": f"Bearer {FAKE_BEARER}"},
        "messages": [{"content": [f"key {FAKE_OPENAI_KEY}"], "meta": ("t", FAKE_AWS)}],
    }
    before = copy.deepcopy(payload)
    redacted = remove_secret_values(payload)
    assert payload == before
    assert redacted != payload


def test_redaction_is_idempotent_on_examples() -> None:
    for text, _, _ in SHAPES:
        once = remove_secret_text(text)
        assert remove_secret_text(once) == once
    payload = {"token": "x", "url": "https://u:p@h/?key=1", "s": FAKE_SLACK}
    once_value = remove_secret_values(payload)
    assert remove_secret_values(once_value) == once_value


def test_secret_field_names_are_importable_from_where_the_seed_puts_them() -> None:
    import openprogram.providers as providers
    import openprogram.providers.recording as recording

    assert recording.SECRET_FIELD_NAMES is SECRET_FIELD_NAMES
    assert providers.SECRET_FIELD_NAMES is SECRET_FIELD_NAMES
    assert "SECRET_FIELD_NAMES" in recording.__all__ and "SECRET_FIELD_NAMES" in providers.__all__
    assert {"authorization", "api_key", "password"} <= SECRET_FIELD_NAMES
