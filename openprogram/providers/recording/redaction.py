"""Remove credentials from values before they are written to a recording.

Two passes, no off switch: a dict entry whose key names a credential loses its value, and every other
string (dict keys too) is scrubbed by value shape (Bearer and Basic credentials, vendor key formats,
JWTs, URL query secrets and userinfo, header and config lines, PEM private keys). Both replace it with
`SECRET_PLACEHOLDER`. The shapes are data: `KEY_SHAPES` (vendor key formats) and `TEXT_RULES` (the
secrets found by their context), each with an example a test redacts; command lines go through
`remove_secret_argv`, which also drops the argument after an option naming a secret.

This is not anonymisation: prompts, answers, tool results and personal data stay. Known limits: a
password in free text ("my password is hunter2") has no shape and stays; a Bearer token needs 16+
characters with a digit; `bytes` and headers given as lists of pairs are not inspected by name.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, overload

from openprogram.text import SECRET_PLACEHOLDER

__all__ = [
    "KEY_SHAPES",
    "REDACTION_VERSION",
    "SECRET_FIELD_NAMES",
    "SECRET_PLACEHOLDER",
    "TEXT_RULES",
    "is_secret_field_name",
    "remove_secret_argv",
    "remove_secret_text",
    "remove_secret_values",
    "secret_kinds",
]

REDACTION_VERSION = 2
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
        "pass",
        "pwd",
        "sessionid",
        "signature",
    }
)
"""Field names whose values are always removed, compared case-insensitively at any depth."""

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NORMALISED_FIELD_NAMES = frozenset("_".join(_WORD.findall(n)) for n in SECRET_FIELD_NAMES)
# A compound name is a credential when its last word (or last two words) says so.
_SECRET_LAST_WORDS = frozenset(
    {
        "auth", "authorization", "cookie", "cookies", "credential", "credentials", "passphrase",
        "passwords", "secrets", "idtoken", "signature", "pwd", "sessionid",
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
                  "master", "account", "auth", "client", "subscription")
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


@dataclass(frozen=True)
class SecretShape:
    """One rule of redaction by value: what it finds, an example holding such a secret (a test
    redacts every example), and the lowercased substrings one of which any match contains."""

    name: str
    example: str
    triggers: tuple[str, ...]
    pattern: str = ""
    """For `KEY_SHAPES`: the regular expression of the key itself (the whole match is removed)."""
    secret: str = ""
    """The part of `example` that must go (the whole example when empty)."""


KEY_SHAPES: tuple[SecretShape, ...] = (
    SecretShape("OpenAI / Anthropic key", "sk-proj-a1B2c3D4e5F6g7H8i9J0", ("sk-",),
                r"sk-(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{16,}"),
    SecretShape("JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", ("eyj",),
                r"eyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"),
    SecretShape("GitHub token", "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6",
                ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
                r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"),
    SecretShape("Slack token", "xoxb-1234567890-abcdefghij", ("xox",),
                r"xox[abprs]-[A-Za-z0-9\-]{10,}"),
    SecretShape("Slack app token", "xapp-1-A0123BCDEFG-1234567890-abcdef0123456789", ("xapp-",),
                r"xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+"),
    SecretShape("Google API key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", ("aiza",),
                r"AIza[A-Za-z0-9_\-]{35}"),
    SecretShape("Stripe key", "sk_live_a1B2c3D4e5F6g7H8i9J0k1L2", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
                r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    SecretShape("Hugging Face token", "hf_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7", ("hf_",),
                r"hf_[A-Za-z0-9]{30,}"),
    SecretShape("GitLab token", "glpat-a1B2c3D4e5F6g7H8i9J0", ("glpat-",),
                r"glpat-[A-Za-z0-9_\-]{20,}"),
    SecretShape("npm token", "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", ("npm_",),
                r"npm_[A-Za-z0-9]{36,}"),
    SecretShape("Groq key", "gsk_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4", ("gsk_",),
                r"gsk_[A-Za-z0-9]{40,}"),
    SecretShape("xAI key", "xai-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0", ("xai-",),
                r"xai-[A-Za-z0-9]{32,}"),
    SecretShape("AWS access key id", "AKIAIOSFODNN7EXAMPLE", ("akia", "asia"),
                r"(?<![A-Za-z0-9])A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])"),
)  # fmt: skip
"""Vendor key formats, removed wherever they stand in a string."""

# Every credential name (`is_secret_field_name`) holds one of these: a line `Name: value` can
# only be a secret when one is in the text.
_NAME_WORDS = ("key", "pass", "pwd", "secret", "token", "auth", "cookie", "session", "signature",
               "credential")  # fmt: skip

TEXT_RULES: tuple[SecretShape, ...] = (
    SecretShape("PEM private key", "-----BEGIN PRIVATE KEY-----\nMIIEvQhunter2\n-----END PRIVATE KEY-----",
                ("-----begin",), secret="MIIEvQhunter2"),
    SecretShape('quoted field ("password": "…")', '{"password": "hunter2-quoted"}', (":",),
                secret="hunter2-quoted"),
    SecretShape("URL userinfo", "redis://:hunter2-url@cache.internal:6379/0", ("://",),
                secret="hunter2-url"),
    SecretShape("query or assignment (?pwd=, --token=, NAME=)", "https://x.example/?pwd=hunter2-q",
                ("=",), secret="hunter2-q"),
    SecretShape("header or config line (X-Api-Key: …, password: …, key = …)",
                "curl -H \"x-api-key: hunter2-header\" https://api.example", _NAME_WORDS,
                secret="hunter2-header"),
    SecretShape("cookie line", "Cookie: session=hunter2-cookie; theme=dark", ("cookie",),
                secret="hunter2-cookie"),
    SecretShape("Bearer credential", "Authorization: Bearer abcdef0123456789xyz", ("bearer",),
                secret="abcdef0123456789xyz"),
    SecretShape("Basic credential", "Basic dXNlcjpodW50ZXIy", ("basic",), secret="dXNlcjpodW50ZXIy"),
    SecretShape("token / Bot scheme", "Authorization: token hunter2-scheme", ("authorization",),
                secret="hunter2-scheme"),
    SecretShape("Slack or Discord webhook", "https://hooks.slack.com/services/T0/B0/hunter2hook",
                ("hooks.slack.com", "discord.com/api/webhooks"), secret="B0/hunter2hook"),
)  # fmt: skip
"""Secrets found by what stands around them (a field name, a URL, a header line, a scheme)."""

# Every rule needs one of these (lowercased) substrings; most strings have none and skip the
# regex passes, which matters because this runs on every recorded event.
_TRIGGERS = tuple(
    dict.fromkeys(trigger for shape in (*KEY_SHAPES, *TEXT_RULES) for trigger in shape.triggers)
)
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
    r"(?P<scheme>(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s:@?#]*:[^/\s?#]*@"
)
# name=value in query strings, form bodies, `--flag=value` and `NAME=value`; the value is dropped.
_ASSIGNMENT_NAME = re.compile(
    r"(?:(?P<sep>[?&;])|(?<![\w.\-?&;]))(?P<name>-{0,2}[A-Za-z][\w.\-]*)="
)
_ASSIGNMENT_VALUE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s&#\"'<>()\[\]{},;]+")
_TOKEN_CHAR = r"[A-Za-z0-9._~+/=\-]"
_BEARER = re.compile(
    rf"\b(?P<scheme>(?i:bearer)\s+)(?=(?:{_TOKEN_CHAR})*\d)(?:{_TOKEN_CHAR}){{16,}}"
)
# The value sits in a lookahead so a rejected "basic Basic dXNl…" does not swallow the real one.
_BASIC = re.compile(r"\b(?i:basic)\s+(?=(?P<value>[A-Za-z0-9+/]{4,}={0,2})(?![\w+/=]))")
_KEY_SHAPES = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:" + "|".join(f"(?:{shape.pattern})" for shape in KEY_SHAPES) + ")"
)
# `Name: value` or `name = value` (a header in a curl line or a log, YAML, INI) where Name is a
# credential name; the value is one token at the end of its line or quote, so prose such as
# "Password: must be long" stays. Cookie and Authorization lines lose the rest of the line.
_HEADER_NAME = re.compile(r"(?P<name>(?<![\w.\-])[A-Za-z][\w\-]*+)(?P<sep>[ \t]*[:=][ \t]*)")
_HEADER_VALUE = re.compile(
    r"(?P<scheme>(?i:bearer|basic|token|bot)[ \t]+)?(?P<q>(?:\\{0,7}[\"'])?)"
    r"(?P<value>[^\s\"'<>,;()\[\]{}\\]{3,}+)(?P=q)(?=[ \t]*(?:$|\\*[\"',;\r\n]|\\[nr]))",
    re.MULTILINE,
)
_VALUE_RUN = re.compile(r"[^\s\"'<>,;()\[\]{}\\]*+")
_SCHEME_WORD = re.compile(r"(?i:bearer|basic|token|bot)[ \t]")
# A cookie line's value is `name=value` pairs: `cookie: str | None` (code) is not one.
_WHOLE_LINE = re.compile(
    r"(?P<name>(?<![\w\-])(?i:set-cookie|cookie))(?P<sep>[ \t]*:[ \t]*)"
    r"(?P<value>[^\s=;\"']+=[^\r\n\"']*)"
)
# `Authorization: token V` (GitHub) and `Bot V` (Discord): the scheme word alone is ordinary prose.
_SCHEME = re.compile(
    r"(?P<scheme>(?<![\w\-])(?i:(?:proxy-)?authorization)[ \t]*:[ \t]*(?i:token|bot)[ \t]+)"
    r"(?P<value>[A-Za-z0-9._~+/=\-]{4,})"
)
_WEBHOOK = re.compile(
    r"(?P<base>hooks\.slack\.com/services/|discord(?:app)?\.com/api/webhooks/)[\w/\-]+"
)


def _remove_quoted_fields(text: str) -> str:
    """`"name": "value"` pairs whose name is a credential lose their value; a kept value is searched
    again, since it may nest secrets (`"args": "{\\"token\\": …}"`). In one pass, without
    recursion: a kept value is searched in place, up to its end, with a stack of those regions."""
    parts: list[str] = []
    copied = start = 0
    regions = [(len(text), len(text))]  # (where the search ends, where the enclosing one resumes)
    while regions:
        end, resume = regions[-1]
        match = _QUOTED_FIELD.search(text, start, end)
        if match is None:
            regions.pop()
            start = resume
        elif is_secret_field_name(match["name"]):
            parts += [text[copied : match.start("value")], SECRET_PLACEHOLDER]
            copied, start = match.end("value"), match.end()
        else:
            regions.append((match.end("value"), match.end()))
            start = match.start("value")
    return "".join(parts) + text[copied:]


def _is_secret_assignment(match: re.Match[str]) -> bool:
    name = match["name"]
    url_only = match["sep"] is not None and name.lower() in _URL_ONLY_SECRET_NAMES
    return url_only or is_secret_field_name(name)


def _remove_assignments(text: str) -> str:
    """`name=value` pairs whose name is a credential lose their value; a kept value is searched
    again for pairs (`--url=https://x/?pwd=V`, `a="b=V"`), in one pass without recursion: the search
    goes on from a kept value's start (a quoted one up to its closing quote) and only a removed
    value is measured, so `a=a=a=…` stays linear."""
    parts: list[str] = []
    copied = start = 0
    ends = [len(text)]
    while ends:
        match = _ASSIGNMENT_NAME.search(text, start, ends[-1])
        if match is None:
            start = ends.pop()
            continue
        start = match.end()
        secret = _is_secret_assignment(match)
        quoted = start < ends[-1] and text[start] in "\"'"
        value = _ASSIGNMENT_VALUE.match(text, start, ends[-1]) if secret or quoted else None
        if value is not None and secret:
            parts += [text[copied:start], SECRET_PLACEHOLDER]
            copied = start = value.end()
        elif value is not None:
            ends.append(value.end())
    return "".join(parts) + text[copied:]


def _remove_header_values(text: str) -> str:
    """The values of `Name: value` and `name = value` lines whose name is a credential's.

    A value is one token ending its line or quote. When the token after a name does not, no token
    starting inside it can either (they end at the same place): those starts are skipped rather
    than measured again, so `a=a=a=…[` stays linear (a regular expression retried at every `a`
    measured the rest each time). A scheme word (`Bearer `) ends that token, so it is still tried.
    """
    parts: list[str] = []
    copied = pos = 0
    failed_start = failed_end = -1  # a token no value starting inside it ends right
    while (head := _HEADER_NAME.search(text, pos)) is not None:
        start = head.end()
        if failed_start <= start < failed_end and not _SCHEME_WORD.match(text, start):
            pos = head.start() + 1
            continue
        match = _HEADER_VALUE.match(text, start)
        if match is None:
            run = _VALUE_RUN.match(text, start)  # always matches (`*+`), maybe nothing
            failed_start, failed_end = start, run.end() if run else start
            pos = head.start() + 1
            continue
        if is_secret_field_name(head["name"]):
            parts += [text[copied : match.start("value")], SECRET_PLACEHOLDER]
            copied = match.end("value")
        pos = match.end()
    return "".join(parts) + text[copied:]


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


def _sub(pattern: re.Pattern[str], replacement: Any) -> Callable[[str], str]:
    return functools.partial(pattern.sub, replacement)


_RULE_NAMES = {shape.name: shape.name for shape in TEXT_RULES}
_PASSES: tuple[tuple[str, Callable[[str], str]], ...] = (
    (_RULE_NAMES["PEM private key"], _sub(_PEM_BLOCK, SECRET_PLACEHOLDER)),
    (
        _RULE_NAMES['quoted field ("password": "…")'],
        _remove_quoted_fields,
    ),
    (_RULE_NAMES["URL userinfo"], _sub(_URL_USERINFO, rf"\g<scheme>{SECRET_PLACEHOLDER}@")),
    (_RULE_NAMES["Slack or Discord webhook"], _sub(_WEBHOOK, rf"\g<base>{SECRET_PLACEHOLDER}")),
    (
        _RULE_NAMES["query or assignment (?pwd=, --token=, NAME=)"],
        _remove_assignments,
    ),
    (_RULE_NAMES["cookie line"], _sub(_WHOLE_LINE, rf"\g<name>\g<sep>{SECRET_PLACEHOLDER}")),
    (
        _RULE_NAMES["header or config line (X-Api-Key: …, password: …, key = …)"],
        _remove_header_values,
    ),
    (_RULE_NAMES["Bearer credential"], _sub(_BEARER, rf"\g<scheme>{SECRET_PLACEHOLDER}")),
    (_RULE_NAMES["token / Bot scheme"], _sub(_SCHEME, rf"\g<scheme>{SECRET_PLACEHOLDER}")),
    (_RULE_NAMES["Basic credential"], _remove_basic_credentials),
    ("vendor key", _sub(_KEY_SHAPES, SECRET_PLACEHOLDER)),
)
"""Every `TEXT_RULES` entry and the vendor key shapes, as the passes that remove them, in the
order they run: the one list behind both `remove_secret_text` and `secret_kinds`."""
_KEY_SHAPE_PATTERNS = tuple(
    (shape.name, re.compile(r"(?<![A-Za-z0-9_\-])(?:" + shape.pattern + ")"))
    for shape in KEY_SHAPES
)


def _remove_secret_text(text: str) -> str:
    if not _may_hold_secret(text):
        return text
    for _name, remove in _PASSES:
        text = remove(text)
    return text


def secret_kinds(text: str) -> list[str]:
    """The names of the rules (`TEXT_RULES`, `KEY_SHAPES`) that would remove something from `text`,
    each rule tried alone: what `recordings scan` reports, never the secret itself."""
    if not _may_hold_secret(text):
        return []
    kinds = [name for name, remove in _PASSES[:-1] if remove(text) != text]
    kinds += [name for name, pattern in _KEY_SHAPE_PATTERNS if pattern.search(text)]
    return kinds


_remove_secret_text_cached = functools.lru_cache(maxsize=1024)(_remove_secret_text)


_USER_OPTIONS = frozenset({"-u", "--user", "--proxy-user"})
"""Options whose argument is `user:password` (curl, wget): the part after the colon goes."""


def remove_secret_argv(argv: Sequence[str]) -> list[str]:
    """A command line with its secrets removed: each argument as `remove_secret_text` leaves it,
    the argument after an option naming a secret (`--api-key V`, `--password V`) and the password
    of `-u user:V`. Used wherever a command is stored or shown."""
    redacted: list[str] = []
    hide_next = user_next = False
    for argument in argv:
        if hide_next:
            redacted.append(SECRET_PLACEHOLDER)
        elif user_next and ":" in argument:
            user = argument.split(":", 1)[0]
            redacted.append(f"{user}:{SECRET_PLACEHOLDER}")
        else:
            redacted.append(remove_secret_text(argument))
        option = argument if argument.startswith("-") and "=" not in argument else ""
        name = option.lstrip("-")
        hide_next = bool(name) and not (hide_next or user_next) and is_secret_field_name(name)
        user_next = option in _USER_OPTIONS
    return redacted


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

    A dict entry whose key `is_secret_field_name` gets `SECRET_PLACEHOLDER` for any value except
    `None` (so "no key set" stays visible); every other string goes through `remove_secret_text`,
    dict keys included: a key holding a secret loses it, and keys that would then be equal get a
    counter (`[secret removed] (2)`), so the object keeps every entry. A vendor's reasoning signature
    is kept byte for byte (`redacted_signature`). Non-string scalars pass through unchanged.
    """
    if type(value) is dict:  # an event or a request: one call less on the hot path
        return _redact_dict(value, 1)
    return _redacted(value, 0)


