"""What each task needs from the machine and the user before a sweep spends anything on it:
live web (and which hosts), credentials (and whether the user has them), an offline snapshot
path, the desktop, installers fetched from outside the package registries at set-up, and content
missing from the checkout. Read off the package: UniClawBench declares none of it.

`web` is read from the task text: hosts it names (URLs, bare domains), the web words of either
language ("website", "online", "browser", "网页", "联网") and well-known web services it names
(GitHub, YouTube, arXiv, ...) — but not a word in a clause that forbids the web, nor a site's
name in a clause about material the package already holds (`_web_words`). English and Chinese mirrors (1xx_NN / 2xx_NN) are one task
translated, so in a tree holding both, each gets the other's web need too: a word one
translation uses and the other leaves out does not split them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from pydantic import BaseModel, Field

from clawmark.catalog.content import missing_content
from clawmark.catalog.task_credentials import SNAPSHOT_SWITCH, credential_gaps, credential_names
from clawmark.catalog.gui import gui_need

_URL = re.compile(r"https?://([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)")
_DOMAIN = re.compile(r"(?<![\w/.@-])((?:[a-z0-9-]+\.)+(?:com|org|net|io|gov|edu|dev|ai|app|co|uk|jp|cn|de|info|me|tv|us|int))"
                     r"\b(?![\w-]|\.\w)", re.I)  # a sentence's full stop may follow, a file suffix may not
_LOCAL_HOST = re.compile(r"(?i)^(localhost|127\.|0\.0\.0\.0|host\.docker\.internal)|\.(local|internal|test)$"
                         r"|(^|\.)example\.(com|org|net)$")
_WEB_WORDS = re.compile(
    r"(?i)\b(search the web|web search|searching the web|online|websites?|web ?pages?|internet|live web"
    r"|browser(?! pdf)|youtube|reddit|amazon|github|pypi|arxiv|bilibili|wikipedia|hacker news|stack overflow"
    r"|steam|polymarket|mastodon|twitter|google|hugging ?face)\b|网页|网站|在线|联网|互联网|上网|浏览器(?!\s*PDF)")
# A web word is no need when its clause forbids the web ("do not infer it from internet
# information", "不要联网搜索") or, for a site's name, when the clause is about material already in
# the package ("the GitHub trending file", "transcripts under …/sources", "arxiv id"). A site
# named to be avoided ("not a Wikipedia copy") still means the task browses: it stays a need.
_CLAUSE_END = re.compile(r"[.;:!?。；：！？]\s?")
_NEGATION = re.compile(r"(?i)\b(not|no|never|without|don't|do not|avoid|rather than|instead of|offline)\b"
                       r"|不要|不得|不能|不可|不允许|不使用|不用|禁止|无需|无须|而非|离线")
_SITE = re.compile(r"(?i)youtube|reddit|amazon|github|pypi|arxiv|bilibili|wikipedia|hacker news|stack overflow"
                   r"|steam|polymarket|mastodon|twitter|google|hugging ?face")
_PACKAGED = re.compile(r"(?i)snapshots?\b|transcripts?\b|\bfiles?\b|\bids?\b|/tmp_workspace/clawbench|\bsources/"
                       r"|\bsaved\b|\bcaptured\b|快照|文件|转录")
# Hosts a set-up script may fetch from without leaving the package registries clawmark proxies.
_REGISTRY_HOST = re.compile(r"(?i)^(pypi\.org|pypi\.python\.org|files\.pythonhosted\.org|registry\.npmjs\.org"
                            r"|registry\.yarnpkg\.com|deb\.debian\.org|security\.debian\.org|([a-z0-9-]+\.)*archive\.ubuntu\.com"
                            r"|security\.ubuntu\.com|ports\.ubuntu\.com)$")
_FETCHES = re.compile(r"(?i)\b(curl|wget|git clone|urlretrieve|urlopen|requests\.get|aria2c)\b")
_MIRROR = re.compile(r"^task_([12])(0[1-5]_\d+_.*)$")
_MAX_SCRIPT_BYTES = 1_000_000
NEED_KINDS = ("offline", "web", "credentials", "snapshot", "gui", "installers", "missing_content", "runnable")


class Machine(BaseModel):
    """What this machine offers a task container."""

    web: bool = Field(description="The live public web is reachable.")
    gui: bool = Field(True, description="The desktop image can run (every Docker host with the recipe).")
    snapshot: bool = Field(False, description="Cells run in snapshot mode (`run --snapshot`): a task with an "
                           "offline snapshot path needs no credentials then, and the web its snapshot text needs.")


class TaskNeeds(BaseModel):
    task_id: str
    language: str
    capability: str
    web: bool
    hosts: list[str] = Field(description="Public hosts the task names (text, declared source URLs).")
    credentials: list[str] = Field(description="Credential names of its .privacy.")
    credentials_missing: dict[str, str] = Field(description="Of those, the ones the user lacks: name -> why.")
    snapshot: bool = Field(description="It has an offline snapshot path (task_snapshot, or SNAPSHOT_MODE in .privacy).")
    snapshot_web: bool | None = Field(None, description="The web need of its snapshot path (None: it has none).")
    gui: bool
    gui_reason: str | None = None
    installers: list[str] = Field(description="Hosts outside the package registries its set-up downloads from.")
    missing_content: list[str] = Field(description="Package files that are not what their names say.")

    @property
    def offline(self) -> bool:
        """No live web, no account, nothing fetched from outside the registries at set-up."""
        return not (self.web or self.credentials or self.installers)

    def runnable_on(self, machine: Machine) -> bool:
        offline_path = machine.snapshot and self.snapshot
        web = self.snapshot_web if offline_path else self.web
        lacks_credentials = bool(self.credentials_missing) and not offline_path
        return (not self.missing_content and not lacks_credentials and (machine.web or not (web or self.installers))
                and (machine.gui or not self.gui))

    def kinds(self, machine: Machine) -> list[str]:
        """The NEED_KINDS this task has (for the counts)."""
        held = {"offline": self.offline, "web": self.web, "credentials": bool(self.credentials),
                "snapshot": self.snapshot, "gui": self.gui, "installers": bool(self.installers),
                "missing_content": bool(self.missing_content), "runnable": self.runnable_on(machine)}
        return [kind for kind in NEED_KINDS if held[kind]]

    def as_json(self, machine: Machine) -> dict:
        return {**self.model_dump(), "offline": self.offline, "runnable": self.runnable_on(machine)}


def task_needs(task, credentials: Mapping[str, str]) -> TaskNeeds:
    """One task's needs; `credentials` is what the user has (names -> values, never shown)."""
    spec = task.spec
    hosts = _hosts(spec.task) | {h.lower() for s in spec.sources for h in _URL.findall(s) if not _LOCAL_HOST.search(h)}
    names = credential_names(task)
    gui = gui_need(task)
    snapshot = bool(spec.task_snapshot) or SNAPSHOT_SWITCH in task.privacy_vars
    snapshot_text = spec.task_snapshot or spec.task
    return TaskNeeds(
        task_id=task.task_id, language=task.language, capability=task.capability,
        web=bool(hosts or _web_words(spec.task)), hosts=sorted(hosts), credentials=names,
        credentials_missing=credential_gaps(names, credentials), snapshot=snapshot,
        snapshot_web=bool(_hosts(snapshot_text) or _web_words(snapshot_text)) if snapshot else None,
        gui=gui is not None, gui_reason=gui, installers=_installer_hosts(task),
        missing_content=[p.path for p in missing_content(task)])


