"""Half-up rounding of currency amounts to a number of decimal places."""

from decimal import ROUND_HALF_UP, Decimal


def round_money(amount, places=2):
    """`amount` rounded half-up to `places` decimals, as a Decimal."""
    return Decimal(amount).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
