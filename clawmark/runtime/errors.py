"""Typed failures of the runtime room. Callers tell infrastructure trouble (engine, image,
container death) apart from what the code under test did (a non-zero exit code is not an error)."""

from __future__ import annotations

from clawmark.errors import Infra, Permanent


class RuntimeFailure(Infra):
    """Base of every runtime error: an infrastructure problem, never a model failure."""


class EngineUnavailable(RuntimeFailure):
    """No Docker engine answers."""


class ImageMissing(RuntimeFailure):
    """An image is not present and could not (or must not) be built."""

    @classmethod
    def not_present(cls, ref: str) -> "ImageMissing":
        return cls(f"image {ref} is not present; build it with `clawmark images build`")


class ImageBuildFailed(ImageMissing):
    """Building an image recipe failed; the message carries the tail of the build log."""


class ExecTimeout(RuntimeFailure, Permanent):
    """A command ran past its host-side deadline (raised only when the caller asks for it)."""

    def __init__(self, cmd: str, timeout_s: float, result: object = None) -> None:
        super().__init__(f"command exceeded its {timeout_s:g}s deadline and was killed: {cmd}")
        self.timeout_s = timeout_s
        self.result = result


class ArchiveTooLarge(RuntimeFailure, Permanent):
    """A copy out of a container exceeded its byte limit (SandboxConfig.max_copy_bytes)."""


class ContainerGone(RuntimeFailure):
    """The container (or the command's process) was killed by the engine or the kernel.

    `reason` is the engine's account (OOM-killed, exit code, error text); `result` holds the
    partial ExecResult when the death was noticed during an exec.
    """

    def __init__(self, reason: str, result: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result = result


class OutOfMemory(ContainerGone, Permanent):
    """The kernel's OOM killer hit the container's memory limit."""
