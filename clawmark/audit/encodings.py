"""The byte strings a secret value takes when an agent or a tool re-encodes it: what the audit
searches for besides the value itself.

A value is found base64-encoded (standard or URL-safe alphabet) even inside a longer base64
string (a Basic auth header `user:KEY`, a whole `.env` file encoded): base64 turns 3 bytes into
4 characters, so the value's characters depend on where it starts modulo 3. For each of the
three starts, the needle is the run of characters made of the value's bits alone; the one or two
characters shared with the bytes around it (or the padding) are left out, so up to 4 bits at each
end of the value go unchecked: a value differing from a secret only there matches too (real keys
differ in far more).

Base64 and hex are matched on the *joined* text, with line breaks removed (raw or JSON-escaped):
`base64` wraps its output at 76 columns and `xxd -p` at 60, and a wrapped key is still a key.
Their alphabets hold no line break nor backslash, so a needle never spans what was removed.
"""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

EXACT = "exact"
# Each encoding's words in a finding ("exact" adds none: the finding reads as before).
DESCRIBED = {EXACT: "", "json": "JSON-escaped", "percent": "percent-encoded", "hex": "hex-encoded",
             "base64": "base64-encoded", "base64url": "base64url-encoded"}
JOINED = frozenset({"hex", "base64", "base64url"})  # matched with line breaks removed
_LINE_BREAKS = (b"\\r", b"\\n")  # JSON-escaped; raw ones go by translate


def encoded_forms(value: str) -> dict[bytes, str]:
    """needle -> encoding, for every form of `value`; a form that equals an earlier one (a plain
    key is its own JSON and percent form) is kept once under the earlier encoding."""
    raw = value.encode()
    forms: dict[bytes, str] = {raw: EXACT}
    for encoding, needles in (("json", _json_forms(value)), ("percent", _percent_forms(raw)),
                              ("hex", [raw.hex().encode(), raw.hex().upper().encode()]),
                              ("base64", _base64_forms(raw, None)), ("base64url", _base64_forms(raw, b"-_"))):
        for needle in needles:
            if needle:
                forms.setdefault(needle, encoding)
    return forms


def joined(data: bytes) -> bytes:
    """`data` without line breaks, raw or JSON-escaped: how wrapped base64 and hex are matched."""
    data = data.translate(None, b"\r\n")
    for escaped in _LINE_BREAKS:
        data = data.replace(escaped, b"")
    return data


def _base64_forms(raw: bytes, altchars: bytes | None) -> list[bytes]:
    """The value's characters when it starts 0, 1 or 2 bytes into a base64-encoded string."""
    needles = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw, altchars)
        first = -(-8 * offset // 6)  # the first character holding none of the preceding bytes' bits
        end = 8 * (offset + len(raw)) // 6  # past the last character made of the value's bits only
        needles.append(encoded[first:end])
    return needles


def _json_forms(value: str) -> list[bytes]:
    """As a JSON string's contents (ASCII-escaped or not, `/` as `\\/` as some encoders write it),
    and escaped twice, as in a tool call's JSON arguments inside a JSON transcript."""
    once = [json.dumps(value, ensure_ascii=ascii_only)[1:-1] for ascii_only in (True, False)]
    once += [form.replace("/", "\\/") for form in once]
    twice = [json.dumps(form)[1:-1] for form in once]
    return [form.encode() for form in once + twice]


def _percent_forms(raw: bytes) -> list[bytes]:
    """As a URL would carry it: reserved characters escaped (with and without `/`, spaces as
    `+`), or every byte escaped; upper- and lowercase hex digits."""
    upper = [quote(raw, safe=""), quote(raw, safe="/"), quote_plus(raw, safe=""), "".join(f"%{b:02X}" for b in raw)]
    lower = [re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), form) for form in upper]
    return [form.encode() for form in upper + lower]
