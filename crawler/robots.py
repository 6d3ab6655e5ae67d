"""robots.txt: fetched once per origin, parsed the way RFC 9309 says.

Rules of the group naming our User-Agent's product token apply, else those of `*`; the longest
matching pattern wins and `Allow` wins a tie; `*` and a final `$` are wildcards. A missing
robots.txt (4xx) allows everything; an unreachable one (5xx, network error) disallows everything
for this crawl, as the RFC asks. Parsed files are also kept in the default cache for
`ROBOTS_CACHE_SECONDS`, so consecutive crawls of a site do not fetch it again.
"""

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from crawler import urlnorm
from crawler.exceptions import CrawlerError, HTTPStatusError
from crawler.fetching import Fetcher

MAX_ROBOTS_BYTES = 500 * 1024  # RFC 9309: parse at least the first 500 KiB


@dataclass
class Rules:
    rules: list[tuple[str, bool]] = field(default_factory=list)  # (pattern, allowed)
    crawl_delay: float | None = None
    sitemaps: list[str] = field(default_factory=list)
    unreachable: bool = False
    error: str = ""  # why robots.txt could not be read, when unreachable

    def allows(self, url: str) -> bool:
        if self.unreachable:
            return False
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if target == "/robots.txt":
            return True
        best_length, allowed = -1, True
        for pattern, allow in self.rules:
            longer_or_allowing_tie = len(pattern) > best_length or (len(pattern) == best_length and allow)
            if longer_or_allowing_tie and _matches(pattern, target):
                best_length, allowed = len(pattern), allow
        return allowed


def product_token(user_agent: str) -> str:
    """`KnowledgePortalBot` of `KnowledgePortalBot/0.1 (+https://…)`."""
    return re.split(r"[/\s]", user_agent.strip(), maxsplit=1)[0].lower()


def parse_robots(text: str, user_agent: str) -> Rules:
    """The rules of robots.txt `text` that apply to `user_agent`."""
    token = product_token(user_agent)
    groups: list[tuple[set[str], list[tuple[str, bool]], list[float]]] = []
    sitemaps: list[str] = []
    agents: set[str] | None = None
    for line in text.splitlines():
        name, _, value = line.split("#", 1)[0].partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "sitemap" and value:
            sitemaps.append(value)
        elif name == "user-agent":
            if agents is None:  # a user-agent line after rules starts a new group
                agents = set()
                groups.append((agents, [], []))
            agents.add(value.lower())
        elif name in ("allow", "disallow", "crawl-delay") and groups:
            agents = None
            _, rules, delays = groups[-1]
            if name == "crawl-delay":
                try:
                    delays.append(float(value))
                except ValueError:
                    pass
            elif value:
                rules.append((value, name == "allow"))
    chosen = [g for g in groups if token in g[0]] or [g for g in groups if "*" in g[0]]
    rules = [rule for group in chosen for rule in group[1]]
    delays = [delay for group in chosen for delay in group[2]]
    return Rules(rules=rules, crawl_delay=max(delays) if delays else None, sitemaps=sitemaps)


def _matches(pattern: str, target: str) -> bool:
    anchored = pattern.endswith("$")
    regex = ".*".join(re.escape(part) for part in pattern.rstrip("$").split("*"))
    return re.match(regex + ("$" if anchored else ""), target) is not None


class RobotsCache:
    """robots.txt rules per origin for one crawl, backed by the shared cache across crawls."""

    def __init__(self, fetcher: Fetcher):
        self.fetcher = fetcher
        self.user_agent = settings.CRAWLER["USER_AGENT"]
        self._rules: dict[str, Rules] = {}

    def rules_for(self, url: str) -> Rules:
        origin = urlnorm.origin(url)
        if origin not in self._rules:
            self._rules[origin] = self._load(origin)
            delay = self._rules[origin].crawl_delay
            if delay and delay > self.fetcher.delay:
                delay = min(delay, settings.CRAWLER["MAX_ROBOTS_DELAY_SECONDS"])
                self.fetcher.set_delay(urlnorm.host_of(url), delay)
        return self._rules[origin]

    def allows(self, url: str) -> bool:
        return self.rules_for(url).allows(url)

    def refusal(self, url: str) -> str:
        """Why robots.txt keeps `url` from being crawled, in words (call it when `allows` is False)."""
        rules = self.rules_for(url)
        if rules.unreachable:
            return _("robots.txt of %(origin)s could not be read (%(error)s), so none of the site may be crawled "
                     "until it can") % {"origin": urlnorm.origin(url), "error": rules.error}
        return _("Disallowed by robots.txt")

    def _load(self, origin: str) -> Rules:
        key = f"crawler:robots:{product_token(self.user_agent)}:{origin}"
        text = cache.get(key)
        if text is None:
            try:
                response = self.fetcher.get(f"{origin}/robots.txt", mode="raw", max_bytes=MAX_ROBOTS_BYTES)
                text = response.body.decode("utf-8", errors="replace")
            except HTTPStatusError as exc:
                if exc.status >= 500:
                    return Rules(unreachable=True, error=str(exc))
                text = ""  # no robots.txt: everything is allowed
            except CrawlerError as exc:
                return Rules(unreachable=True, error=str(exc))
            cache.set(key, text, settings.CRAWLER["ROBOTS_CACHE_SECONDS"])
        rules = parse_robots(text, self.user_agent)
        sitemaps = (urlnorm.try_normalize(url, f"{origin}/robots.txt") for url in rules.sitemaps)
        rules.sitemaps = [url for url in sitemaps if url]
        return rules
