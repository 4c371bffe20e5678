"""The OpenAPI schema documents every operation's errors, not only its successes.

drf-spectacular lists what a view's ``extend_schema`` names, which is nearly always the 2xx
alone; clients (and the fuzzer, tests/api/test_fuzz.py) then meet 400, 401, 403, 404 and 429
answers the schema never mentioned. Here each operation gets the errors it can really give:

* 400 always: a query string that no parameter may hold (a NUL, bytes that are not UTF-8, an
  absurd length) is refused before any view (tournaments/site/query_params.py, ``detail``), and a
  body or a query parameter the view refuses gets DRF's validation errors (a message list per
  field, or ``detail`` for a body that does not parse);
* 401 always: a wrong ``Authorization: Token`` is refused before any view runs;
* 403 for writes: session clients without a CSRF token;
* 404 when its path names an object (or the object is not one the caller may see);
* 411 and 413 for a write with a body: a chunked body, or one over the limit
  (tournaments/site/api/body_limits.py refuses both before reading);
* 429 with ``Retry-After`` where a throttle counts that method.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework import serializers

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


class ErrorSerializer(serializers.Serializer[Any]):
    """Every refusal but a validation error: one message."""

    detail = serializers.CharField(help_text="What went wrong, in words.")


VALIDATION_ERROR: dict[str, Any] = {
    "type": "object",
    "description": "A list of messages per field that was refused (``non_field_errors`` for the"
    " request as a whole), or ``detail`` when the body or the query string could not be read at"
    " all.",
    "additionalProperties": True,
}

RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds to wait before the next attempt is counted again.",
    }
}


class AutoSchema(SpectacularAutoSchema):
    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            if code in responses:
                continue
            if code == "400":
                responses[code] = self._get_response_for_code(VALIDATION_ERROR, code)  # type: ignore[no-untyped-call]
                responses[code]["description"] = "The request was refused: see the messages."
            else:
                responses[code] = self._get_response_for_code(ErrorSerializer, code)  # type: ignore[no-untyped-call]
                responses[code]["description"] = DESCRIPTIONS[code]
        if "429" in responses:
            responses["429"]["headers"] = RETRY_AFTER
        return responses

    def _error_codes(self) -> list[str]:
        codes = ["400", "401"]
        takes_input = self.method in UNSAFE and self.method != "DELETE"
        if takes_input:
            codes += ["411", "413"]
        if self.method in UNSAFE:
            codes.append("403")
        if "{" in self.path:
            codes.append("404")
        if any(self.method in getattr(t, "methods", UNSAFE | {"GET"}) for t in self._throttles()):
            codes.append("429")
        return sorted(codes)

    def _throttles(self) -> list[Any]:
        return list(getattr(self.view, "throttle_classes", []) or [])


DESCRIPTIONS = {
    "401": "No valid credentials: log in, or send a valid 'Authorization: Token <key>'.",
    "403": "Not allowed (for session clients: the CSRF token is missing).",
    "404": "No such object, or not one you may see.",
    "411": "A chunked body (no Content-Length): send its length.",
    "413": "The body is larger than this operation accepts (refused before it is read).",
    "429": "Too many requests of this kind: wait Retry-After seconds.",
}
