from decimal import Decimal

from money import round_money


def test_rounds_half_up():
    assert round_money(Decimal("2.675")) == Decimal("2.68")
    assert round_money(Decimal("2.665")) == Decimal("2.67")


def test_negative_amounts_round_away_from_zero():
    assert round_money(Decimal("-1.005")) == Decimal("-1.01")


def test_other_precisions():
    assert round_money(Decimal("1.23456"), places=3) == Decimal("1.235")
    assert round_money(Decimal("99.5"), places=0) == Decimal("100")


def test_accepts_str_int_and_float():
    assert round_money("2.675") == Decimal("2.68")
    assert round_money(3) == Decimal("3.00")
    assert round_money(0.125) == Decimal("0.13")
