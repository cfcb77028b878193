"""Split an amount into equal parts, e.g. a bill between several people."""

from money.rounding import round_money


def allocate(total, parts, places=2):
    """`total` split into `parts` amounts rounded to `places` decimals."""
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    share = round_money(total / parts, places)
    return [share] * parts
