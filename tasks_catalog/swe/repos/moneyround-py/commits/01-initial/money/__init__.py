"""Currency rounding on Decimal."""

from money.rounding import round_money

__all__ = ["round_money"]
