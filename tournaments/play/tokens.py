"""Named API tokens (``ApiToken``): what a key looks like and how it is kept. A token is made and
revoked by play's services (``create_token``, ``revoke_token``) and its key checked on each
request (the selector ``token_for_key`` finds it, the service ``user_for_token`` notes its use,
for the API's token authentication, tournaments/site/api/authentication.py). Pure: no model, no
query.

A key reads ``br_<prefix>_<secret>``: the prefix finds the row, the SHA-256 of the whole key
must match the stored one. The account's original token (DRF's ``Token``, 40 hex digits) keeps
working beside them: nothing of it changes.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

KEY_START = "br_"
MAX_TOKENS = 20
"""Per account: enough for each machine and script, few enough to list on one page."""
USED_EVERY = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per token: not one UPDATE per request."""


def digest(key: str) -> str:
    """What is kept of a key: its SHA-256."""
    return hashlib.sha256(key.encode()).hexdigest()
