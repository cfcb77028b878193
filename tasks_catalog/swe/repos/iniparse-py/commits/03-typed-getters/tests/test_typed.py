import pytest

from iniparse import IniError, get_bool, get_int, parse

CONFIG = parse("[server]\nport = 8080\ndebug = yes\nworkers = many\n")


def test_get_int():
    assert get_int(CONFIG, "server", "port") == 8080


def test_get_int_default_when_missing():
    assert get_int(CONFIG, "server", "backlog", default=64) == 64


def test_get_int_rejects_words():
    with pytest.raises(IniError, match="workers"):
        get_int(CONFIG, "server", "workers")


@pytest.mark.parametrize("word,expected", [("yes", True), ("Off", False), ("1", True)])
def test_get_bool_spellings(word, expected):
    assert get_bool(parse(f"[a]\nflag = {word}\n"), "a", "flag") is expected
