"""A task's web archive: one JSON file per recorded exchange, named by the request's key.

Standard library only: the mitmdump addon loads this file by path inside mitmproxy's own
interpreter, and clawmark uses it to hash and read archives. The key is the method, the URL
without its fragment, and the SHA-256 of the request body; headers are not part of it (they
differ between claws and runs). The first recording of a key wins, so a page fetched twice
replays as the claw first saw it. Bodies are stored decoded (no content-encoding), so replay
answers the same bytes whatever the client accepts.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length", "connection", "keep-alive"}
ENTRY_SUFFIX = ".json"


def request_key(method: str, url: str, body: bytes) -> str:
    plain_url = url.split("#", 1)[0]
    return hashlib.sha256(f"{method.upper()} {plain_url} ".encode() + hashlib.sha256(body).digest()).hexdigest()


def entry_path(archive_dir: Path, method: str, url: str, body: bytes) -> Path:
    return Path(archive_dir) / f"{request_key(method, url, body)}{ENTRY_SUFFIX}"


def lookup(archive_dir: Path, method: str, url: str, body: bytes) -> dict | None:
    path = entry_path(archive_dir, method, url, body)
    return json.loads(path.read_text()) if path.is_file() else None


def save(archive_dir: Path, method: str, url: str, body: bytes, status: int,
         headers: list[tuple[str, str]], content: bytes) -> bool:
    """Record one exchange unless its key is already there; True when written."""
    import base64

    path = entry_path(archive_dir, method, url, body)
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"method": method.upper(), "url": url.split("#", 1)[0], "status": status,
             "headers": [[k, v] for k, v in headers if k.lower() not in DROPPED_HEADERS],
             "content_b64": base64.b64encode(content).decode()}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(entry, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return True


def entries(archive_dir: Path) -> list[dict]:
    """Every recorded exchange, in key order."""
    folder = Path(archive_dir)
    return [json.loads(p.read_text()) for p in sorted(folder.glob(f"*{ENTRY_SUFFIX}"))] if folder.is_dir() else []


def archive_digest(archive_dir: Path) -> str:
    """SHA-256 over every entry file (name and bytes); the digest of an empty archive when absent."""
    digest = hashlib.sha256(b"clawmark-web-archive-v1\0")
    folder = Path(archive_dir)
    for path in sorted(folder.glob(f"*{ENTRY_SUFFIX}")) if folder.is_dir() else []:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
