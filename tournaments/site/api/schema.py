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
* 415 for an operation that reads a body, sent in a content type it does not read (JSON
  only, unless its view says otherwise: an upload also takes multipart);
* 429 with ``Retry-After`` where a throttle counts that method;
* 503 with ``Retry-After`` always: the database is unavailable (tournaments/site/pages/errors.py).

Every one of them but the 400 is ``{"detail": "..."}`` (ErrorSerializer), as the API sends it.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers
from rest_framework.permissions import SAFE_METHODS

from games.engine import registry
from tournaments.site.api.permissions import ReadOrAuthenticated

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
    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        # Anyone may read what ReadOrAuthenticated guards, as with DRF's IsAuthenticatedOrReadOnly
        # (which drf-spectacular knows): no credentials is one of the ways in ({}).
        perms = [type(p) for p in self.view.get_permissions()]
        if ReadOrAuthenticated in perms and self.method in SAFE_METHODS and {} not in auths:
            auths.append({})
        return auths

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        """A serializer's ``Meta.owner_only_fields`` are left out of a response for anyone but
        the owner (the bot's webhook): never required, so a generated client reads others'."""
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)  # type: ignore[no-untyped-call]
        optional = set(getattr(getattr(serializer, "Meta", None), "owner_only_fields", ()))
        if optional and "required" in schema:
            schema["required"] = [n for n in schema["required"] if n not in optional]
            if not schema["required"]:
                del schema["required"]
        return schema

    def _get_request_body(self, direction: Any = "request") -> dict[str, Any] | None:
        body: dict[str, Any] | None = super()._get_request_body(direction)  # type: ignore[no-untyped-call]
        if body is not None and len(body["content"]) > 1:
            # openapi-python-client (0.29, its issue 1451) writes `| Unset` into the signature of
            # an operation whose body is offered in several content types, and imports `Unset`
            # only when the body is optional: a required one (the upload: multipart or JSON)
            # made a module that does not import. The body is still refused when absent (a 400).
            body.pop("required", None)
        return body

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            if code in responses:
                continue
            if code == "400":
                responses[code] = self._get_response_for_code(self._validation_error(), code)  # type: ignore[no-untyped-call]
                responses[code]["description"] = "The request was refused: see the messages."
            else:
                responses[code] = self._get_response_for_code(ErrorSerializer, code)  # type: ignore[no-untyped-call]
                responses[code]["description"] = DESCRIPTIONS[code]
        for code in ("429", "503"):
            if code in responses:
                responses[code]["headers"] = RETRY_AFTER
        return responses

    def _validation_error(self) -> dict[str, str]:
        """A reference to one ValidationError component (a client gets one model for every
        operation's 400, not one per operation)."""
        component = ResolvedComponent(  # type: ignore[no-untyped-call]
            name="ValidationError",
            type=ResolvedComponent.SCHEMA,
            object="ValidationError",
            schema=VALIDATION_ERROR,
        )
        self.registry.register_on_missing(component)
        ref: dict[str, str] = component.ref
        return ref

    def _error_codes(self) -> list[str]:
        codes = ["400", "401", "503"]
        takes_input = self.method in UNSAFE and self.method != "DELETE"
        if takes_input:
            codes += ["411", "413"]
        if takes_input and self.get_request_serializer() is not None:
            codes.append("415")
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
    "415": "The body's Content-Type is not one this operation reads (see its request body).",
    "429": "Too many requests of this kind: wait Retry-After seconds.",
    "503": "The database is unavailable (a restart, an outage): try again after Retry-After"
    " seconds.",
}


def describe_games(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Name the registered games in the schema's description, as the site's footer does: a game
    added to the registry is named here with no setting changed (a postprocessing hook)."""
    games = registry.titles()
    result["info"]["description"] = f"Submit bots for {games}, challenge others, read results."
    return result
