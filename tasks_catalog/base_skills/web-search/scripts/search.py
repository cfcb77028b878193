#!/usr/bin/env python3
"""search.py [--max N] [--fetch] QUERY: web search results (title, URL, snippet) as text."""

from __future__ import annotations

import argparse
import os
import re
import sys
import urllib.parse

import requests
from bs4 import BeautifulSoup

SEARCH_URL = os.environ.get("SEARCH_URL", "https://html.duckduckgo.com/html/")
HEADERS = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) clawmark-web-search/1"}


def results(query: str, limit: int) -> list[dict]:
    page = requests.get(SEARCH_URL, params={"q": query}, headers=HEADERS, timeout=30)
    page.raise_for_status()
    soup = BeautifulSoup(page.text, "lxml")
    found = []
    for block in soup.select(".result"):
        link = block.select_one("a.result__a")
        if not link:
            continue
        found.append({"title": link.get_text(" ", strip=True), "url": real_url(link.get("href", "")),
                      "snippet": text_of(block.select_one(".result__snippet"))})
        if len(found) >= limit:
            break
    return found


def real_url(href: str) -> str:
    """DuckDuckGo wraps results in a redirect (/l/?uddg=<url>)."""
    query = urllib.parse.parse_qs(urllib.parse.urlparse(href).query)
    return query.get("uddg", [href])[0]


def text_of(node) -> str:
    return node.get_text(" ", strip=True) if node else ""


def page_text(url: str, limit: int = 4000) -> str:
    try:
        page = requests.get(url, headers=HEADERS, timeout=30)
    except requests.RequestException as exc:
        return f"(could not fetch: {exc})"
    soup = BeautifulSoup(page.text, "lxml")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    return re.sub(r"\n\s*\n+", "\n\n", soup.get_text("\n", strip=True))[:limit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("query")
    parser.add_argument("--max", type=int, default=8)
    parser.add_argument("--fetch", action="store_true", help="also print each result page's text")
    args = parser.parse_args()
    try:
        found = results(args.query, args.max)
    except requests.RequestException as exc:
        print(f"search failed: {exc}", file=sys.stderr)
        return 1
    for number, hit in enumerate(found, 1):
        print(f"{number}. {hit['title']}\n   {hit['url']}\n   {hit['snippet']}")
        if args.fetch:
            print("   ---\n" + page_text(hit["url"]) + "\n")
    if not found:
        print("no results", file=sys.stderr)
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
