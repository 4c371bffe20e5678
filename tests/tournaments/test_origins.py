"""The address an account is counted by (tournaments/play/origins.py)."""

from __future__ import annotations

import pytest

from tournaments.play.origins import origin_of


@pytest.mark.parametrize(
    ("address", "origin"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::"),
        ("2001:db8:1:2::", "2001:db8:1:2::"),
        ("2001:DB8:1:2::ff", "2001:db8:1:2::"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("not an address", "not an address"),
    ],
)
def test_an_ipv6_address_counts_as_its_64_network(address: str, origin: str) -> None:
    assert origin_of(address) == origin
