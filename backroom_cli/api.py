"""The server's REST API over urllib (the standard library): JSON in and out, one multipart
upload, and each refusal turned into a Failure with the server's own message."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

from backroom_cli.exits import Exit, Failure

TIMEOUT_SECONDS = 30.0


class Api:
    def __init__(self, server: str, token: str | None = None) -> None:
        self.server = server
        self.token = token

    def get(self, path: str, query: dict[str, Any] | None = None) -> Any:
        return json.loads(self.call("GET", path, query=query))

    def post(self, path: str, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode()
        return json.loads(self.call("POST", path, data, "application/json"))

    def upload(self, path: str, filename: str, content: bytes) -> Any:
        """POST one file as multipart/form-data (field ``file``), as a browser sends it."""
        boundary = uuid.uuid4().hex
        quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
        body = b"".join(
            [
                f"--{boundary}\r\n".encode(),
                f'Content-Disposition: form-data; name="file"; filename="{quoted}"\r\n'.encode(),
                b"Content-Type: application/octet-stream\r\n\r\n",
                content,
                f"\r\n--{boundary}--\r\n".encode(),
            ]
        )
        kind = f"multipart/form-data; boundary={boundary}"
        return json.loads(self.call("POST", path, body, kind))

    def pages(self, path: str, query: dict[str, Any] | None = None) -> list[Any]:
        """Every item of a paginated list (``results`` and ``next``), or the list itself."""
        found = self.get(path, query)
        if isinstance(found, list):
            return found
        items = list(found.get("results", []))
        while found.get("next"):
            found = json.loads(self.call("GET", found["next"]))
            items.extend(found.get("results", []))
        return items

    def call(
        self,
        method: str,
        path: str,
        data: bytes | None = None,
        content_type: str | None = None,
        query: dict[str, Any] | None = None,
    ) -> bytes:
        url = path if path.startswith(("http://", "https://")) else self.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        request = urllib.request.Request(url, data=data, method=method)  # noqa: S310 (http(s) only: config.normal)
        request.add_header("Accept", "application/json")
        if content_type:
            request.add_header("Content-Type", content_type)
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310
                return bytes(answer.read())
        except urllib.error.HTTPError as exc:
            raise refusal(method, path, exc.code, exc.read()) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise Failure(Exit.UNAVAILABLE, f"cannot reach {self.server}: {reason}") from None


def refusal(method: str, path: str, status: int, body: bytes) -> Failure:
    """The server's answer as a Failure: its message, and the exit code of its kind."""
    said = message(body) or f"HTTP {status}"
    where = f"{method} {urllib.parse.urlsplit(path).path}"
    if status in (401, 403):
        return Failure(Exit.AUTH, f"{where}: {said} (run backroom login)")
    if status == 404:
        return Failure(Exit.NOT_FOUND, f"{where}: {said}")
    if status >= 500:
        return Failure(Exit.UNAVAILABLE, f"{where}: the server failed ({status}): {said}")
    return Failure(Exit.REFUSED, f"{where}: {said}")


def message(body: bytes) -> str:
    """DRF's error bodies in one line: ``detail``, or each field's messages."""
    try:
        found = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip()[:300]
    if isinstance(found, dict):
        if "detail" in found and len(found) == 1:
            return str(found["detail"])
        return "; ".join(f"{field}: {_words(said)}" for field, said in found.items())
    return _words(found)


def _words(said: Any) -> str:
    if isinstance(said, list):
        return " ".join(_words(item) for item in said)
    if isinstance(said, dict):
        return "; ".join(f"{k}: {_words(v)}" for k, v in said.items())
    return str(said)
