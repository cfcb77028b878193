import pytest

from semver import Version


@pytest.mark.parametrize("part,expected", [("major", "2.0.0"), ("minor", "1.3.0"), ("patch", "1.2.4")])
def test_bump(part, expected):
    assert str(Version.parse("1.2.3-rc.1+b7").bump(part)) == expected


def test_bump_rejects_unknown_part():
    with pytest.raises(ValueError):
        Version.parse("1.2.3").bump("build")
