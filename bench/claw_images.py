"""Bench: build time and size of every claw's image layer.

    .venv/bin/python bench/claw_images.py [--recipes claw-openclaw,claw-hermes,...]

Each claw recipe (``images/claw-*``, the ones labelled ``clawmark.claw``) is rebuilt once with
``docker build --no-cache`` on its parent image as it is (the parent is reused, never rebuilt or
removed), under a temporary tag ``clawmark/bench-<recipe>:<pid>`` that is removed afterwards, so
no image anyone else uses is touched. Printed per recipe: the claws it serves, build seconds
(downloads from PyPI/npm included), the image's size and the layer's own share of it (size minus
the parent's), as ``docker image inspect`` reports them. An opt-in recipe whose build needs what
this machine lacks (ZeroClaw: a supplied binary or GitHub) is listed, not built. The machine's
load average is printed beside each figure: builds are CPU- and network-bound, so compare them
only on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time


def claw_recipes() -> dict[str, list[str]]:
    """Recipe name -> the claws whose adapters run on it."""
    from clawmark.claws import claw_names, get_claw
    from clawmark.runtime.recipes import discover

    served: dict[str, list[str]] = {name: [] for name, r in discover().items() if "clawmark.claw" in r.labels}
    for claw in claw_names():
        layer = get_claw(claw).needs_image_layer
        if layer in served:
            served[layer].append(claw)
    return served


def image_size(ref: str) -> int:
    out = subprocess.run(["docker", "image", "inspect", "--format", "{{.Size}}", ref], check=True,
                         capture_output=True, text=True).stdout
    return int(out.strip())


def buildable(recipe) -> bool:
    return not recipe.opt_in or (recipe.folder / "dist" / "zeroclaw").is_file()


def build_once(name: str) -> tuple[float, int, int]:
    """(seconds, image bytes, parent bytes) of one uncached build under a temporary tag."""
    from clawmark.runtime.images import ensure_image
    from clawmark.runtime.recipes import get_recipe

    recipe = get_recipe(name)
    parent = ensure_image(recipe.parent) if recipe.parent else None
    tag = f"clawmark/bench-{name}:{os.getpid()}"
    # --network host: RUN steps reach the registries from the host, not Docker's default bridge
    # (seen missing on a shared engine: "could not find bridge docker0"); what is built is the same.
    argv = ["docker", "build", "--no-cache", "--pull=false", "--network", "host", "-q", "-t", tag,
            "-f", str(recipe.dockerfile)]
    argv += ["--build-arg", f"PARENT={parent}"] if parent else []
    start = time.perf_counter()
    try:
        subprocess.run([*argv, str(recipe.folder)], check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        return seconds, image_size(tag), image_size(parent) if parent else 0
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"{name}: docker build failed:\n{exc.stderr[-2000:]}") from exc
    finally:
        subprocess.run(["docker", "image", "rm", "--force", tag], capture_output=True)


def main() -> None:
    from clawmark.runtime.recipes import get_recipe

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", default="", help="Comma-separated recipe names (default: every claw layer).")
    args = parser.parse_args()
    recipes = claw_recipes()
    names = args.recipes.split(",") if args.recipes else sorted(recipes)
    print(f"{'recipe':<22}{'claws':<26}{'build s':>9}{'image MB':>10}{'layer MB':>10}   load avg")
    for name in names:
        claws = ",".join(recipes.get(name, [])) or "-"
        if not buildable(get_recipe(name)):
            print(f"{name:<22}{claws:<26}{'opt-in: not buildable here (supply the binary)':>29}")
            continue
        seconds, size, parent = build_once(name)
        print(f"{name:<22}{claws:<26}{seconds:>9.1f}{size / 1e6:>10.0f}{(size - parent) / 1e6:>10.0f}   "
              f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
