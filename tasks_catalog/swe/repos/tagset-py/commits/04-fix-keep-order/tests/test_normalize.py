from tags import normalize_tags, primary_tag


def test_trims_and_lowercases():
    assert set(normalize_tags(" Python ,WEB")) == {"python", "web"}


def test_drops_empty_tags():
    assert normalize_tags(",, ,") == []


def test_single_tag():
    assert normalize_tags("Rust") == ["rust"]


def test_primary_tag_of_empty_input():
    assert primary_tag("  ") is None


def test_keeps_the_order_the_user_typed():
    assert normalize_tags("Python, web, API, databases, python") == ["python", "web", "api", "databases"]


def test_primary_tag_is_the_first_typed():
    assert primary_tag("zeta, alpha, mu, beta") == "zeta"
    assert primary_tag("web, python, api") == "web"


def test_aliases_keep_position():
    assert normalize_tags("golang, docker, js, go") == ["go", "docker", "javascript"]
