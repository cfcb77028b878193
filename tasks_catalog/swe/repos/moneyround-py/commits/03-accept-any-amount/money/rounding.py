"""Half-up rounding of currency amounts to a number of decimal places."""

from decimal import ROUND_HALF_UP, Decimal


def to_decimal(amount):
    """Decimal from a Decimal, int or str; floats go through str so 0.1 stays 0.1."""
    if isinstance(amount, float):
        amount = repr(amount)
    return Decimal(amount)


def round_money(amount, places=2):
    """`amount` rounded half-up to `places` decimals, as a Decimal."""
    return to_decimal(amount).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
