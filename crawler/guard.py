"""The SSRF guard: the crawler only talks to public addresses unless an administrator allows more.

A URL's host is resolved and every address is checked; private, loopback, link-local, CGNAT,
multicast, reserved and cloud-metadata addresses are refused unless the host name, the address
or a network holding it is listed in `settings.CRAWLER["ALLOWED_HOSTS"]` (or passed as
`allow_hosts`). The check runs where the socket is opened (`GuardedBackend`), for every
connection and so for every redirect hop, and the socket connects to the very address that was
checked: a DNS answer that changes between check and connect (DNS rebinding) gains nothing.
"""

import ipaddress
import logging
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from httpcore import ConnectError, SyncBackend

from crawler.exceptions import BlockedAddressError, CrawlerError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Instance-metadata endpoints of the big clouds. Most sit in ranges refused anyway (link-local,
# CGNAT); they are named so the error says why, and an allow-listed network never lets them through.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean…
    "169.254.170.2",  # AWS ECS task metadata
    "fd00:ec2::254",  # AWS IPv6
    "100.100.100.200",  # Alibaba Cloud
    "192.0.0.192",  # Oracle Cloud (classic)
))
CGNAT = ipaddress.ip_network("100.64.0.0/10")

logger = logging.getLogger(__name__)


class AllowList:
    """Host names, addresses and networks an administrator lets the crawler (or, with its own
    `setting`, the webhooks) reach."""

    def __init__(self, entries: Iterable[str], *, setting: str = "PORTAL_CRAWLER_ALLOWED_HOSTS"):
        self.setting = setting  # the variable a refusal tells the administrator to set
        self.hosts: set[str] = set()
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for entry in entries:
            entry = entry.strip().lower()
            if not entry:
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.hosts.add(entry.rstrip("."))

    @classmethod
    def from_settings(cls, extra: Iterable[str] | None = None) -> "AllowList":
        return cls([*settings.CRAWLER["ALLOWED_HOSTS"], *(extra or [])])

    def allows_host(self, host: str) -> bool:
        return host.lower().rstrip(".") in self.hosts

    def allows_address(self, address: IPAddress) -> bool:
        if address in METADATA_ADDRESSES:
            # Only the exact address, never a network that happens to contain it.
            return any(net.num_addresses == 1 and address in net for net in self.networks)
        return any(address in net for net in self.networks)


def refusal(address: IPAddress) -> str:
    """Why the address is not public ("" when it is), in English: a msgid, translated where it is shown."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return refusal(address.ipv4_mapped)
    if address in METADATA_ADDRESSES:
        return gettext_noop("a cloud metadata address")
    for attribute, label in (("is_loopback", gettext_noop("a loopback address")),
                             ("is_link_local", gettext_noop("a link-local address")),
                             ("is_multicast", gettext_noop("a multicast address")),
                             ("is_unspecified", gettext_noop("an unspecified address"))):
        if getattr(address, attribute):
            return label
    if isinstance(address, ipaddress.IPv4Address) and address in CGNAT:
        return gettext_noop("a carrier-grade NAT address")
    if address.is_reserved:
        return gettext_noop("a reserved address")
    if address.is_private:
        return gettext_noop("a private address")
    if not address.is_global:
        return gettext_noop("a reserved address")
    return ""


def resolve(host: str, port: int, allow: AllowList) -> list[str]:
    """The addresses of `host` the crawler may connect to; raises `BlockedAddressError` if none."""
    host = host.strip("[]")
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            # "Name or service not known", not "[Errno -2] Name or service not known".
            reason = getattr(exc, "strerror", None) or str(exc)
            raise ConnectError(_("cannot resolve %(host)s: %(error)s") % {"host": host, "error": reason}) from exc
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos))
    if literal is None and allow.allows_host(host):
        permitted = [str(a) for a in addresses if a not in METADATA_ADDRESSES or allow.allows_address(a)]
    else:
        permitted = [str(a) for a in addresses if not refusal(a) or allow.allows_address(a)]
    if not permitted:
        if literal is not None:
            reason = _(refusal(addresses[0]))
        else:
            # Which internal address a name resolves to is for the operator's log, not for whoever
            # asked for the URL: it would map the internal network one request at a time.
            logger.warning("Crawler refused %s: it resolves to %s (%s)", host, addresses[0], refusal(addresses[0]))
            address = refusal(addresses[0]) or gettext_noop("a refused address")
            reason = _("it resolves to %(address)s") % {"address": _(address)}
        raise BlockedAddressError(_(
            "Refused to connect to %(host)s: %(reason)s. An administrator can allow it by adding it to "
            "%(setting)s (hosts, addresses or networks, comma-separated) and restarting the web "
            "server and the worker.") % {"host": host, "reason": reason, "setting": allow.setting})
    return permitted


def check_url(url: str, *, allow_hosts: Iterable[str] | None = None) -> None:
    """Raise `BlockedAddressError` unless the crawler may connect to the URL's host (checked early,
    for a clear refusal; the connection itself is checked again by `GuardedBackend`)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        resolve(parts.hostname or "", port, AllowList.from_settings(allow_hosts))
    except ConnectError as exc:
        raise CrawlerError(_("Cannot resolve the host of %(url)s: %(error)s") % {"url": url, "error": exc}) from None


class GuardedBackend(SyncBackend):
    """httpcore's network backend, connecting only to addresses the guard permits."""

    def __init__(self, allow: AllowList):
        self.allow = allow

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        last_error: Exception | None = None
        for address in resolve(host, port, self.allow):
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except ConnectError as exc:
                last_error = exc
        raise last_error or ConnectError(_("cannot connect to %(host)s") % {"host": host})
