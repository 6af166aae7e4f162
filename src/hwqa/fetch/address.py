"""The address policy: which hosts and addresses may be connected to.

Every address a host resolves to is checked (loopback, private, link-local, carrier-grade NAT,
multicast, reserved, unspecified, IPv4-mapped / NAT64 / 6to4 forms of those, cloud-metadata
addresses and names). Odd IPv4 spellings (``2130706433``, ``0x7f000001``, ``127.1``,
``0177.0.0.1``) are parsed the way the C library would. :class:`AddressPolicy` resolves a host
once and returns the checked addresses, which are the only ones connected to.
"""

from __future__ import annotations

import ipaddress
import re
import socket

from .config import FetchConfig
from .connection import network_reason
from .types import InvalidAddress, InvalidURL, IPAddress, RefusedAddress, ResolveError, Resolver

__all__ = ["AddressPolicy", "address_problem", "default_resolver", "host_key", "parse_ip_literal"]


_METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack, ...
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IPv6
        ipaddress.ip_address("192.0.0.192"),  # Oracle Cloud
    }
)
_METADATA_NAMES = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_PART_RE = re.compile(r"^(?:0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")
_NUMERICISH_RE = re.compile(r"^[0-9][0-9a-fA-FxX.]*$")


def host_key(host: str) -> str:
    """One spelling per host: lower case, no trailing dot, IDNA, IP addresses in canonical form.

    ``127.1``, ``0x7f.1``, ``2130706433`` and ``127.0.0.1`` are one host, so they share one
    robots.txt and one politeness gate.
    """
    name = host.strip().strip("[]").lower().rstrip(".")
    try:
        ip = parse_ip_literal(name)
    except InvalidAddress:
        ip = None
    if ip is not None:
        return str(ip)
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def parse_ip_literal(host: str) -> IPAddress | None:
    """Parse ``host`` as an IP address, including the legacy IPv4 spellings.

    Accepts what ``inet_aton`` accepts: 1 to 4 dot-separated parts, each decimal, octal (leading
    ``0``) or hex (``0x``), the last part filling the remaining bytes; so ``2130706433``,
    ``0x7f000001``, ``127.1`` and ``0177.0.0.1`` are all 127.0.0.1. Returns ``None`` for a name.
    Raises :class:`~hwqa.fetch.types.InvalidAddress` for a numeric-looking host that is no valid address.
    """
    h = host.strip("[]")
    if "%" in h:  # IPv6 zone id
        h = h.split("%", 1)[0]
    if ":" in h:
        try:
            return ipaddress.IPv6Address(h)
        except ValueError:
            raise InvalidAddress(f"refused: {host} is not a valid address") from None
    if h.endswith("."):
        h = h[:-1]
    if not h or not _NUMERICISH_RE.match(h):
        return None
    parts = h.split(".")
    if not all(_IPV4_PART_RE.match(p) for p in parts):
        return None  # a name (resolved, and its addresses checked, like any other)
    if len(parts) > 4:
        raise InvalidAddress(f"refused: {host} is not a valid address")
    values: list[int] = []
    for p in parts:
        if p.lower().startswith("0x"):
            values.append(int(p[2:] or "0", 16))
        elif p.startswith("0") and len(p) > 1:
            values.append(int(p, 8))
        else:
            values.append(int(p))
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(values)):
        raise InvalidAddress(f"refused: {host} is not a valid address")
    number = 0
    for v in head:
        number = number * 256 + v
    number = number * 256 ** (5 - len(values)) + last
    return ipaddress.IPv4Address(number)


def address_problem(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be connected to (e.g. "a private address"), or ``None`` if public."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded: ipaddress.IPv4Address | None = None
        kind = ""
        if ip.ipv4_mapped is not None:
            embedded, kind = ip.ipv4_mapped, "IPv4-mapped"
        elif any(ip in net for net in _NAT64):
            embedded, kind = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF), "NAT64"
        elif ip.sixtofour is not None:
            embedded, kind = ip.sixtofour, "6to4"
        if embedded is not None:
            inner = address_problem(embedded)
            if inner:
                return f"{inner} ({kind} form of {embedded})"
            if kind == "NAT64" and ip not in _NAT64[0]:
                return "a local-use NAT64 address"
    if ip in _METADATA_ADDRESSES:
        return "a cloud metadata address"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a carrier-grade NAT address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "not a public address"
    return None


def default_resolver(host: str, port: int) -> list[str]:
    """Resolve ``host`` with the system resolver; every address, in the order given."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        addr = str(sockaddr[0])
        if addr not in seen:
            seen.append(addr)
    return seen


class AddressPolicy:
    """Resolves a host once and checks every address against the configured policy."""

    def __init__(self, config: FetchConfig, resolver: Resolver) -> None:
        self.config = config
        self._resolver = resolver
        self._allowed_networks = [ipaddress.ip_network(n, strict=False) for n in config.allow_networks]

    def host_allowed_private(self, host: str) -> bool:
        """Whether ``host`` may resolve to non-public addresses (allow_private_hosts, allow_hosts)."""
        if self.config.allow_private_hosts:
            return True
        name = host_key(host)  # compared in one spelling (IDNA, canonical IP), like robots.txt
        for allowed in self.config.allow_hosts:
            allowed = allowed.strip().lower().rstrip(".")
            base = host_key(allowed.lstrip("."))
            if name == base or (allowed.startswith(".") and name.endswith("." + base)):
                return True
        return False

    def checked_addresses(self, host: str, port: int, *, resolved: list[str] | None = None) -> list[str]:
        """Resolve ``host`` once and check every address; return them or raise a :class:`~hwqa.errors.FetchError`.

        With ``resolved`` (addresses recorded earlier), no lookup is made: those are checked.
        """
        name = host.lower().rstrip(".")
        if not name:
            raise InvalidURL("invalid URL: no host")
        if name in _METADATA_NAMES:
            raise RefusedAddress(f"refused: {name} is a cloud metadata host")
        literal = parse_ip_literal(name)
        private_ok = self.host_allowed_private(name)
        if literal is None:
            if (name == "localhost" or name.endswith(".localhost")) and not private_ok:
                raise RefusedAddress(f"refused: {name} is a loopback host name")
            try:
                ascii_name = name.encode("idna").decode("ascii")
            except UnicodeError:
                raise InvalidURL(f"invalid host name {name}") from None
            if resolved is not None:
                raw = resolved
            else:
                try:
                    raw = self._resolver(ascii_name, port)
                except (OSError, UnicodeError) as exc:
                    raise ResolveError(f"could not resolve {name} ({network_reason(exc)})") from None
                if not raw:
                    raise ResolveError(f"could not resolve {name}")
        else:
            raw = [str(literal)]
        checked: list[str] = []
        for address in raw:
            ip = parse_ip_literal(address.split("%", 1)[0])
            if ip is None:
                raise ResolveError(f"resolver returned {address!r}, not an address")
            problem = address_problem(ip)
            if problem is not None:
                always = ip in _METADATA_ADDRESSES or "cloud metadata" in problem
                allowed = not always and (private_ok or any(ip in net for net in self._allowed_networks))
                if not allowed:
                    if literal is not None:
                        if isinstance(literal, ipaddress.IPv6Address):
                            shown = f"[{name}]"
                        else:
                            shown = name if str(literal) == name else f"{name} ({literal})"
                        raise RefusedAddress(f"refused: {shown} is {problem}")
                    raise RefusedAddress(f"refused: {name} resolves to {ip}, {problem}")
            checked.append(str(ip))
        return checked
