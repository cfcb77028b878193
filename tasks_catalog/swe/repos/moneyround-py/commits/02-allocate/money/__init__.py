"""Currency rounding on Decimal."""

from money.allocate import allocate
from money.rounding import round_money

__all__ = ["allocate", "round_money"]
