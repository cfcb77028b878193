"""Draws sources/channels.png for zh_204_pie_share with Pillow (deterministic; run from the task
folder with the project's Python: `../../../.venv/bin/python references/make_pie.py`).

Slices carry only a letter and a percentage; sources/图例.txt maps letters to channel names.
"""

import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SLICES = [("A", 31, "#3b6fb6"), ("B", 18, "#5aa469"), ("C", 10, "#e39b3b"), ("D", 36, "#c0504d"), ("E", 5, "#8c8c8c")]
CENTRE, RADIUS = (330, 300), 220


def main() -> None:
    image = Image.new("RGB", (660, 600), "white")
    draw = ImageDraw.Draw(image)
    font, title = ImageFont.load_default(22), ImageFont.load_default(24)
    draw.text((150, 20), "Channel share of sales, 2026-03", fill="black", font=title)
    box = [CENTRE[0] - RADIUS, CENTRE[1] - RADIUS, CENTRE[0] + RADIUS, CENTRE[1] + RADIUS]
    start = -90.0
    for letter, percent, colour in SLICES:
        end = start + percent * 3.6
        draw.pieslice(box, start, end, fill=colour, outline="white", width=3)
        middle = math.radians((start + end) / 2)
        x = CENTRE[0] + RADIUS * 0.68 * math.cos(middle)
        y = CENTRE[1] + RADIUS * 0.68 * math.sin(middle)
        draw.text((x - 26, y - 12), f"{letter} {percent}%", fill="white" if percent > 8 else "black", font=font)
        start = end
    image.save(Path("sources/channels.png"), optimize=True)


if __name__ == "__main__":
    main()
