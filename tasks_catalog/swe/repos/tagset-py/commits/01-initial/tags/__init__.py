"""Normalise free-text tag input ("Python, web ,API") into clean tag lists."""

from tags.normalize import normalize_tags, primary_tag

__all__ = ["normalize_tags", "primary_tag"]
