"""Remove credentials from values before they are written to a recording.

Two passes, no off switch: a dict entry whose key names a credential loses its value, and every other
string is scrubbed by value shape (Bearer and Basic credentials, vendor key formats, JWTs, URL query
secrets and userinfo, PEM private keys). Both replace the secret with `SECRET_PLACEHOLDER`.

This is not anonymisation: prompts, answers, tool results and personal data stay. Known limits: a
password in free text ("my password is hunter2") has no shape and stays; a Bearer token needs 16+
characters with a digit; `bytes` and headers given as lists of pairs are not inspected by name.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from typing import Any, overload

from openprogram.text import SECRET_PLACEHOLDER

__all__ = [
    "REDACTION_VERSION",
    "SECRET_FIELD_NAMES",
    "SECRET_PLACEHOLDER",
    "is_secret_field_name",
    "remove_secret_text",
    "remove_secret_values",
]

"""The fixed text that stands in for every removed secret."""

REDACTION_VERSION = 1
"""Written into recording headers; bump it whenever the rules below change."""

SECRET_FIELD_NAMES: frozenset[str] = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api_key",
        "x-api-key",
        "x-goog-api-key",
        "api-key",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "cookie",
        "set-cookie",
        "secret",
        "client_secret",
        "password",
        "session_key",
    }
)
"""Field names whose values are always removed, compared case-insensitively at any depth."""

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NORMALISED_FIELD_NAMES = frozenset("_".join(_WORD.findall(n)) for n in SECRET_FIELD_NAMES)
# A compound name is a credential when its last word (or last two words) says so.
_SECRET_LAST_WORDS = frozenset(
    {
        "auth", "authorization", "cookie", "cookies", "credential", "credentials", "passphrase",
        "passwords", "secrets", "idtoken",
    }
)  # fmt: skip
# Squashed spellings (XAPIKEY, dbpassword, clientsecret) end in the credential word.
_SECRET_WORD_ENDINGS = (
    "apikey", "password", "passwd", "secret", "privatekey", "secretkey", "accesskey", "sessionkey",
    "accesstoken", "refreshtoken", "authtoken", "sessiontoken", "apitoken", "bearertoken",
)  # fmt: skip
_SECRET_LAST_PAIRS = frozenset(
    (first, second)
    for first in ("api", "secret", "private", "access", "session", "signing", "encryption",
                  "master", "account", "auth", "client")
    for second in ("key", "keys")
)  # fmt: skip
# "token" names a credential unless a qualifier makes it a count or a tokenizer term (max_token).
_NON_CREDENTIAL_TOKEN_QUALIFIERS = frozenset(
    {
        "max", "min", "total", "input", "output", "prompt", "completion", "cached", "cache",
        "reasoning", "thinking", "num", "count", "n", "per", "limit", "budget", "audio", "text",
        "image", "stop", "bos", "eos", "pad", "unk", "sep", "cls", "mask", "special", "start",
        "end", "first", "last", "next", "page", "continuation",
    }
)  # fmt: skip
# Query parameters that carry keys in URLs only (?key=AIza…, Azure ?sig=…); too common elsewhere.
_URL_ONLY_SECRET_NAMES = frozenset({"key", "sig", "signature"})


@functools.lru_cache(maxsize=4096)
def is_secret_field_name(name: str) -> bool:
    """Tell whether a field named `name` holds a credential (`Authorization`, `refreshToken`, …).

    Separators and camelCase split the name into words: an exact `SECRET_FIELD_NAMES` entry, or words
    ending in a credential term (`…_api_key`, `…Secret`, `…_password`, `…-Token`) is secret. Counters
    (`max_tokens`, `token_count`) and names where the credential word is not last (`password_policy`,
    `cache_key`) are not.
    """
    if name.lower() in SECRET_FIELD_NAMES:
        return True
    # Split both as written (refreshToken) and lowercased (REFRESH-TOKEN, x-sESSION-tOKEN).
    return _is_secret_words([w.lower() for w in _WORD.findall(name)]) or _is_secret_words(
        _WORD.findall(name.lower())
    )


def _is_secret_words(words: list[str]) -> bool:
    if not words:
        return False
    if "_".join(words) in _NORMALISED_FIELD_NAMES or words[-1] in _SECRET_LAST_WORDS:
        return True
    if words[-1].endswith(_SECRET_WORD_ENDINGS):
        return True
    if len(words) >= 2 and (words[-2], words[-1]) in _SECRET_LAST_PAIRS:
        return True
    return words[-1] == "token" and (
        len(words) == 1 or words[-2] not in _NON_CREDENTIAL_TOKEN_QUALIFIERS
    )


# Every rule needs one of these (lowercased) substrings; most strings have none and skip the
# regex passes, which matters because this runs on every recorded event.
_TRIGGERS = (
    "bearer", "basic", "sk-", "://", "=", "eyj", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "akia", "asia", "aiza", "xox", "-----begin",
)  # fmt: skip
# "Any trigger in the lowered text" in one pass. For long texts plain substring searches beat
# the regex engine, so those take a loop instead (see `_may_hold_secret`).
_ANY_TRIGGER = re.compile("|".join(re.escape(trigger) for trigger in _TRIGGERS))
_SHORT_TEXT = 64

_PEM_BLOCK = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)",  # unterminated: drop the rest
    re.DOTALL,
)
# "name": "value" in JSON or a Python repr (tool-call arguments, error messages), quotes kept.
_QUOTED_FIELD = re.compile(
    r"(?P<q>\\{0,7}[\"'])(?P<name>[A-Za-z_][\w.\-]{0,63})(?P=q)(?P<colon>\s*:\s*)"
    r"(?P<vq>\\{0,7}[\"'])(?P<value>(?:\\.|[^\\])*?)(?P=vq)",
    re.DOTALL,
)
_URL_USERINFO = re.compile(
    r"(?P<scheme>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s:@?#]+:[^/\s?#]*@"
)
# name=value in query strings, form bodies, `--flag=value` and `NAME=value`; the value is dropped.
_ASSIGNMENT = re.compile(
    r"(?:(?P<sep>[?&;])|(?<![\w.\-?&;]))(?P<name>-{0,2}[A-Za-z][\w.\-]*)="
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s&#\"'<>()\[\]{},;]+)"
)
_TOKEN_CHAR = r"[A-Za-z0-9._~+/=\-]"
_BEARER = re.compile(
    rf"\b(?P<scheme>(?i:bearer)\s+)(?=(?:{_TOKEN_CHAR})*\d)(?:{_TOKEN_CHAR}){{16,}}"
)
# The value sits in a lookahead so a rejected "basic Basic dXNl…" does not swallow the real one.
_BASIC = re.compile(r"\b(?i:basic)\s+(?=(?P<value>[A-Za-z0-9+/]{4,}={0,2})(?![\w+/=]))")
_KEY_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"sk-(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{16,}"  # OpenAI, Anthropic: sk-, sk-proj-, sk-ant-
    r"|eyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"  # JWT
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|AIza[A-Za-z0-9_\-]{35}"  # Google API key
    r")|(?<![A-Za-z0-9])A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])"  # AWS access key id
)


# A value that is kept is scanned again, since it may nest secrets ("args": "{\"token\": …}").
def _quoted_field(match: re.Match[str]) -> str:
    value = match["value"]
    if is_secret_field_name(match["name"]):
        value = SECRET_PLACEHOLDER
    else:
        value = _QUOTED_FIELD.sub(_quoted_field, value)
    q, vq = match["q"], match["vq"]
    return f"{q}{match['name']}{q}{match['colon']}{vq}{value}{vq}"


def _assignment(match: re.Match[str]) -> str:
    name = match["name"]
    url_only = match["sep"] is not None and name.lower() in _URL_ONLY_SECRET_NAMES
    if url_only or is_secret_field_name(name):
        value = SECRET_PLACEHOLDER
    else:
        value = _ASSIGNMENT.sub(_assignment, match["value"])
    return f"{match['sep'] or ''}{name}={value}"


def _is_basic_credential(value: str) -> bool:
    # Basic credentials are base64("user:password"); decoding tells them from "Basic idea".
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return False
    return decoded.find(":") > 0 and len(decoded) >= 3 and decoded.isprintable()  # not "Basic On"


def _remove_basic_credentials(text: str) -> str:
    parts, pos = [], 0
    for match in _BASIC.finditer(text):
        if match.start() >= pos and _is_basic_credential(match["value"]):
            parts += [text[pos : match.end()], SECRET_PLACEHOLDER]
            pos = match.end() + len(match["value"])
    return "".join(parts) + text[pos:]


def remove_secret_text(text: str) -> str:
    """Return `text` with credentials recognised by their shape replaced by `SECRET_PLACEHOLDER`.

    Used for every string of a recorded value and for command lines and error messages. Ordinary
    prose ("the key point", "Bearer of bad news", "Basic idea") comes back unchanged.
    """
    if (  # most strings (a streamed delta, a name) are short and clean: checked inline
        len(text) <= _SHORT_TEXT
        and not (":" in text and ('"' in text or "'" in text))
        and _ANY_TRIGGER.search(text.lower()) is None
    ):
        return text
    if type(text) is str and len(text) <= _CACHED_TEXT_MAX:
        return _remove_secret_text_cached(text)
    return _remove_secret_text(text)


# Requests repeat most of their strings call after call (the system prompt, the history so far),
# so results are remembered: at most 1024 strings of at most 16 KiB each.
_CACHED_TEXT_MAX = 16 * 1024


def _may_hold_secret(text: str) -> bool:
    """False when no rule can apply: no `"name": "value"` pair is possible and no trigger is in it."""
    if ":" in text and ('"' in text or "'" in text):
        return True
    lowered = text.lower()
    if len(lowered) <= _SHORT_TEXT:
        return _ANY_TRIGGER.search(lowered) is not None
    for trigger in _TRIGGERS:  # noqa: SIM110 - a loop beats any() with a generator here
        if trigger in lowered:
            return True
    return False


def _remove_secret_text(text: str) -> str:
    if not _may_hold_secret(text):
        return text
    text = _PEM_BLOCK.sub(SECRET_PLACEHOLDER, text)
    text = _QUOTED_FIELD.sub(_quoted_field, text)
    text = _URL_USERINFO.sub(rf"\g<scheme>{SECRET_PLACEHOLDER}@", text)
    text = _ASSIGNMENT.sub(_assignment, text)
    text = _BEARER.sub(rf"\g<scheme>{SECRET_PLACEHOLDER}", text)
    text = _remove_basic_credentials(text)
    return _KEY_SHAPES.sub(SECRET_PLACEHOLDER, text)


_remove_secret_text_cached = functools.lru_cache(maxsize=1024)(_remove_secret_text)


# Overloads keep the shape for callers: a redacted dict is still a dict (secret values become str).
@overload
def remove_secret_values(value: str) -> str: ...
@overload
def remove_secret_values(value: dict[str, Any]) -> dict[str, Any]: ...
@overload
def remove_secret_values(value: list[Any]) -> list[Any]: ...
@overload
def remove_secret_values(value: object) -> object: ...
def remove_secret_values(value: object) -> object:
    """Return a redacted copy of `value` (dicts, lists, tuples, strings); the input is not changed.

    A dict entry whose key `is_secret_field_name` keeps its key and gets `SECRET_PLACEHOLDER` for any
    value except `None` (so "no key set" stays visible); other strings go through
    `remove_secret_text`. Dict keys and non-string scalars pass through unchanged.
    """
    # This runs on every recorded event: the exact JSON types are dispatched first, without
    # a call per scalar; subclasses (str enums, OrderedDict, ...) take the general path below.
    kind = type(value)
    if kind is str:
        return remove_secret_text(value)  # type: ignore[arg-type]
    if kind is dict:
        return _redact_dict(value)  # type: ignore[arg-type]
    if kind is list:
        return [
            item if type(item) in _PLAIN_SCALARS else remove_secret_values(item)
            for item in value  # type: ignore[attr-defined]
        ]
    if kind in _PLAIN_SCALARS:
        return value
    if isinstance(value, str):
        return remove_secret_text(value)
    if isinstance(value, dict):
        return _redact_dict(value)
    if isinstance(value, list):
        return [remove_secret_values(item) for item in value]
    if isinstance(value, tuple):
        return tuple(remove_secret_values(item) for item in value)
    return value


_PLAIN_SCALARS = frozenset({int, float, bool, type(None)})


def _redact_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    redacted = {}
    for key, item in value.items():
        if isinstance(key, str) and is_secret_field_name(key):
            redacted[key] = None if item is None else SECRET_PLACEHOLDER
        elif type(item) in _PLAIN_SCALARS:
            redacted[key] = item
        else:
            redacted[key] = remove_secret_values(item)
    return redacted
