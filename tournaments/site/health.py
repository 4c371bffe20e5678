"""``GET /health/``: whether this web process reaches its database, and its replica's lag.

Cheap and open (no login, nothing secret): one ``SELECT 1`` on the primary, and the replica's
state from the last lag check (config/replica.py: at most one check a second per process, so a
load balancer polling this costs the replica nothing more). 200 while the primary answers; when
it does not, the database error reaches the site's handler and the answer is its 503 with
Retry-After, like every other door's (tournaments/site/pages/errors.py). A lagging or unreachable
replica is still a 200 (the primary serves meanwhile), shown in ``replica`` and ``reads``.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config import replica


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"database": "ok", **replica.state().as_json()})
