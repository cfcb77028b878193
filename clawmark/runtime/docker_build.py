"""`docker build` of a Dockerfile text over a context folder, streamed, with a readable failure."""

from __future__ import annotations

import io
import tarfile
import tempfile
from collections import deque
from collections.abc import Callable
from pathlib import Path

from clawmark.runtime.errors import ImageBuildFailed

DOCKERFILE_NAME = ".clawmark.Dockerfile"
MAX_CONTEXT_BYTES = 2 * 2**30


def build(client, ref: str, context_dir: Path | None, dockerfile_text: str, parent_ref: str | None,
          labels: dict[str, str], progress: Callable[[str], None] | None = None) -> None:
    """Build `ref`; the parent ref is passed as build-arg PARENT. Raises ImageBuildFailed."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    try:
        _stream_build(client, ref, context_dir, dockerfile_text, parent_ref, labels, progress)
    except docker.errors.APIError as exc:
        raise ImageBuildFailed(f"building {ref} failed: {exc.explanation or exc}") from exc


def _stream_build(client, ref, context_dir, dockerfile_text, parent_ref, labels, progress) -> None:
    tail: deque[str] = deque(maxlen=40)
    with _context_tar(context_dir, dockerfile_text) as context:
        stream = client.api.build(
            fileobj=context, custom_context=True, dockerfile=DOCKERFILE_NAME, tag=ref,
            buildargs={"PARENT": parent_ref} if parent_ref else None, labels=labels,
            rm=True, forcerm=True, pull=False, decode=True,
        )
        for chunk in stream:
            if "error" in chunk:
                tail.append(str(chunk["error"]).strip())
                raise ImageBuildFailed(f"building {ref} failed:\n" + "\n".join(tail))
            for line in str(chunk.get("stream", "")).splitlines():
                tail.append(line)
                if progress and line.strip():
                    progress(line)


def _context_tar(context_dir: Path | None, dockerfile_text: str) -> tempfile.SpooledTemporaryFile:
    spool = tempfile.SpooledTemporaryFile(max_size=64 * 2**20)
    with tarfile.open(fileobj=spool, mode="w") as tar:
        if context_dir is not None:
            for child in sorted(Path(context_dir).iterdir()):
                tar.add(str(child), arcname=child.name)
        data = dockerfile_text.encode()
        info = tarfile.TarInfo(DOCKERFILE_NAME)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    if spool.tell() > MAX_CONTEXT_BYTES:
        raise ImageBuildFailed(f"build context {context_dir} exceeds {MAX_CONTEXT_BYTES // 2**30} GiB")
    spool.seek(0)
    return spool
