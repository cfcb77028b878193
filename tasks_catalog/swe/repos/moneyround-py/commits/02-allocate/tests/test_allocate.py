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
