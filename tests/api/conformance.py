"""Checks one Django test response against the project's OpenAPI schema (schemathesis' validator)."""

from __future__ import annotations

from functools import cache
from typing import Any

import requests
from rest_framework.test import APIClient


@cache
def _schema_dict() -> str:
    import json

    r = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    return json.dumps(r.json())


def violations(path: str, method: str, response: Any) -> str | None:
    """None if ``response`` (of ``method`` on the schema's ``path`` template) conforms, else why."""
    import json

    import schemathesis
    from schemathesis.core.failures import Failure, FailureGroup
    from schemathesis.core.transport import Response

    schema = schemathesis.openapi.from_dict(json.loads(_schema_dict()))
    operation = schema[path][method.upper()]
    request = requests.Request(method.upper(), f"http://testserver{path}").prepare()
    r = Response(
        status_code=response.status_code,
        headers={name: [value] for name, value in response.items()},
        content=response.content,
        request=request,
        elapsed=0.0,
        verify=False,
    )
    try:
        operation.validate_response(r)
    except (Failure, FailureGroup) as exc:
        return str(exc)
    return None
