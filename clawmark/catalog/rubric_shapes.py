"""Checkpoint shapes of real rules that carry no checkpoint id: weight-first list lines and
weighted sub-headings (ids are then assigned in order: C1, C2, ...)."""

from __future__ import annotations

import re

Found = tuple[str, str, float, str]  # id, name, raw weight (fraction or points), description

_NUMBER = r"(?P<num>\d*\.\d+|\d+(?:\.\d+)?\s*[%％])"
# `- **0.10 — Output shape.** text`, `- 0.15 Flight research: text`, `- **0.15** — text`
_WEIGHT_FIRST = re.compile(rf"^[-*+]\s+(?P<open>\*\*|__)?\s*{_NUMBER}(?![\d.])\s*(?P<close>\*\*|__)?"
                           rf"(?!\s*[+=×/*])\s*(?P<rest>(?:[—–:：-]|\s|\*\*).*)$")
# `### 5.1 (5%) Schema and valid JSON`, `### 2. Totals (0.25)`
_SUBHEADING = re.compile(r"^#{3,6}\s+(?P<head>.*)$")
_HEADING_WEIGHT = re.compile(rf"[(\[（【]\s*{_NUMBER}\s*[)\]）】]")
_SECTION_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Za-z]\d*[.)])\s+")
_BOLD_NAME = re.compile(r"^\s*(?:[—–:：-]\s*)?(?:\*\*|__)(?P<name>[^*_]{1,120}?)(?:\*\*|__)")
_PLAIN_NAME = re.compile(r"^\s*(?:[—–:：-]\s*)?(?P<name>(?:[^:：.。;；]|\.(?!\s)){1,80}?)\s*[:：.。;；](?:\s|$)")


def as_fraction(raw: str) -> float:
    number = float(re.match(r"\d*\.?\d+", raw).group())
    return number / 100 if raw.rstrip().endswith(("%", "％")) else number


def _tidy(text: str) -> str:
    text = re.sub(r"\*\*|__|`", "", text)
    return re.sub(r"^[\s:：.\-—–)）|]+|[\s:：\-—–(（|,，]+$", "", text).strip()


def _split_name(rest: str, bold_open: bool = False) -> tuple[str, str]:
    """A bold name (`**0.10 — Name.** text` too), else the text up to the first `:` / `.`."""
    if bold_open and (end := re.search(r"\*\*|__", rest)):
        return _tidy(rest[: end.start()]), _tidy(rest[end.end():])
    for pattern in (_BOLD_NAME, _PLAIN_NAME):
        if match := pattern.match(rest):
            return _tidy(match["name"]), _tidy(rest[match.end():])
    text = _tidy(rest)
    return (text if len(text) <= 80 else text[:77].rsplit(" ", 1)[0] + "..."), text


def weight_first_checkpoints(body: str) -> list[Found]:
    """Top-level list lines that open with their weight; indented lines continue the item."""
    items: list[list] = []
    for line in body.splitlines():
        if (match := _WEIGHT_FIRST.match(line)) and as_fraction(match["num"]) <= 1.0:
            name, text = _split_name(match["rest"], bool(match["open"]) and not match["close"])
            items.append([f"C{len(items) + 1}", name, as_fraction(match["num"]), [text]])
        elif items and line.startswith((" ", "\t")) and line.strip():
            items[-1][3].append(line.strip(" -*\t"))
        elif items and not line.strip():
            continue
        elif items:
            items[-1][3].append("")  # a top-level line of other text ends the item's body
    return [(cid, name, weight, _tidy(" ".join(t for t in text if t))) for cid, name, weight, text in items]


def subheading_checkpoints(body: str) -> list[Found]:
    """`###` headings carrying a bracketed weight; the text below each is its description."""
    items: list[list] = []
    collecting = False
    for line in body.splitlines():
        heading = _SUBHEADING.match(line)
        weight = _HEADING_WEIGHT.search(heading["head"]) if heading else None
        if weight:
            head = heading["head"]
            name = _tidy(_SECTION_NUMBER.sub("", head[: weight.start()]) + " " + head[weight.end():])
            items.append([f"C{len(items) + 1}", name, as_fraction(weight["num"]), []])
        elif collecting and not heading:
            items[-1][3].append(line.strip())
        collecting = bool(weight) or (collecting and not heading)
    return [(cid, name, weight, _tidy(" ".join(t for t in text if t))) for cid, name, weight, text in items]
