from decimal import Decimal

import pytest

from money import allocate


def test_even_split():
    assert allocate(Decimal("9.00"), 3) == [Decimal("3.00")] * 3


def test_single_part_is_the_total():
    assert allocate(Decimal("12.34"), 1) == [Decimal("12.34")]


def test_zero_parts_is_an_error():
    with pytest.raises(ValueError):
        allocate(Decimal("1.00"), 0)


def test_parts_add_up_to_the_total():
    shares = allocate(Decimal("10.00"), 3)
    assert shares == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]
    assert sum(shares) == Decimal("10.00")


def test_rounding_up_does_not_overshoot():
    shares = allocate(Decimal("0.05"), 3)
    assert sum(shares) == Decimal("0.05")
    assert shares == [Decimal("0.02"), Decimal("0.02"), Decimal("0.01")]


def test_negative_totals_add_up():
    shares = allocate(Decimal("-10.00"), 3)
    assert sum(shares) == Decimal("-10.00")
