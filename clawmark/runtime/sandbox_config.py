"""How to start one sandbox container (clawmark.runtime.sandbox.Sandbox.provision)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from clawmark.runtime.privileges import Privileges

HOST_GATEWAY = "host-gateway"  # as in `docker run --add-host NAME:host-gateway`, on clawmark's networks


class SandboxConfig(BaseModel):
    """How to start one sandbox container."""

    image: str = Field(description="Image ref, e.g. from images.ensure_image('python').")
    cpus: float = Field(1.0, gt=0, description="CPU share (nano_cpus).")
    memory_mb: int = Field(2048, gt=0, description="Memory limit; swap is off (memswap = memory).")
    pids_limit: int = Field(300, gt=0, description="Max processes/threads in the container.")
    network: Literal["none", "gateway", "bridge"] = Field(
        "none", description="none: no network; gateway: internal network reaching only the host gateway IP; "
        "bridge: routed out (clawmark-open). Neither reaches other containers or other host services.")
    user: str | None = Field(None, description="User for the container and execs (e.g. '1000:1000'); None = image default.")
    workdir: str = Field("/", description="Default working directory of execs.")
    env: dict[str, str] = Field(default_factory=dict, description="Environment of the container.")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra labels, e.g. clawmark.sweep/cell/attempt.")
    lifetime_seconds: int = Field(3600, gt=0, description="The container exits by itself after this long.")
    volumes: dict = Field(default_factory=dict, description="docker SDK volumes mapping (host path -> {bind, mode}).")
    extra_hosts: dict[str, str] = Field(default_factory=dict, description="/etc/hosts entries name -> IP, or "
                                        f"{HOST_GATEWAY!r}: the host address the gateway host name maps to.")
    shm_size_mb: int | None = Field(None, gt=0, description="Size of /dev/shm; None = Docker's 64 MB.")
    privileges: Privileges = Field(
        "least", description="least: capabilities dropped to root's file and user handling, no-new-privileges; "
        "swebench-harness: Docker's defaults, as swebench's harness runs evaluations (see docs/security.md).")
    cap_add: list[str] = Field(default_factory=list, description="Linux capabilities added to the profile's (e.g. SYS_ADMIN).")
    max_output_bytes: int = Field(2**20, gt=0, description="Per-stream cap on exec stdout/stderr (head+tail kept).")
    max_copy_bytes: int = Field(2 * 2**30, gt=0, description="Cap on one copy_out/read_file archive.")
