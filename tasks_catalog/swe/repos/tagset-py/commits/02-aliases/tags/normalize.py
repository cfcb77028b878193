"""Tag normalisation: split on commas, trim, lowercase, fold aliases, drop empties and
duplicates."""

from tags.aliases import canonical


def normalize_tags(raw):
    """The distinct tags in `raw`, in the order the user typed them."""
    tags = (canonical(part.strip().lower()) for part in raw.split(","))
    return list(set(tag for tag in tags if tag))


def primary_tag(raw):
    """The first tag the user typed, or None."""
    tags = normalize_tags(raw)
    return tags[0] if tags else None
