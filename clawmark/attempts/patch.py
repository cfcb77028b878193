"""One attempt of the patch track: one instance × one claw × one model × one seed → one row.

load instance ─► InstanceEnv (provision at base, strip history, refuse on leak) ─► register the
attempt with the gateway ─► claw: docker_args, post_container_start, create_agent, send_task
(fixed prompt: problem statement + base commit, never hints), backup_session ─► extract the
patch ─► delete_agent + teardown (always) ─► evaluate in a fresh container ─► row + prediction
+ report.json in the cell's artifact folder, row committed last.

The claw's budget is also a host-side deadline: when it passes, the claw is stopped (its host
loop asked to end, every process in the container killed, its calls cut at the gateway) and its
thread joined; only then is the patch taken from the container (as Claw-SWE-Bench does for
timed-out instances). The ledger is summed after the attempt is closed at the gateway.

Each step is a stage over the attempt's state (clawmark/attempts/patch_stages.py); this function
runs them directly, the sweep flow runs each as a Prefect task (flows/attempt.py).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from clawmark.attempts.base import claw_identity, claw_image_ref, profile_fields
from clawmark.attempts.gateway_link import uses_fallback_price
from clawmark.attempts.model_family import model_for_task
from clawmark.attempts.patch_config import PatchAttemptConfig
from clawmark.attempts.patch_stages import PATCH_STAGES, PatchAttempt
from clawmark.attempts.phases import open_cell
from clawmark.attempts.seams import AttemptGateway, AttemptStore
from clawmark.attempts.stages import run_stages
from clawmark.catalog.swe import SweInstance
from clawmark.claws import ClawAdapter
from clawmark.claws.profiles import claw_for
from clawmark.results import AttemptRow, Track, config_hash
from clawmark.runtime.images import image_ref
from clawmark.runtime.recipes import tree_digest
from clawmark.swe.instance_image import runtime_image_name

# Re-exported: the patch track's config and identity pieces are imported from here.
__all__ = ["PatchAttemptConfig", "claw_image_ref", "environment_hash", "identity_fields", "model_for_task",
           "open_patch_attempt", "profile_fields", "run_patch_attempt"]


def run_patch_attempt(
    instance: SweInstance,
    claw_name: str,
    model: str,
    seed: int,
    store: AttemptStore,
    sweep_id: str,
    gateway: AttemptGateway | None,
    *,
    config: PatchAttemptConfig | None = None,
) -> AttemptRow:
    """Run one cell and commit its row; infra failures become error rows, never exceptions.
    Raises UnpricedModel before anything runs when the model has no price and no fallback."""
    return run_stages(open_patch_attempt(instance, claw_name, model, seed, store, sweep_id, gateway, config=config),
                      PATCH_STAGES)


def open_patch_attempt(instance: SweInstance, claw_name: str, model: str, seed: int, store: AttemptStore,
                       sweep_id: str, gateway: AttemptGateway | None, *,
                       config: PatchAttemptConfig | None = None) -> PatchAttempt:
    """The state of a fresh attempt of the cell (clawmark/attempts/patch_stages.py), its folder
    laid out and its config saved; the stages in PATCH_STAGES run it to its row."""
    claw, config = claw_for(claw_name, config or PatchAttemptConfig())
    fallback = uses_fallback_price(model_for_task(model, instance.instance_id), config, claw)
    fields = identity_fields(instance, claw, model, seed, sweep_id, config)
    saved = _saved_config(instance, claw, model, seed, config)
    layout, attempt_id, saved_hash = open_cell(store, sweep_id, fields, saved)
    return PatchAttempt(instance, claw, model, attempt_id, layout, gateway, config, store=store, fields=fields,
                        saved_hash=saved_hash, price_fallback=fallback)


def identity_fields(instance: SweInstance, claw: ClawAdapter, model: str, seed: int, sweep_id: str,
                    config: PatchAttemptConfig, environment: str | None = None,
                    claw_image: str | None = None) -> dict[str, object]:
    """The cell's identity. `environment` (`environment_hash(instance)`) and `claw_image`
    (`claw_image_ref(claw)`) are computed here unless the caller has them already (a planner
    keys many cells of one instance or claw)."""
    environment = environment if environment is not None else environment_hash(instance)
    return {
        **claw_identity(claw, model, seed, sweep_id, config, claw_image),
        "track": Track.PATCH,
        "task_id": instance.instance_id,
        # The row's content, not where this machine keeps its bundle: same hash on every host.
        "task_hash": config_hash({"row": instance.model_dump(mode="json", exclude={"image_recipe", "repo_bundle"}),
                                  "environment": environment}),
        "category": instance.repo,
        "language": instance.language,
        "model_params_hash": config_hash(config.model_params),
    }


def environment_hash(instance: SweInstance) -> str:
    """What decides the instance's container besides its row: the runtime image recipe chain (its
    content-hash tag), the instance's own image recipe folder and the repository bundle, by
    content — so an edited Dockerfile or a rebuilt bundle re-keys the cells, and a moved one
    does not. A prebuilt `image` is named by the row itself."""
    if instance.image:
        return config_hash({"image": instance.image})
    try:
        runtime = image_ref(runtime_image_name(instance))
    except Exception as exc:  # noqa: BLE001 - unbuildable shows at provision, as a typed row
        runtime = f"unbuildable: {type(exc).__name__}"
    recipe = Path(instance.image_recipe) if instance.image_recipe else None
    bundle = Path(instance.repo_bundle) if instance.repo_bundle else None
    return config_hash({
        "runtime_image": runtime,
        "image_recipe": tree_digest(recipe) if recipe is not None and recipe.is_dir() else None,
        "repo_bundle": _file_digest(bundle) if bundle is not None and bundle.is_file() else None,
    })


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


def _saved_config(instance: SweInstance, claw: ClawAdapter, model: str, seed: int,
                  config: PatchAttemptConfig) -> dict[str, object]:
    return {"instance_id": instance.instance_id, "claw": claw.settings(), "model": model, "seed": seed,
            "protocol": config.model_dump(mode="json")}
