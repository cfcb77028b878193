"""Currency rounding on Decimal."""

from money.allocate import allocate
from money.ratios import allocate_ratios
from money.rounding import round_money

__all__ = ["allocate", "allocate_ratios", "round_money"]
