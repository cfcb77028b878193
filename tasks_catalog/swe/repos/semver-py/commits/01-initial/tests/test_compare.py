from semver import Version

V = Version.parse


def test_core_fields_compare_numerically():
    assert V("1.2.10") > V("1.2.9")
    assert V("1.10.0") > V("1.9.9")
    assert V("2.0.0") > V("1.99.99")


def test_equal_versions():
    assert V("1.2.3") == V("1.2.3")
    assert not V("1.2.3") < V("1.2.3")
