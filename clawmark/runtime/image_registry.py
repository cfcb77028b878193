"""clawmark's images in a Docker registry (`CLAWMARK_IMAGE_REGISTRY`), so that a pool worker on
another machine pulls what this machine built instead of building it again.

An image keeps its content-hash name in the registry (`<registry>/clawmark/python:<hash12>`), so
a worker pulls exactly the recipe its own checkout names, and one the registry lacks is built as
before. Pulled images are tagged under their plain name and lose the registry name, so nothing
else in clawmark sees where an image came from.
"""

from __future__ import annotations

from clawmark.runtime.engine import docker_client
from clawmark.runtime.errors import ImageBuildFailed
from clawmark.runtime.image_cache import PULL_TIMEOUT_S
from clawmark.settings import settings


def registry() -> str | None:
    """The configured registry, without a scheme or trailing slash."""
    given = settings().image_registry
    if not given:
        return None
    return given.removeprefix("http://").removeprefix("https://").rstrip("/")


def pulled(ref: str) -> bool:
    """Pull `ref` from the registry and tag it as `ref`; False when no registry is set or it
    lacks the image (the caller builds it). A registry that cannot be reached is an error:
    building everything instead would hide it for an hour."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    where = registry()
    if where is None:
        return False
    client, remote = docker_client(timeout_s=PULL_TIMEOUT_S), f"{where}/{ref}"
    try:
        image = client.images.pull(remote)
    except docker.errors.NotFound:
        return False
    except docker.errors.APIError as exc:
        if _missing(exc):
            return False
        raise ImageBuildFailed(f"pulling {remote} from CLAWMARK_IMAGE_REGISTRY={where} failed: "
                               f"{exc.explanation or exc}") from exc
    repository, tag = ref.rsplit(":", 1)
    image.tag(repository, tag)
    client.images.remove(remote, noprune=True)
    return True


def push(refs: list[str]) -> list[str]:
    """Push local images to the registry under their own names; returns the remote names."""
    where = registry()
    if where is None:
        raise ImageBuildFailed("no registry to push to: set CLAWMARK_IMAGE_REGISTRY=host:port")
    client, pushed = docker_client(timeout_s=PULL_TIMEOUT_S), []
    for ref in refs:
        remote = f"{where}/{ref}"
        repository, tag = remote.rsplit(":", 1)
        client.images.get(ref).tag(repository, tag)
        try:
            for event in client.api.push(repository, tag, stream=True, decode=True):
                if "error" in event:
                    raise ImageBuildFailed(f"pushing {remote} failed: {event['error']}")
        finally:
            client.images.remove(remote, noprune=True)
        pushed.append(remote)
    return pushed


def _missing(exc) -> bool:
    return "manifest unknown" in str(exc.explanation or exc).lower()
