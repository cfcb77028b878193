"""Claw layers shared into instance containers as named volumes seeded from a claw image.

Instance images derive from several language images, so a claw that runs in the container is
not baked into each of them: its self-contained folder (a venv, a Node runtime + package) is
copied by Docker from the claw image into an empty named volume on first mount, and that volume
is mounted read-only into every instance container. Seeding runs under the engine's host lock
(every thread, process and pool worker of this host on one engine waits for one seeder), and a
volume whose seeding failed is removed, so no attempt ever mounts a half-copied layer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawmark.claws.base import ClawError
from clawmark.runtime.engine import shared_client
from clawmark.runtime.engine_lock import engine_lock
from clawmark.runtime.images import ensure_image
from clawmark.runtime.privileges import host_config

if TYPE_CHECKING:
    import docker

SEED_MEMORY, SEED_PIDS = "1g", 128  # the seeding check runs a version probe, nothing more


def seeded_volume(image_name: str, mount: str, check: str) -> str:
    """Name of the volume holding ``mount`` of recipe ``image_name``'s current image; ``check``
    (a shell command) must succeed in the image with the volume mounted before it is kept."""
    ref = ensure_image(image_name)
    name = f"clawmark-{image_name}-" + ref.rsplit(":", 1)[-1]
    client = shared_client()
    with engine_lock(f"volume-{name}", client):
        if not client.volumes.list(filters={"name": f"^{name}$"}):
            _seed(client, ref, name, mount, check)
    return name


def _seed(client: docker.DockerClient, ref: str, name: str, mount: str, check: str) -> None:
    from clawmark.runtime.owner import container_labels  # owner + the attempt's sweep/cell: reapable

    volume = client.volumes.create(name, labels={"clawmark.managed": "true", "clawmark.image": ref})
    try:  # Docker copies the image's folder into the empty volume; the check only reads it
        client.containers.run(ref, ["sh", "-c", check], remove=True, network_mode="none",
                              volumes={name: {"bind": mount, "mode": "rw"}}, labels=container_labels(),
                              mem_limit=SEED_MEMORY, pids_limit=SEED_PIDS, **host_config("least", []))
    except Exception as exc:
        volume.remove(force=True)
        raise ClawError(f"could not seed volume {name} from {ref}: {exc}") from exc
