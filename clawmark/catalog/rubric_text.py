"""Text patterns of eval rules: weighted checkpoints (tables or id blocks) and score caps, EN + ZH."""

from __future__ import annotations

import re

from clawmark.catalog.rubric_shapes import Found, subheading_checkpoints, weight_first_checkpoints

_CHECKPOINT_WORDS = re.compile(r"checkpoint|rubric|criteri|检查点|评分细则|评分项|得分点|评分标准", re.I)
_CAP_WORDS = re.compile(r"\bcap|scoring policy|score policy|penalt|上限|封顶|扣分|评分规则|评分策略|评分政策", re.I)
_ID = r"(?:checkpoint|CP|C|K|R|检查点)\s*[-_#]?\s*\d+[a-z]?"
_ID_LINE = re.compile(
    rf"^\s*(?:[-*+]\s+|\d+[.)、]\s*|#{{1,6}}\s+)?(?:\*\*|__)?\s*(?P<id>{_ID})(?:\*\*|__)?(?![\w.])\s*(?P<rest>.*)$", re.I)
_UNIT = r"(?P<unit>%|％|分|pts?\b|points?\b)?"
_LABELLED_WEIGHT = re.compile(rf"(?:weight|权重|分值|占比)\s*(?:[:：=]|is)?\s*`?(?P<num>\d+(?:\.\d+)?)\s*{_UNIT}`?", re.I)
_BRACKET_WEIGHT = re.compile(r"[(\[（【]\s*`?(?P<num>0?\.\d+|1\.0+|\d+(?:\.\d+)?\s*(?P<unit>%|％|分|pts?|points?))`?\s*[)\]）】]", re.I)
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}")
_CAP_NUM = r"\s*(?:\*\*|__|`)?\s*(?P<num>(?>[01](?:\.\d+)?))(?![\d%％])"
_EN_CAP = re.compile(
    r"(?:\bcap(?:ped|s)?\b(?:[^.;\n`\d]{0,40}?\b(?:at|to))?|\bmax(?:imum)?\s+(?:score|of)\b[^.;\n`\d]{0,20}?"
    r"|\bat most|\bno (?:more|higher) than|\bceiling(?: of)?)" + _CAP_NUM, re.I)
_ZH_CAP = re.compile(r"(?:上限|封顶|最高|不超过|不得超过|至多|最多)\s*(?:为|是|:|：|得)?\s*(?:得分|分数|分)?" + _CAP_NUM)
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
    """Checkpoints of one section in whichever shape sums closest to 1.0 (points count as whole);
    ties go to the earlier shape: table, id-led blocks, weight-first lines, sub-headings, numbered."""
    shapes = [_table_checkpoints, _block_checkpoints, weight_first_checkpoints,
              subheading_checkpoints, _numbered_checkpoints]
    found = [(shape(body), order) for order, shape in enumerate(shapes)]
    found = [(items, order) for items, order in found if items]
    if not found:
        return []
    return min(found, key=lambda f: (round(weight_gap(f[0]), 3), f[1]))[0]


def weight_gap(found: list[Found]) -> float:
    """How far the weights are from a whole: 0 for points (scaled later), else |sum - 1|."""
    weights = [w for _, _, w, _ in found]
    return 0.0 if any(w > 1.0 for w in weights) else abs(sum(weights) - 1.0)


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
        texts = [_clean(c) for i, c in enumerate(cells) if i not in (columns.get("id"), columns["weight"])]
        name = pick("name") or pick("description") or max(texts, key=len, default="")
        found.append((_table_id(pick("id"), number), _short(name), weight[0], pick("description") or name))
    return found


def _table_id(cell: str, number: int) -> str:
    """`CP1`/`C2` as written; a bare row number `3` or an empty cell becomes `C3`."""
    return f"C{cell}" if cell.isdigit() else (_normal_id(cell) if re.fullmatch(_ID, cell, re.I) else f"C{number}")


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77].rsplit(" ", 1)[0] + "..."


def _column_roles(header: list[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    for role, pattern in _COLUMNS.items():
        for index, cell in enumerate(header):
            if index not in roles.values() and pattern.search(_clean(cell)):
                roles[role] = index
                break
    return roles


def find_caps(body: str, title: str = "") -> list[tuple[float, str]]:
    """(cap value, the list item or line stating it) for every `cap at 0.x` / `上限 0.x` in the text;
    in a text about caps, also list items that end `→ 0.x`; under a caps title, items that open
    with the value (`- **0.30 — No deliverables.**`)."""
    caps = []
    arrows, leading = has_cap_words(body), has_cap_words(title)
    for item in _items(body):
        matches = [*_EN_CAP.finditer(item), *_ZH_CAP.finditer(item)]
        if not matches and arrows and _LIST_START.match(item):
            matches = list(_ARROW_CAP.finditer(item))
        if not matches and leading:
            matches = list(_LEADING_CAP.finditer(item))
        condition = _clean(re.sub(r"^\s*(?:[-*+]|\d+[.)、])\s+", "", item))
        values = [float(m.group("num")) for m in matches if not _PART_CAP.search(m.group(0))]
        if _LIST_START.match(item):  # `- **Cap 0.4 — name.** ... cap total at 0.4.` states one cap twice
            values = list(dict.fromkeys(values))
        for value in values:
            if value <= 1.0:
                caps.append((value, condition))
    return caps


def _items(body: str) -> list[str]:
    """Lines, with a list item's indented continuation lines joined onto it."""
    items: list[str] = []
    for line in body.splitlines():
        if items and line.startswith(("  ", "\t")) and line.strip() and not _LIST_START.match(line):
            items[-1] += " " + line.strip()
        else:
            items.append(line)
    return items


_LEADING_CAP = re.compile(r"^\s*[-*+]\s+(?:\*\*|__)?\s*(?P<num>0?\.\d+|1\.0+)(?![\d%％])\s*(?:\*\*|__)?\s*[—–-]")
# "cap the Zoom checkpoint at 0", "cap this line at 0.5": a part of the score, not the score.
_PART_CAP = re.compile(r"checkpoint|\bline\b|\bcomponent\b|\bsub-?score\b|检查点|该项|此项", re.I)
_ARROW_CAP = re.compile(r"(?:→|->|=>)" + _CAP_NUM + r"\s*[.。]?\s*$")
_LIST_START = re.compile(r"^\s*(?:[-*+]|\d+[.)、])\s+")


_PASS_LINE = re.compile(r"(?:\bpass(?:es|ing)?\b|通过|及格).*\d|\d.*(?:\bpass\b|通过)", re.I)


def find_pass_line(body: str) -> str | None:
    """The first line stating the pass requirement (e.g. `Pass requirement: score >= 0.9`)."""
    for line in body.splitlines():
        if _PASS_LINE.search(line):
            return _clean(re.sub(r"^\s*(?:[-*+]|\d+[.)、])\s+", "", line))
    return None
