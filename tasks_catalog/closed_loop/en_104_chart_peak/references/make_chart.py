"""Draws sources/monthly_revenue.png for en_104_chart_peak with Pillow (deterministic; run from
the task folder with the project's Python: `../../../.venv/bin/python references/make_chart.py`).

Two bars a month: revenue (dark, labelled with its value) and target (light grey, unlabelled).
The tallest bar of the chart is November's *target*; revenue peaks in October.
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

MONTHS = ["Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
REVENUE = [280, 355, 298, 412, 390, 301]  # k$
TARGET = [300, 320, 340, 380, 440, 360]
WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 900, 560, 80, 480, 70
SCALE = (BOTTOM - TOP) / 460


def main() -> None:
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    font, small = ImageFont.load_default(22), ImageFont.load_default(16)
    draw.text((LEFT, 18), "Monthly revenue vs target, H2 2025 (k$)", fill="black", font=font)
    draw.line([(LEFT, TOP), (LEFT, BOTTOM), (WIDTH - 30, BOTTOM)], fill="black", width=2)
    for tick in range(0, 460, 100):
        y = BOTTOM - tick * SCALE
        draw.line([(LEFT - 6, y), (LEFT, y)], fill="black")
        draw.text((LEFT - 46, y - 9), str(tick), fill="black", font=small)
    slot = (WIDTH - 30 - LEFT) / len(MONTHS)
    for index, (month, revenue, target) in enumerate(zip(MONTHS, REVENUE, TARGET)):
        x = LEFT + index * slot + 18
        for offset, value, colour in ((0, revenue, "#1f3b73"), (44, target, "#c8c8c8")):
            draw.rectangle([x + offset, BOTTOM - value * SCALE, x + offset + 40, BOTTOM - 1], fill=colour)
        draw.text((x - 2, BOTTOM - revenue * SCALE - 22), str(revenue), fill="#1f3b73", font=small)
        draw.text((x + 26, BOTTOM + 8), month, fill="black", font=small)
    draw.rectangle([WIDTH - 250, 14, WIDTH - 234, 30], fill="#1f3b73")
    draw.text((WIDTH - 226, 12), "revenue (labelled)", fill="black", font=small)
    draw.rectangle([WIDTH - 250, 38, WIDTH - 234, 54], fill="#c8c8c8")
    draw.text((WIDTH - 226, 36), "target", fill="black", font=small)
    image.save(Path("sources/monthly_revenue.png"), optimize=True)


if __name__ == "__main__":
    main()
