"""Text patterns of eval rules: weighted checkpoints (tables or id blocks) and score caps, EN + ZH."""

from __future__ import annotations

import re

Found = tuple[str, str, float, str]  # id, name, raw weight (fraction or points), description

_CHECKPOINT_WORDS = re.compile(r"checkpoint|rubric|criteri|检查点|评分细则|评分项|得分点|评分标准", re.I)
_CAP_WORDS = re.compile(r"\bcap|scoring policy|score policy|penalt|上限|封顶|扣分|评分规则|评分策略|评分政策", re.I)
_ID = r"(?:checkpoint|CP|C|K|R|检查点)\s*[-_#]?\s*\d+[a-z]?"
_ID_LINE = re.compile(
    rf"^\s*(?:[-*+]\s+|\d+[.)、]\s*|#{{1,6}}\s+)?(?:\*\*|__)?\s*(?P<id>{_ID})(?:\*\*|__)?(?![\w.])\s*(?P<rest>.*)$", re.I)
_UNIT = r"(?P<unit>%|％|分|pts?\b|points?\b)?"
_LABELLED_WEIGHT = re.compile(rf"(?:weight|权重|分值|占比)\s*(?:[:：=]|is)?\s*`?(?P<num>\d+(?:\.\d+)?)\s*{_UNIT}`?", re.I)
_BRACKET_WEIGHT = re.compile(r"[(\[（【]\s*`?(?P<num>0?\.\d+|1\.0+|\d+(?:\.\d+)?\s*(?P<unit>%|％|分|pts?|points?))`?\s*[)\]）】]", re.I)
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}")
_EN_CAP = re.compile(
    r"(?:\bcap(?:ped)?\b[^.;\n`\d]{0,40}?\b(?:at|to)|\bmax(?:imum)?\s+(?:score|of)\b[^.;\n`\d]{0,20}?|\bat most|\bno (?:more|higher) than)"
    r"\s*`?(?P<num>(?>[01](?:\.\d+)?))(?![\d%％])`?", re.I)
_ZH_CAP = re.compile(r"(?:上限|封顶|最高|不超过|不得超过|至多|最多)\s*(?:为|是|:|：|得)?\s*(?:得分|分数|分)?\s*`?(?P<num>(?>[01](?:\.\d+)?))(?![\d%％])`?")
_COLUMNS = {
    "id": re.compile(r"^(?:id|#|no\.?|编号|序号|cp)$", re.I),
    "weight": re.compile(r"weight|权重|分值|占比|points|分数", re.I),
    "name": re.compile(r"checkpoint|name|item|criterion|检查点|名称|项目|内容|要点", re.I),
    "description": re.compile(r"descr|criteria|detail|how|pass|说明|描述|标准|要求|判定", re.I),
}


def has_checkpoint_words(text: str) -> bool:
    return bool(_CHECKPOINT_WORDS.search(text))


def has_cap_words(text: str) -> bool:
    return bool(_CAP_WORDS.search(text))


_NUMBERED_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<num>\d+)[.)、]\s+(?P<rest>.*)$")


def find_checkpoints(body: str) -> list[Found]:
    """Checkpoints of one section: a weighted table, else id-led blocks, else weighted numbered lines."""
    return _table_checkpoints(body) or _block_checkpoints(body) or _numbered_checkpoints(body)


def _normal_id(raw: str) -> str:
    """`Checkpoint 2`, `检查点2`, `cp-2` -> `C2` / `CP2`: one spelling for the judge to cite."""
    compact = re.sub(r"[\s\-_#]", "", raw)
    return re.sub(r"^(?:checkpoint|检查点)", "C", compact, flags=re.I).upper()


def _numbered_checkpoints(body: str) -> list[Found]:
    found = []
    for line in body.splitlines():
        if (match := _NUMBERED_LINE.match(line)) and (block := _block(f"C{match['num']}", match["rest"], [])):
            found.append(block)
    return found


def _weight(text: str) -> tuple[float, re.Match] | None:
    match = _LABELLED_WEIGHT.search(text) or _BRACKET_WEIGHT.search(text)
    if not match:
        return None
    number = float(re.match(r"\d*\.?\d+", match.group("num")).group())
    unit = match.group("unit") or ""
    return (number / 100 if unit in ("%", "％") else number), match


def _clean(text: str) -> str:
    text = re.sub(r"\*\*|__|`", "", text)
    return re.sub(r"^[\s:：.\-—–)）|]+|[\s:：\-—–(（|,，]+$", "", text).strip()


def _block_checkpoints(body: str) -> list[Found]:
    blocks: list[tuple[str, str, list[str]]] = []
    for line in body.splitlines():
        if match := _ID_LINE.match(line):
            blocks.append((_normal_id(match["id"]), match["rest"], []))
        elif blocks:
            blocks[-1][2].append(line)
    found = [_block(cid, head, rest) for cid, head, rest in blocks]
    return [f for f in found if f is not None]


def _block(cid: str, head: str, rest: list[str]) -> Found | None:
    weighted = _weight(head)
    if weighted:
        weight, match = weighted
        name, tail = _clean(head[: match.start()]), _clean(head[match.end():])
        return cid, name or tail, weight, _clean(" ".join([tail] + [l.strip(" -*") for l in rest]).strip())
    for index, line in enumerate(rest):
        if weighted := _weight(line):
            others = [l.strip(" -*") for i, l in enumerate(rest) if i != index and l.strip()]
            return cid, _clean(head), weighted[0], _clean(" ".join(others))
    return None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_checkpoints(body: str) -> list[Found]:
    lines = [l for l in body.splitlines() if l.strip().startswith("|")]
    if len(lines) < 3 or not _TABLE_SEPARATOR.match(lines[1]):
        return []
    columns = _column_roles(_cells(lines[0]))
    if "weight" not in columns:
        return []
    found = []
    for number, line in enumerate(lines[2:], start=1):
        cells = _cells(line)
        weight = _weight("weight " + _clean(cells[columns["weight"]])) if columns["weight"] < len(cells) else None
        if weight is None:
            continue
        pick = lambda role: _clean(cells[columns[role]]) if role in columns and columns[role] < len(cells) else ""
        found.append((pick("id") or f"C{number}", pick("name") or pick("description"), weight[0], pick("description")))
    return found


def _column_roles(header: list[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    for role, pattern in _COLUMNS.items():
        for index, cell in enumerate(header):
            if index not in roles.values() and pattern.search(_clean(cell)):
                roles[role] = index
                break
    return roles


def find_caps(body: str) -> list[tuple[float, str]]:
    """(cap value, the line stating it) for every `cap at 0.x` / `上限 0.x` in the text."""
    caps = []
    for line in body.splitlines():
        for match in [*_EN_CAP.finditer(line), *_ZH_CAP.finditer(line)]:
            value = float(match.group("num"))
            if value <= 1.0:
                caps.append((value, _clean(re.sub(r"^\s*(?:[-*+]|\d+[.)、])\s+", "", line))))
    return caps


_PASS_LINE = re.compile(r"(?:\bpass(?:es|ing)?\b|通过|及格).*\d|\d.*(?:\bpass\b|通过)", re.I)


def find_pass_line(body: str) -> str | None:
    """The first line stating the pass requirement (e.g. `Pass requirement: score >= 0.9`)."""
    for line in body.splitlines():
        if _PASS_LINE.search(line):
            return _clean(re.sub(r"^\s*(?:[-*+]|\d+[.)、])\s+", "", line))
    return None
