"""Which script a text is written in: Chinese (CJK ideographs) or a Latin-script language. The one
rule for a task's language (set-up categories) and a follow-up's, so the two never disagree.

Paths, URLs, code spans and file names are ignored (a Chinese message names English files).
A CJK character counts as CJK_WEIGHT Latin letters (one ideograph carries about a word).
"""

from __future__ import annotations

import re
from typing import Literal

CJK_WEIGHT = 3
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_NOISE = re.compile(r"`[^`]*`|https?://\S+|\S*[/\\]\S*|\b[\w-]+\.[A-Za-z0-9]{1,5}\b")


def is_cjk(char: str) -> bool:
    return bool(_CJK.fullmatch(char))


def detect_language(text: str) -> Literal["zh", "en"] | None:
    """"zh", "en", or None when the text has no letters at all (after the noise is removed)."""
    prose = _NOISE.sub(" ", text)
    cjk, latin = len(_CJK.findall(prose)), len(_LATIN.findall(prose))
    if cjk == 0 and latin == 0:
        return None
    return "zh" if cjk * CJK_WEIGHT >= latin else "en"