_PLAIN_SCALARS = frozenset({int, float, bool, type(None)})
_RECURSION_DEPTH = 64
"""Containers nested deeper are copied by `_redacted_deep`, with a stack instead of recursion."""


def _redacted(value: object, depth: int) -> object:
    # This runs on every recorded event: the exact JSON types are dispatched first, without
    # a call per scalar; subclasses (str enums, OrderedDict, ...) take the general path below.
    kind = type(value)
    if kind is str:
        return remove_secret_text(value)  # type: ignore[arg-type]
    if kind is dict:
        if depth >= _RECURSION_DEPTH:
            return _redacted_deep(value)  # type: ignore[arg-type]
        return _redact_dict(value, depth + 1)  # type: ignore[arg-type]
    if kind is list:
        if depth >= _RECURSION_DEPTH:
            return _redacted_deep(value)  # type: ignore[arg-type]
        return [
            item if type(item) in _PLAIN_SCALARS else _redacted(item, depth + 1)
            for item in value  # type: ignore[attr-defined]
        ]
    if kind in _PLAIN_SCALARS:
        return value
    if kind is _Redacted:
        return value.value  # type: ignore[attr-defined]
    if isinstance(value, str):
        return remove_secret_text(value)
    if isinstance(value, dict | list | tuple) and depth >= _RECURSION_DEPTH:
        return _redacted_deep(value)
    if isinstance(value, dict):
        return _redact_dict(value, depth + 1)
    if isinstance(value, list):
        return [_redacted(item, depth + 1) for item in value]
    if isinstance(value, tuple):
        return tuple(_redacted(item, depth + 1) for item in value)
    return value


