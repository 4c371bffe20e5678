"""Fuzz the API against its own OpenAPI schema (schemathesis), anonymous and with a token.

Every operation the schema lists is called with requests generated from the schema: valid
ones, and (``negative``) ones the schema forbids. Each answer must not be a 5xx and must
conform to the schema: a documented status code, content type, headers and body. Path ids are
drawn half the time from objects that exist (the fuzzing account's own bot, its version, a
match, a ladder, a season), so the fuzzer gets past the 404s into the views' real work.

schemathesis is a development dependency: ``manage.py fuzz`` imports this module only when run.
The figures (operations, cases, 5xx, schema violations) are what docs/reliability.md quotes.
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
)
"""What every answer must pass (schemathesis' names). Checks that judge business rules
(``positive_data_acceptance``: any schema-valid body must succeed) do not apply here: a valid
shape naming another user's bot is rightly refused."""

BOT_SOURCE = 'def act(observation, legal):\n    return legal["actions"][0]\n'


@dataclass
class Findings:
    operations: int = 0
    """Operations fuzzed (this shard's)."""
    schema_operations: int = 0
    """Operations the schema lists (every shard's)."""
    cases: int = 0
    server_errors: int = 0
    left_the_api: int = 0
    schema_violations: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    details: dict[str, str] = field(default_factory=dict)
    """The first message of each kind of failure, for whoever fixes it."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "operations": self.operations,
            "schema_operations": self.schema_operations,
            "cases": self.cases,
            "server_errors": self.server_errors,
            "left_the_api": self.left_the_api,
            "schema_violations": self.schema_violations,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "failures": dict(self.failures.most_common(100)),
            "details": {k: self.details[k] for k, _ in self.failures.most_common(100)},
        }


def sign_up(base_url: str) -> str:
    """A fresh account through the API itself, with a bot and one uploaded version: its token."""
    name = f"fuzz-{secrets.token_hex(4)}"
    r = requests.post(
        f"{base_url}/api/accounts/",
        json={"username": name, "password": secrets.token_urlsafe(16)},
        timeout=30,
    )
    r.raise_for_status()
    token = str(r.json()["token"])
    auth = {"Authorization": f"Token {token}"}
    bot = requests.post(
        f"{base_url}/api/bots/", json={"game": "brexit", "name": name}, headers=auth, timeout=30
    )
    bot.raise_for_status()
    requests.post(
        f"{base_url}/api/bots/{bot.json()['id']}/versions/",
        json={"source": BOT_SOURCE},
        headers=auth,
        timeout=30,
    ).raise_for_status()
    return token


def known_ids(base_url: str, headers: dict[str, str]) -> dict[str, list[Any]]:
    """Ids of objects that exist, by path parameter name, read from the lists."""

    def ids(path: str, key: str = "id") -> list[Any]:
        r = requests.get(f"{base_url}{path}", params={"limit": 20}, headers=headers, timeout=30)
        r.raise_for_status()
        return [row[key] for row in r.json()["results"]]

    bots = ids("/api/bots/")
    return {
        "id": bots,
        "bot_id": bots,
        "number": [1, 2],
        "match_id": ids("/api/matches/"),
        "ladder_id": ids("/api/ladders/"),
        "season_id": ids("/api/seasons/"),
    }


def _classify(exc: BaseException, findings: Findings, label: str, status: int) -> None:
    from schemathesis.core.failures import FailureGroup, ServerError

    failures = list(exc.exceptions) if isinstance(exc, FailureGroup) else [exc]
    for failure in failures:
        if isinstance(failure, ServerError):
            findings.server_errors += 1
        else:
            findings.schema_violations += 1
        key = f"{label} {status}: {getattr(failure, 'title', type(failure).__name__)}"
        findings.failures[key] += 1
        findings.details.setdefault(key, str(getattr(failure, "message", failure))[:600])


def fuzz(
    base_url: str,
    *,
    token: str | None = None,
    examples: int = 20,
    negative: bool = True,
    seed: int | None = None,
    shard: tuple[int, int] = (0, 1),
) -> Findings:
    """Fuzz every operation at ``base_url`` (a running server) as anonymous and as a user; with
    ``shard`` (k, n), only the operations whose place in the schema is k modulo n, so that n runs
    (n machines, or the suite's parallel workers) share the work, each case seeded as alone."""
    import schemathesis
    from schemathesis import GenerationMode

    base_url = base_url.rstrip("/")
    token = token or sign_up(base_url)
    roles: dict[str, dict[str, str]] = {
        "anonymous": {},
        "user": {"Authorization": f"Token {token}"},
    }
    run = _Run(base_url, known_ids(base_url, roles["user"]), examples, seed)
    schema = schemathesis.openapi.from_url(f"{base_url}/api/schema/")
    modes = [GenerationMode.POSITIVE] + ([GenerationMode.NEGATIVE] if negative else [])
    k, n = shard
    for place, result in enumerate(schema.get_all_operations()):
        operation = result.ok()  # type: ignore[union-attr]  # an invalid schema raises here
        run.findings.schema_operations += 1
        if place % n != k:
            continue
        run.findings.operations += 1
        for role, headers in roles.items():
            for mode in modes:
                run.operation(operation, role, headers, mode)
    run.session.close()  # lets the server's threads (and their database connections) end
    return run.findings


class _Run:
    def __init__(self, base_url: str, known: dict[str, list[Any]], examples: int, seed: int | None):
        from schemathesis.checks import CHECKS as REGISTRY
        from schemathesis.checks import load_all_checks

        load_all_checks()
        self.checks = REGISTRY.get_by_names(list(CHECKS))
        self.base_url, self.known, self.examples, self.seed = base_url, known, examples, seed
        self.findings = Findings()
        self.session = requests.Session()

    def operation(self, operation: Any, role: str, headers: dict[str, str], mode: Any) -> None:
        """``examples`` cases of one operation, for one role, valid or (negative) not."""
        from hypothesis import HealthCheck, given, settings
        from hypothesis import seed as hypothesis_seed
        from hypothesis import strategies as st
        from hypothesis.errors import Unsatisfiable
        from schemathesis import GenerationMode
        from schemathesis.core.failures import Failure, FailureGroup

        label = f"{operation.method.upper()} {operation.path} {role} {mode.value}"
        present = {k: v for k, v in self.known.items() if f"{{{k}}}" in operation.path and v}
        reuse = st.fixed_dictionaries({k: st.sampled_from(v) for k, v in present.items()})
        positive = mode is GenerationMode.POSITIVE
        cases = st.tuples(
            operation.as_strategy(generation_mode=mode),
            st.one_of(st.none(), reuse) if positive else st.none(),
        )

        def check(drawn: tuple[Any, dict[str, Any] | None]) -> None:
            case, ids = drawn
            if ids:
                case.path_parameters = {**(case.path_parameters or {}), **ids}
            self.findings.cases += 1
            response = case.call(base_url=self.base_url, session=self.session, headers=headers)
            self.findings.statuses[response.status_code] += 1
            outside = not urlsplit(response.request.url).path.startswith("/api/")
            if outside and response.status_code < 500:
                # A generated id of dot segments ("../../x") that the client resolved to a URL
                # outside the API: the site's answer there is not this operation's (a 5xx still
                # counts, below).
                self.findings.left_the_api += 1
                return
            try:
                case.validate_response(response, checks=self.checks, headers=headers)
            except (FailureGroup, Failure) as exc:
                _classify(exc, self.findings, label, response.status_code)

        test = settings(
            max_examples=self.examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(given(cases)(check))
        if self.seed is not None:  # the same cases on every run (CI)
            test = hypothesis_seed(self.seed)(test)
        try:
            test()
        except Unsatisfiable:
            # Nothing to negate (no parameters, no body): the positive cases cover it.
            if positive:
                raise
