"""Common spellings folded into one canonical tag."""

ALIASES = {
    "js": "javascript",
    "golang": "go",
    "py": "python",
    "postgres": "postgresql",
}


def canonical(tag):
    return ALIASES.get(tag, tag)
