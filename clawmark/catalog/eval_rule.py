"""Parse a hidden references/eval_rule.md: sections, the weighted checkpoint rubric and score caps.

Real rules drift (4-10 sections, varying titles, English or Chinese), so the rubric (§4 or §5)
and the scoring policy are located by what they contain, never by their heading text. What cannot
be extracted stays in `raw_text` for the supervisor and is named in `warnings`; only an unreadable
file is an error.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.catalog.errors import CatalogError
from clawmark.catalog.rubric_text import (
    find_caps, find_checkpoints, find_pass_line, has_cap_words, has_checkpoint_words, weight_gap,
)

MAX_RULE_BYTES = 512 * 1024
WEIGHT_TOLERANCE = 0.02
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


class Section(BaseModel):
    title: str
    level: int
    body: str = Field(description="Text under the heading, subsections included.")


class Checkpoint(BaseModel):
    id: str
    name: str
    weight: float = Field(ge=0.0, le=1.0, description="Share of the score (points are scaled to sum to 1).")
    description: str = ""

    @property
    def text(self) -> str:
        return self.description


class ScoreCap(BaseModel):
    value: float = Field(ge=0.0, le=1.0, description="Highest score allowed when the condition holds.")
    condition: str = Field(description="The rule's prose; applied by the supervisor.")

    @property
    def text(self) -> str:
        return self.condition


class Rubric(BaseModel):
    sections: list[Section]
    rubric_section: str | None = Field(description="Title of the section the checkpoints came from.")
    policy_section: str | None = Field(description="Title of the section the caps came from.")
    checkpoints: list[Checkpoint] = Field(description="Empty when no weighted lines could be read.")
    caps: list[ScoreCap]
    pass_requirement: str | None = Field(None, description="The policy's pass line, if it states one.")
    raw_text: str = Field("", description="The whole rule as written: what the supervisor reads.")
    warnings: list[str] = Field(default_factory=list, description="What could not be extracted, one line each.")

    @property
    def total_weight(self) -> float:
        return sum(c.weight for c in self.checkpoints)

    def section(self, title: str) -> Section | None:
        return next((s for s in self.sections if s.title == title), None)

    def scored_text(self) -> str:
        """The checkpoint rubric and the scoring policy as written (only these two are scored)."""
        titles = [t for t in (self.rubric_section, self.policy_section) if t is not None]
        picked = [s for s in self.sections if s.title in titles]
        if not picked:
            return self.raw_text
        return "\n\n".join(f"{'#' * max(s.level, 1)} {s.title}\n{s.body.strip()}" for s in picked)


def split_sections(text: str) -> list[Section]:
    """Split at the shallowest heading level used at least twice; text before it is a preamble."""
    headings = _headings(text)
    level = next((lv for lv in range(1, 7) if sum(1 for _, l, _ in headings if l == lv) >= 2), None)
    if level is None:
        return [Section(title="", level=0, body=text)]
    lines = text.splitlines()
    cuts = [(i, title) for i, lv, title in headings if lv == level]
    sections = [Section(title="", level=0, body="\n".join(lines[: cuts[0][0]]))] if cuts[0][0] else []
    for (start, title), (end, _) in zip(cuts, cuts[1:] + [(len(lines), "")]):
        sections.append(Section(title=title, level=level, body="\n".join(lines[start + 1 : end])))
    return [s for s in sections if s.title or s.body.strip()]


def _headings(text: str) -> list[tuple[int, int, str]]:
    found, in_fence = [], False
    for index, line in enumerate(text.splitlines()):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(line)):
            found.append((index, len(match.group(1)), match.group(2)))
    return found


def parse_eval_rule(path: str | Path) -> Rubric:
    """The rubric of one eval_rule.md; CatalogError only when the file cannot be read."""
    path = Path(path)
    text = _read(path)
    sections = split_sections(text)
    warnings: list[str] = []
    rubric_section, checkpoints = _locate_checkpoints(path, sections, warnings)
    policy_section, caps = _locate_caps(sections, rubric_section)
    if not caps:
        warnings.append(f"{path}: caps: no 'cap at 0.x' line found (the policy stays prose for the supervisor)")
    return Rubric(sections=sections, rubric_section=rubric_section.title if rubric_section else None,
                  checkpoints=checkpoints, policy_section=policy_section.title if policy_section else None,
                  caps=caps, pass_requirement=find_pass_line(policy_section.body if policy_section else text),
                  raw_text=text, warnings=warnings)


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_RULE_BYTES:
            raise CatalogError(path, "<file>", f"at most {MAX_RULE_BYTES} bytes")
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(path, "<file>", f"a readable UTF-8 eval rule ({exc.__class__.__name__})") from None


def _locate_checkpoints(path: Path, sections: list[Section],
                        warnings: list[str]) -> tuple[Section | None, list[Checkpoint]]:
    """The section whose checkpoints sum closest to 1.0; checkpoint words break ties."""
    candidates = []
    for order, section in enumerate(sections):
        found = find_checkpoints(section.body)
        if found:
            named = has_checkpoint_words(section.title + "\n" + section.body)
            candidates.append((weight_gap(found) > WEIGHT_TOLERANCE, not named, -len(found), order, section, found))
    if not candidates:
        warnings.append(f"{path}: checkpoints: no weighted checkpoint lines found "
                        "(the rubric stays text for the supervisor)")
        return None, []
    *_, section, found = min(candidates, key=lambda c: c[:4])
    return section, _normalised(path, found, warnings)


def _normalised(path: Path, found: list[tuple[str, str, float, str]], warnings: list[str]) -> list[Checkpoint]:
    """Weights as fractions; points (any weight > 1) are scaled by their total; ids made unique."""
    total = sum(w for _, _, w, _ in found)
    points = any(w > 1.0 for _, _, w, _ in found)
    if not points and abs(total - 1.0) > WEIGHT_TOLERANCE:
        warnings.append(f"{path}: checkpoints.weight: weights sum to {total:.2f}, not 1.0 (kept as written)")
    scale = total if points else 1.0
    seen: set[str] = set()
    checkpoints = []
    for index, (cid, name, weight, text) in enumerate(found, start=1):
        cid = cid if cid not in seen else f"{cid}_{index}"
        seen.add(cid)
        checkpoints.append(Checkpoint(id=cid, name=name, weight=round(min(weight / scale, 1.0), 6), description=text))
    return checkpoints


def _locate_caps(sections: list[Section], rubric: Section | None) -> tuple[Section | None, list[ScoreCap]]:
    """The section with the most caps, preferring one other than the rubric and one with cap words."""
    best: tuple[tuple, Section, list] | None = None
    for order, section in enumerate(sections):
        caps = find_caps(section.body, section.title)
        if not caps and not has_cap_words(section.title):
            continue
        key = (bool(caps), section is not rubric, len(caps), has_cap_words(section.title + section.body), -order)
        if best is None or key > best[0]:
            best = (key, section, caps)
    if best is None:
        return None, []
    return best[1], [ScoreCap(value=v, condition=c) for v, c in best[2]]