def tree_needs(tasks: list, credentials: Mapping[str, str]) -> list[TaskNeeds]:
    """Every task's needs, mirrors sharing their web need (see the module doc)."""
    needs = [task_needs(task, credentials) for task in tasks]
    by_mirror: dict[str, list[TaskNeeds]] = {}
    for item in needs:
        if (match := _MIRROR.match(item.task_id)) is not None:
            by_mirror.setdefault(match.group(2), []).append(item)
    for pair in by_mirror.values():
        if len(pair) == 2:
            for field in ("web", "snapshot_web"):
                if any(getattr(item, field) for item in pair):
                    for item in (i for i in pair if getattr(i, field) is not None):
                        setattr(item, field, True)
    return needs


def counts(needs: list[TaskNeeds], machine: Machine) -> dict[str, Counter]:
    """need kind -> Counter of languages (and "all")."""
    table = {kind: Counter() for kind in NEED_KINDS}
    for item in needs:
        for kind in item.kinds(machine):
            table[kind][item.language] += 1
            table[kind]["all"] += 1
    return table


def _hosts(text: str) -> set[str]:
    found = {h.lower().rstrip(".") for h in _URL.findall(text)} | {d.lower() for d in _DOMAIN.findall(text)}
    return {h for h in found if not _LOCAL_HOST.search(h)}


def _web_words(text: str) -> list[str]:
    """The web words of `text` that ask for the live web (see _NEGATION and _PACKAGED)."""
    found = []
    for match in _WEB_WORDS.finditer(text):
        start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, match.start())), default=0)
        end = next((m.start() for m in _CLAUSE_END.finditer(text, match.end())), len(text))
        site = _SITE.fullmatch(match.group(0)) is not None
        if _PACKAGED.search(text[start:end]) if site else _NEGATION.search(text, start, match.start()):
            continue
        found.append(match.group(0))
    return found


def _installer_hosts(task) -> list[str]:
    """Hosts outside the registries named by set-up scripts that fetch (curl, wget, git clone...)."""
    hosts: set[str] = set()
    for service in task.services:
        for file in service.folder.rglob("*"):
            if not file.is_file() or file.stat().st_size > _MAX_SCRIPT_BYTES:
                continue
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # a binary the service ships, not a script
            if _FETCHES.search(text):
                hosts |= {h.lower() for h in _URL.findall(text)
                          if not _REGISTRY_HOST.search(h) and not _LOCAL_HOST.search(h)}
    return sorted(hosts)
