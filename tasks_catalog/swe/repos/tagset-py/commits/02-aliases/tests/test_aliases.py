from tags import normalize_tags


def test_aliases_fold_into_one_tag():
    assert set(normalize_tags("py, Python, golang")) == {"python", "go"}