@dataclass(frozen=True, slots=True)
class _Redacted:
    """A value `_redacted_deep` has already redacted, standing in its container's shallow copy."""

    value: object


def _redacted_deep(root: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> object:
    """`_redacted` of a deeply nested container, children first, with a stack instead of recursion:
    each container is redacted one level deep (`_redacted`) with its children already redacted."""
    done: dict[int, _Redacted] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        container, children_done = stack.pop()
        if id(container) in done:
            continue
        inner = container.values() if isinstance(container, dict) else container
        if not children_done:
            stack.append((container, True))
            stack.extend(
                (item, False)
                for item in inner
                if isinstance(item, dict | list | tuple) and id(item) not in done
            )
            continue

        def shallow(item: object) -> object:
            return done[id(item)] if isinstance(item, dict | list | tuple) else item

        if isinstance(container, dict):
            copy: object = {key: shallow(item) for key, item in container.items()}
        elif isinstance(container, list):
            copy = [shallow(item) for item in container]
        else:
            copy = tuple(shallow(item) for item in container)
        done[id(container)] = _Redacted(_redacted(copy, 0))
    return done[id(root)].value


# A vendor's reasoning signature is its opaque proof of the reasoning, sent back as is on the next
# turn (Anthropic `signature` and `redacted_thinking` data, Gemini `thoughtSignature` on a text or
# a call): not a credential, and a replay or rerecord of a multi-turn session needs it intact.
_OPAQUE_SIGNATURE_TYPES = frozenset({"thinking", "thinking_end", "text", "text_end", "toolCall"})


def is_opaque_signature(value: dict[Any, Any], key: object) -> bool:
    """True when `value[key]` is a content block's reasoning signature (`redacted_signature`)."""
    return key == "signature" and value.get("type") in _OPAQUE_SIGNATURE_TYPES


def is_secret_entry(value: dict[Any, Any], key: object) -> bool:
    """True when `value[key]` is a credential by its name (a reasoning signature is not)."""
    if not isinstance(key, str) or not is_secret_field_name(key):
        return False
    return not is_opaque_signature(value, key)


_OPAQUE_ITEM_FIELD = "encrypted_content"


def redacted_signature(signature: object) -> object:
    """A reasoning signature as a recording keeps it: byte for byte, except that OpenAI Responses
    keeps its whole reasoning item there as JSON, whose summary text (the reasoning it repeats) is
    redacted like the thinking text; its `encrypted_content` is kept byte for byte."""
    if type(signature) is not str or not signature.startswith("{"):
        return signature if isinstance(signature, str) else remove_secret_values(signature)
    item = _reasoning_item(signature)
    if item is None:
        return remove_secret_text(signature)
    kept = item.pop(_OPAQUE_ITEM_FIELD, None)
    clean = remove_secret_values(item)
    if clean == item:
        return signature
    if kept is not None:
        clean[_OPAQUE_ITEM_FIELD] = kept
    return json.dumps(clean, ensure_ascii=False, separators=(",", ":"))


def signature_text_to_check(signature: str) -> str:
    """The part of a reasoning signature that `redacted_signature` inspects (what a scan checks):
    an OpenAI Responses item without its `encrypted_content`, nothing of an opaque token."""
    if not signature.startswith("{"):
        return ""
    item = _reasoning_item(signature)
    if item is None:
        return signature
    item.pop(_OPAQUE_ITEM_FIELD, None)
    return json.dumps(item, ensure_ascii=False)


def _reasoning_item(signature: str) -> dict[str, Any] | None:
    try:
        item = json.loads(signature)
    except (ValueError, RecursionError):
        return None
    return item if isinstance(item, dict) else None


@functools.lru_cache(maxsize=4096)
def _key_facts(key: str) -> tuple[bool, str]:
    """Whether a dict key names a credential, and the key itself with its secrets removed."""
    return is_secret_field_name(key), remove_secret_text(key)


def _distinct_key(clean: str, original: dict[Any, Any], redacted: dict[Any, Any]) -> str:
    """`clean`, or `clean (2)`, `clean (3)`… when another key of the object is already that."""
    key, number = clean, 1
    while key in redacted or key in original:
        number += 1
        key = f"{clean} ({number})"
    return key


def _redact_dict(value: dict[Any, Any], depth: int) -> dict[Any, Any]:
    redacted: dict[Any, Any] = {}
    for key, item in value.items():
        if type(key) is str:
            secret_name, clean = _key_facts(key)
            if key == "signature" and value.get("type") in _OPAQUE_SIGNATURE_TYPES:
                item = redacted_signature(item)
            elif secret_name:
                item = None if item is None else SECRET_PLACEHOLDER
            elif type(item) not in _PLAIN_SCALARS:
                item = _redacted(item, depth)
            if clean != key:
                key = _distinct_key(clean, value, redacted)
        elif type(item) not in _PLAIN_SCALARS:
            item = _redacted(item, depth)
        redacted[key] = item
    return redacted
