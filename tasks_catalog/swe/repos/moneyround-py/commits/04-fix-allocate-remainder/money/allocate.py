"""Split an amount into equal parts, e.g. a bill between several people."""

from decimal import ROUND_DOWN, Decimal

from money.rounding import round_money, to_decimal


def allocate(total, parts, places=2):
    """`total` split into `parts` amounts with `places` decimals that add up to exactly the
    rounded total; leftover smallest units (cents) go to the first parts, one each."""
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    total = round_money(total, places)
    unit = Decimal(1).scaleb(-places)
    share = (total / parts).quantize(unit, rounding=ROUND_DOWN)
    leftover = int((total - share * parts) / unit)
    step = unit if leftover >= 0 else -unit
    return [share + step if index < abs(leftover) else share for index in range(parts)]
