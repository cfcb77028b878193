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


def test_build_metadata_is_kept_but_ignored_for_equality():
    version = Version.parse("1.0.0+20250101.sha.5114f85")
    assert version.build == "20250101.sha.5114f85"
    assert version == Version.parse("1.0.0+other")
    assert str(version) == "1.0.0+20250101.sha.5114f85"
