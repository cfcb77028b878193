import pytest

from tags import MAX_TAGS, TooManyTags, normalize_tags


def test_too_many_tags():
    with pytest.raises(TooManyTags):
        normalize_tags(",".join(f"t{i}" for i in range(MAX_TAGS + 1)))


def test_duplicates_do_not_count_toward_the_limit():
    assert len(normalize_tags(",".join(["same"] * 50))) == 1
