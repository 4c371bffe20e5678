"""The address an account is counted by: its origin (tournaments/play/allowance.py, scheduler.py).

The accounts signed up from one address share their caps, their budget and one turn at the
workers, and sign-ups and logins are limited per address. An IPv6 host is handed a whole /64
network (often more), so each of its addresses would be an origin of its own: an IPv6 address
counts as its /64. An IPv4-mapped IPv6 address counts as the IPv4 address it maps.
"""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64


def origin_of(address: str) -> str:
    """The address ``address`` is counted as (itself, or its IPv6 /64 network's first address);
    anything that is not an IP address (a proxy's odd header) is counted as given."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False).network_address)
    return str(ip)
