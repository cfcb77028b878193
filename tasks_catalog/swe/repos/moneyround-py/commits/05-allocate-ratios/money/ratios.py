"""Split an amount by ratios (e.g. 70/30), keeping the sum exact."""

from decimal import Decimal

from money.rounding import round_money


def allocate_ratios(total, ratios, places=2):
    """Parts of `total` proportional to `ratios`; the last part absorbs rounding."""
    total = round_money(total, places)
    weight = sum(Decimal(r) for r in ratios)
    parts = [round_money(total * Decimal(r) / weight, places) for r in ratios[:-1]]
    return parts + [total - sum(parts, Decimal(0))]
