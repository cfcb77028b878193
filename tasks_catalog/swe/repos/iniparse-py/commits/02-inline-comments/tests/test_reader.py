import pytest

from iniparse import IniError, parse


def test_sections_and_keys():
    config = parse("[server]\nhost = example.org\nport = 8080\n")
    assert config["server"] == {"host": "example.org", "port": "8080"}


def test_keys_before_first_section_go_to_default():
    config = parse("name = demo\n[a]\nx = 1\n")
    assert config["DEFAULT"] == {"name": "demo"}


def test_full_line_comments_are_skipped():
    config = parse("; a comment\n# another\n[a]\nx = 1\n")
    assert config["a"] == {"x": "1"}


def test_value_may_contain_equals_sign():
    assert parse("[db]\ndsn = user=app host=db\n")["db"]["dsn"] == "user=app host=db"


def test_unclosed_section_header_is_an_error():
    with pytest.raises(IniError, match="line 1"):
        parse("[broken\n")


def test_inline_comment_is_stripped():
    assert parse("[a]\ntimeout = 30 ; seconds\n")["a"]["timeout"] == "30"


def test_quotes_around_value_are_removed():
    assert parse('[a]\ngreeting = "hello world"\n')["a"]["greeting"] == "hello world"
