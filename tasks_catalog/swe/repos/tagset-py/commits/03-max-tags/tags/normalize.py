"""Tag normalisation: split on commas, trim, lowercase, fold aliases, drop empties and
duplicates."""

from tags.aliases import canonical

MAX_TAGS = 10


class TooManyTags(ValueError):
    """More distinct tags than MAX_TAGS."""


def normalize_tags(raw):
    """The distinct tags in `raw`, in the order the user typed them."""
    tags = (canonical(part.strip().lower()) for part in raw.split(","))
    distinct = list(set(tag for tag in tags if tag))
    if len(distinct) > MAX_TAGS:
        raise TooManyTags(f"at most {MAX_TAGS} tags, got {len(distinct)}")
    return distinct


def primary_tag(raw):
    """The first tag the user typed, or None."""
    tags = normalize_tags(raw)
    return tags[0] if tags else None
