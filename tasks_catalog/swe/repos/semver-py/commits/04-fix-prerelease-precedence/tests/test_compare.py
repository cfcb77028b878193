from semver import Version

V = Version.parse


def test_core_fields_compare_numerically():
    assert V("1.2.10") > V("1.2.9")
    assert V("1.10.0") > V("1.9.9")
    assert V("2.0.0") > V("1.99.99")


def test_equal_versions():
    assert V("1.2.3") == V("1.2.3")
    assert not V("1.2.3") < V("1.2.3")


def test_prerelease_ranks_below_release():
    assert V("1.0.0-rc.1") < V("1.0.0")
    assert max(V("1.0.0"), V("1.0.0-rc.1")) == V("1.0.0")


def test_numeric_identifiers_compare_numerically():
    assert V("1.0.0-rc.2") < V("1.0.0-rc.10")


def test_spec_precedence_example():
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
             "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    assert sorted(chain[::-1], key=V) == chain


def test_prerelease_of_later_core_is_greater():
    assert V("1.0.1-alpha") > V("1.0.0")
