#!/usr/bin/env python3
"""duckduckgo_search.py QUERY [-n K] [--mode html|instant] [--fetch-content] [--summarize] [--json]

Web search through DuckDuckGo's keyless endpoints, standard library only (any python3 works)."""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

HTML_URL = os.environ.get("DDG_HTML_URL", "https://html.duckduckgo.com/html/")
API_URL = os.environ.get("DDG_API_URL", "https://api.duckduckgo.com/")
AGENT = "Mozilla/5.0 (X11; Linux x86_64) duckduckgo-search-skill/1"
CONTENT_CHARS = 3000


def fetch(url: str, params: dict | None = None, timeout: float = 30) -> str:
    if params:
        url = f"{url}{'&' if '?' in url else '?'}{urllib.parse.urlencode(params)}"
    request = urllib.request.Request(url, headers={"User-Agent": AGENT, "Accept-Language": "en-US,en;q=0.8"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        charset = response.headers.get_content_charset() or "utf-8"
        return response.read(4 * 2**20).decode(charset, "replace")


class ResultPage(HTMLParser):
    """Results of DuckDuckGo's HTML page: each `a.result__a` link and the `.result__snippet` after it."""

    def __init__(self) -> None:
        super().__init__()
        self.results: list[dict] = []
        self._field: str | None = None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "a" and "result__a" in classes:
            self.results.append({"title": "", "url": unwrap(dict(attrs).get("href", "")), "snippet": ""})
            self._field = "title"
        elif "result__snippet" in classes and self.results:
            self._field = "snippet"

    def handle_endtag(self, tag):
        if tag in ("a", "td", "div"):
            self._field = None

    def handle_data(self, data):
        if self._field and self.results:
            self.results[-1][self._field] += data


def unwrap(href: str) -> str:
    """Result links go through DuckDuckGo's redirect (`//duckduckgo.com/l/?uddg=<target>`)."""
    target = urllib.parse.parse_qs(urllib.parse.urlparse(html.unescape(href)).query).get("uddg")
    return target[0] if target else html.unescape(href)


def html_results(query: str, top_k: int) -> list[dict]:
    page = ResultPage()
    page.feed(fetch(HTML_URL, {"q": query}))
    tidy = [{key: " ".join(value.split()) for key, value in hit.items()} for hit in page.results]
    return [hit for hit in tidy if hit["url"] and not hit["url"].startswith("https://duckduckgo.com/y.js")][:top_k]


def instant_results(query: str, top_k: int) -> list[dict]:
    answer = json.loads(fetch(API_URL, {"q": query, "format": "json", "no_html": 1, "skip_disambig": 1}))
    found = []
    if answer.get("AbstractText"):
        found.append({"title": answer.get("Heading") or query, "url": answer.get("AbstractURL", ""),
                      "snippet": answer["AbstractText"]})
    if answer.get("Answer"):
        found.append({"title": "Answer", "url": "", "snippet": str(answer["Answer"])})
    topics = list(answer.get("RelatedTopics") or [])
    while topics and len(found) < top_k:
        topic = topics.pop(0)
        if "Topics" in topic:  # a named group of topics
            topics = list(topic["Topics"]) + topics
        elif topic.get("Text"):
            found.append({"title": topic["Text"].split(" - ")[0], "url": topic.get("FirstURL", ""),
                          "snippet": topic["Text"]})
    return found[:top_k]


class TextOf(HTMLParser):
    SKIP = {"script", "style", "noscript", "svg", "head"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        self._skipping += tag in self.SKIP

    def handle_endtag(self, tag):
        self._skipping -= tag in self.SKIP and self._skipping > 0

    def handle_data(self, data):
        if not self._skipping and data.strip():
            self.parts.append(data.strip())


def page_text(url: str) -> str:
    try:
        parser = TextOf()
        parser.feed(fetch(url, timeout=20))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"(could not fetch the page: {exc})"
    return "\n".join(parser.parts)[:CONTENT_CHARS]


def key_points(results: list[dict], limit: int = 5) -> list[str]:
    """The first sentence of each snippet, without repeats."""
    points: list[str] = []
    for hit in results:
        sentence = re.split(r"(?<=[.!?])\s+|(?<=[。！？])", hit["snippet"].strip(), maxsplit=1)[0]  # not "78.37"
        if sentence and sentence.lower() not in (p.lower() for p in points):
            points.append(sentence)
    return points[:limit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query")
    parser.add_argument("-n", "--top-k", type=int, default=5)
    parser.add_argument("--mode", choices=("html", "instant"), default="html")
    parser.add_argument("--fetch-content", action="store_true")
    parser.add_argument("--summarize", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    search = html_results if args.mode == "html" else instant_results
    try:
        results = search(args.query, max(1, args.top_k))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print(f"duckduckgo search failed: {exc}", file=sys.stderr)
        return 1
    if args.fetch_content and args.mode == "html":
        for hit in results:
            hit["content"] = page_text(hit["url"])
    report = {"query": args.query, "mode": args.mode, "results": results}
    if args.summarize:
        report["summary"] = key_points(results)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for number, hit in enumerate(results, 1):
            print(f"{number}. {hit['title']}\n   {hit['url']}\n   {hit['snippet']}")
            if "content" in hit:
                print("   ---\n" + hit["content"] + "\n")
        if args.summarize and report["summary"]:
            print("\nKey points:\n" + "\n".join(f"- {point}" for point in report["summary"]))
    if not results:
        print("no results", file=sys.stderr)
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
