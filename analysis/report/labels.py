"""Point labels for the scatter plots that never overlap one another or the markers.

Each label is tried at offsets on rings of growing radius around its point; the first spot whose
text box (measured with the figure's renderer) stays inside the axes and clear of every marker,
the legend and the labels already placed wins. Farther rings get a thin leader line to the point.
A point may offer several labels (its name, then a short number the plot's key explains); the
first with a free spot is drawn, and a point none of whose labels fit gets none. Place labels
only once the figure's layout is final: moving the axes moves the points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

FONT_SIZE = 7
RINGS_PT = (7, 12, 18, 27, 38, 50, 64)
LEADER_FROM_PT = 18  # from this radius on, a line joins the label to its point
DIRECTIONS = 8  # spots per ring: east first, then counter-clockwise
PAD_PX = 2.0  # on both boxes: neighbouring labels keep 4 px apart
LEADER = {"arrowstyle": "-", "lw": 0.5, "color": "#888888", "shrinkA": 1, "shrinkB": 3}


def place_labels(ax: Axes, xy: Sequence[tuple[float, float]], choices: Sequence[Sequence[str]], *,
                 marker_pt: float, rings: Sequence[float] = RINGS_PT) -> list[Annotation | None]:
    """Annotate point i, in order, with the first of choices[i] (e.g. its name, then its number)
    that has a free spot on some ring; every point and every text already in the axes is an
    obstacle. Return each placed annotation, None where none of its choices fit."""
    fig = ax.figure
    ax.set_xlim(ax.get_xlim())  # settle autoscaling now: the points must not move after placement
    ax.set_ylim(ax.get_ylim())
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    to_px = fig.dpi / 72
    half = (marker_pt / 2) * to_px + PAD_PX
    centres = ax.transData.transform(xy) if len(xy) else []
    taken = [Bbox.from_extents(cx - half, cy - half, cx + half, cy + half) for cx, cy in centres]
    taken += [text_box(t, renderer).padded(PAD_PX) for t in ax.texts]
    if ax.get_legend() is not None:
        taken.append(ax.get_legend().get_window_extent(renderer))
    probe = ax.annotate("", (0, 0), xytext=(0, 0), textcoords="offset points", fontsize=FONT_SIZE)  # measures tries
    placed: list[Annotation | None] = []
    for point, texts in zip(xy, choices):
        spot = next((s for text in texts if (s := _free_spot(probe, point, text, taken, frame, renderer, rings))), None)
        if spot is not None:
            taken.append(text_box(spot, renderer).padded(PAD_PX))
        placed.append(spot)
    probe.remove()
    return placed


def _free_spot(probe: Annotation, point, text: str, taken: list[Bbox], frame: Bbox, renderer,
               rings: Sequence[float]) -> Annotation | None:
    probe.set_text(text)
    probe.xy = point
    for radius in rings:
        for step in range(DIRECTIONS):
            spot = _spot(radius, 2 * math.pi * step / DIRECTIONS)
            probe.set_position(spot["xytext"])
            probe.set_horizontalalignment(spot["ha"])
            probe.set_verticalalignment(spot["va"])
            box = text_box(probe, renderer).padded(PAD_PX)
            if _inside(box, frame) and not any(box.overlaps(other) for other in taken):
                leader = {"arrowprops": LEADER} if radius >= LEADER_FROM_PT else {}
                return probe.axes.annotate(text, point, textcoords="offset points", fontsize=FONT_SIZE, zorder=4,
                                           **spot, **leader)
    return None


def _spot(radius: float, angle: float) -> dict:
    """Offset and alignment that put the text on the far side of the ring from its point."""
    dx, dy = radius * math.cos(angle), radius * math.sin(angle)
    ha = "left" if dx > 1e-9 else "right" if dx < -1e-9 else "center"
    va = "bottom" if dy > 1e-9 else "top" if dy < -1e-9 else "center"
    return {"xytext": (dx, dy), "ha": ha, "va": va}


def text_box(text: Text, renderer) -> Bbox:
    """The window extent of a text's own box (an annotation's leader line left out)."""
    if isinstance(text, Annotation):
        text.update_positions(renderer)  # where its offset puts it, as drawing would
    return Text.get_window_extent(text, renderer)


def _inside(box: Bbox, frame: Bbox) -> bool:
    return box.x0 >= frame.x0 and box.y0 >= frame.y0 and box.x1 <= frame.x1 and box.y1 <= frame.y1
