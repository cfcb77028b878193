from tags import normalize_tags, primary_tag


def test_trims_and_lowercases():
    assert set(normalize_tags(" Python ,WEB")) == {"python", "web"}


def test_drops_empty_tags():
    assert normalize_tags(",, ,") == []


def test_single_tag():
    assert normalize_tags("Rust") == ["rust"]


def test_primary_tag_of_empty_input():
    assert primary_tag("  ") is None
