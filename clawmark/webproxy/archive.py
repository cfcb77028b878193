"""A task's web archive: one JSON file per recorded exchange, and how replay matches a request.

Standard library only: the mitmdump addon loads this file by path inside mitmproxy's own
interpreter, and clawmark uses it to hash and read archives.

A recorded exchange is found by its method and URL (without the fragment); it answers a
request when what was recorded of the request under `match` is equal too: the SHA-256 of the
body, the cookies (name and value; their order does not count), and the headers named in
`DEFAULT_MATCH_HEADERS` (or the proxy's `match_headers`) as they were at recording, absent
ones included. Only what an entry recorded is compared, so changing the header set later
leaves older recordings replayable. Other headers (User-Agent, Accept-Encoding, ...) differ
between claws and runs and never count. Every exchange is recorded, in order, as
`<method+URL key>-<NNNNNN>.json`; when several recorded answers match a request, replay serves
them in recorded order and repeats the last one after that. A later record run into the same
archive adds only requests no earlier run recorded (the addon's `earlier`): the first run's
answers win, and the archive's digest, so the replay cells' keys, stay as they were.

Archives written before this (`<method+URL+body key>.json`, no `match`) stay readable: such an
entry matches on method, URL and body only (cookies and headers were not recorded).
Bodies of answers are stored decoded (no content-encoding), so replay answers the same bytes
whatever the client accepts.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

# The request headers that select which content a server sends (one place; the proxy's
# `match_headers` setting replaces it). Names lowercased.
DEFAULT_MATCH_HEADERS = ("accept", "accept-language")
DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length", "connection", "keep-alive"}
ENTRY_SUFFIX = ".json"
_MAX_SEQUENCE = 999_999


def describe(body: bytes, headers: list[tuple[str, str]]) -> dict:
    """What of a request can select its answer: the body's hash, its cookies (sorted name/value
    pairs of every Cookie header) and its headers (names lowercased, repeats joined by ", ")."""
    joined: dict[str, str] = {}
    for name, value in headers:
        name = name.lower()
        joined[name] = f"{joined[name]}, {value}" if name in joined else value
    cookies = [part.strip().partition("=") for name, value in headers if name.lower() == "cookie"
               for part in value.split(";") if part.strip()]
    return {"body_sha256": hashlib.sha256(body).hexdigest(), "headers": joined,
            "cookies": sorted([name.strip(), value.strip()] for name, _, value in cookies)}


def recorded_match(request: dict, match_headers=DEFAULT_MATCH_HEADERS, match_cookies: bool = True) -> dict:
    """The part of `describe(...)` an entry keeps: body hash, the named headers, the cookies."""
    names = sorted({name.lower() for name in match_headers})
    match = {"body_sha256": request["body_sha256"], "headers": {n: request["headers"].get(n) for n in names}}
    if match_cookies:
        match["cookies"] = request["cookies"]
    return match


def differences(entry: dict, request: dict) -> list[str]:
    """What of `request` differs from what `entry` recorded (empty: it matches). An entry
    without `match` (an older archive) recorded nothing of the kind: it matches."""
    match = entry.get("match")
    if match is None:
        return []
    differ = []
    if "body_sha256" in match and match["body_sha256"] != request["body_sha256"]:
        differ.append("body")
    if "cookies" in match:
        changed = {tuple(p) for p in match["cookies"]} ^ {tuple(p) for p in request["cookies"]}
        if changed:
            differ.append(f"cookies ({', '.join(sorted({name for name, _ in changed}))})")
    differ += [f"header {name}" for name, value in sorted(match.get("headers", {}).items())
               if request["headers"].get(name) != value]
    return differ


def find(archive_dir: Path, method: str, url: str, request: dict) -> tuple[list[tuple[str, dict]], list[str]]:
    """Recorded answers that match `request` (file name, entry), in recorded order; when none
    does, what differs from the closest recording of the same method and URL (empty when the
    archive has none)."""
    candidates = _candidates(Path(archive_dir), method, url, request["body_sha256"])
    matches = [(name, entry) for name, entry in candidates if not differences(entry, request)]
    if matches or not candidates:
        return matches, []
    return [], min((differences(entry, request) for _, entry in candidates), key=len)


def save(archive_dir: Path, method: str, url: str, body: bytes, status: int, headers: list[tuple[str, str]],
         content: bytes, request_headers: list[tuple[str, str]] = (), match_headers=DEFAULT_MATCH_HEADERS,
         match_cookies: bool = True) -> Path:
    """Record one exchange after those already recorded for its method and URL; its file."""
    folder = Path(archive_dir)
    folder.mkdir(parents=True, exist_ok=True)
    match = recorded_match(describe(body, list(request_headers)), match_headers, match_cookies)
    entry = {"method": method.upper(), "url": _plain(url), "status": status, "match": match,
             "headers": [[k, v] for k, v in headers if k.lower() not in DROPPED_HEADERS],
             "content_b64": base64.b64encode(content).decode()}
    tmp = folder / f".{url_key(method, url)}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(entry, indent=1, sort_keys=True) + "\n")
    try:
        return _link_next(tmp, folder, url_key(method, url))
    finally:
        tmp.unlink(missing_ok=True)


def url_key(method: str, url: str) -> str:
    return hashlib.sha256(f"{method.upper()} {_plain(url)}".encode()).hexdigest()


def legacy_key(method: str, url: str, body_sha256: str) -> str:
    """The file name (without .json) of an older archive's entry: method, URL and body."""
    return hashlib.sha256(f"{method.upper()} {_plain(url)} ".encode() + bytes.fromhex(body_sha256)).hexdigest()


def archive_digest(archive_dir: Path) -> str:
    """SHA-256 over every entry file (name and bytes); the digest of an empty archive when absent."""
    digest = hashlib.sha256(b"clawmark-web-archive-v1\0")
    folder = Path(archive_dir)
    for path in sorted(folder.glob(f"*{ENTRY_SUFFIX}")) if folder.is_dir() else []:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _candidates(folder: Path, method: str, url: str, body_sha256: str) -> list[tuple[str, dict]]:
    """An older archive's entry for this body first (it was recorded before), then every
    recording of this method and URL in order."""
    legacy = folder / f"{legacy_key(method, url, body_sha256)}{ENTRY_SUFFIX}"
    paths = ([legacy] if legacy.is_file() else []) + sorted(folder.glob(f"{url_key(method, url)}-*{ENTRY_SUFFIX}"))
    return [(path.name, json.loads(path.read_text())) for path in paths]


def _link_next(tmp: Path, folder: Path, key: str) -> Path:
    """Give `tmp` the next free sequence number of `key`; a link never shows a half-written file
    and fails when another writer took the number first."""
    number = len(list(folder.glob(f"{key}-*{ENTRY_SUFFIX}")))
    while number <= _MAX_SEQUENCE:
        path = folder / f"{key}-{number:06d}{ENTRY_SUFFIX}"
        try:
            os.link(tmp, path)
            return path
        except FileExistsError:
            number += 1
    raise OSError(f"more than {_MAX_SEQUENCE} recordings of one URL in {folder}")


def _plain(url: str) -> str:
    return url.split("#", 1)[0]
