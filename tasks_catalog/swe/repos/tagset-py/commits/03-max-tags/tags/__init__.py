"""Normalise free-text tag input ("Python, web ,API") into clean tag lists."""

from tags.normalize import MAX_TAGS, TooManyTags, normalize_tags, primary_tag

__all__ = ["MAX_TAGS", "TooManyTags", "normalize_tags", "primary_tag"]
