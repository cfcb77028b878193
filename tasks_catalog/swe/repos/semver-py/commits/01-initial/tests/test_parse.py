import pytest

from semver import InvalidVersion, Version


def test_parse_core():
    assert Version.parse("1.2.3") == Version(1, 2, 3)


def test_parse_prerelease():
    assert Version.parse("1.0.0-alpha.1").prerelease == "alpha.1"


def test_str_round_trips():
    assert str(Version.parse("2.0.0-rc.2")) == "2.0.0-rc.2"


@pytest.mark.parametrize("text", ["1.2", "01.2.3", "1.2.3-", "v1.2.3"])
def test_rejects_invalid(text):
    with pytest.raises(InvalidVersion):
        Version.parse(text)
