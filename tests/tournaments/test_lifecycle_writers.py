"""Nothing in tournaments/ but the lifecycle (tournaments/play/lifecycle/) changes a match's
status or the fields that go with it, creates a match, or writes a match's stream; and nothing
there asks the rules to decide (a decision becomes events through games.engine.decision.take).
The tests, too, reach a match's states through the lifecycle, except the guards listed that
forge one on purpose (``TESTS_EXEMPT``).

Read from the source (the AST): a write through the ORM on ``Match``, a keyword or an
assignment of a field only a match has (its lease, the seats it waits for) or of a
``Match.Status``, ``replays.store``'s writers, and SQL that writes the match table or the
events table; in tests/, a status written (a keyword, an assignment, a match factory's) and
``replays.store``'s writers.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories import MatchFactory
from tests.support import ROOT

WRITES = {"update", "create", "get_or_create", "update_or_create", "bulk_create", "bulk_update"}
MATCH_ONLY = {
    "lease_owner",
    "lease_expires_at",
    "waiting_for",
    "waiting_step",
    "deadline",
    "suspended_at",
}
"""Fields of a match's lifecycle no other model has (status is told by its value, Match.Status)."""
SQL_WRITES = ("update tournaments_match", "insert into tournaments_match", "copy replays_event")
OWNER = "tournaments/play/lifecycle/"
EXEMPT = {
    "tournaments/migrations/": "frozen copies of the schema and of the trigger's SQL",
    "tournaments/play/projection.py": "the trigger's SQL: the finish that appending writes",
    "tournaments/bench/": "tooling: it measures the store and the runner on a database of its"
    " own, and nothing at run time imports it (an import-linter contract)",
}


def _root(node: ast.expr) -> ast.expr:
    """The start of a chain such as ``Match.objects.filter(...).update``."""
    while True:
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return node


def _is_match_status(node: ast.expr) -> bool:
    text = ast.unparse(node)
    return text.startswith("Match.Status.")


def _stream_write(node: ast.AST) -> str | None:
    """What ``node`` does to a stream beside the lifecycle: imports or calls the store's writers."""
    if isinstance(node, ast.ImportFrom) and node.module == "replays.store":
        for alias in node.names:
            if alias.name in ("append", "Appender"):
                return f"imports replays.store.{alias.name}"
    elif isinstance(node, ast.Attribute) and ast.unparse(node) in (
        "store.append",
        "store.Appender",
    ):
        return f"calls {ast.unparse(node)}"
    return None


def _writes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Where the source writes a match or its stream, other than through the lifecycle."""
    for node in ast.walk(tree):
        if stream_write := _stream_write(node):
            yield node.lineno, stream_write
        elif isinstance(node, ast.Call):
            yield from _call_writes(node)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and (
                    target.attr in MATCH_ONLY
                    or (target.attr == "status" and _is_match_status(node.value or target))
                ):
                    yield node.lineno, f"assigns {ast.unparse(target)}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.lower().split())
            for write in SQL_WRITES:
                if write in sql:
                    yield node.lineno, f"SQL: {write}"


def _call_writes(node: ast.Call) -> Iterator[tuple[int, str]]:
    func = node.func
    if isinstance(func, ast.Name) and func.id == "Match":
        yield node.lineno, "constructs a Match"
    if isinstance(func, ast.Attribute) and func.attr == "decide":
        yield node.lineno, "asks the rules to decide (games.engine.decision.take does)"
    if not (isinstance(func, ast.Attribute) and func.attr in WRITES):
        return
    root = _root(func)
    if isinstance(root, ast.Name) and root.id == "Match":
        yield node.lineno, f"Match...{func.attr}()"
        return
    for keyword in node.keywords:
        if keyword.arg in MATCH_ONLY or (
            keyword.arg == "status" and _is_match_status(keyword.value)
        ):
            yield node.lineno, f"{func.attr}({keyword.arg}=...)"


def violations(root: Path) -> list[str]:
    found = []
    for path in sorted((root / "tournaments").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name.startswith(OWNER) or any(name.startswith(prefix) for prefix in EXEMPT):
            continue
        for line, what in sorted(_writes(ast.parse(path.read_text(), name))):
            found.append(f"{name}:{line}: {what}")
    return found


def test_only_the_lifecycle_changes_a_match_s_status_or_writes_its_stream() -> None:
    assert violations(ROOT) == []


def test_the_rule_finds_each_kind_of_write(tmp_path: Path) -> None:
    """The check above can fail: each way of writing a match, outside the lifecycle, is found."""
    source = textwrap.dedent(
        """
        from replays.store import Appender, read
        def f(match, late, version, rules):
            Match.objects.filter(id=match.id).update(error="x")
            late.update(status=Match.Status.QUEUED)
            late.update(lease_owner="")
            match.status = Match.Status.ABORTED
            match.waiting_for = []
            Match(game="brexit")
            store.append(match.id, [], 0)
            rules.decide(None, 0, {}, None)
            SQL = "UPDATE  tournaments_match SET status = 'queued'"
            version.status = BotVersion.Status.READY  # not a match: allowed
            BotVersion.objects.filter(id=1).update(status=BotVersion.Status.PENDING)  # allowed
            Match.objects.filter(status=Match.Status.QUEUED).values_list("id")  # a read
        """
    )
    (tmp_path / "tournaments" / "play").mkdir(parents=True)
    (tmp_path / "tournaments" / "play" / "bad.py").write_text(source)
    (tmp_path / "tournaments" / "play" / "lifecycle").mkdir()
    (tmp_path / "tournaments" / "play" / "lifecycle" / "ok.py").write_text(source)
    found = [line.split(": ", 1)[1] for line in violations(tmp_path)]
    assert found == [
        "imports replays.store.Appender",
        "Match...update()",
        "update(status=...)",
        "update(lease_owner=...)",
        "assigns match.status",
        "assigns match.waiting_for",
        "constructs a Match",
        "calls store.append",
        "asks the rules to decide (games.engine.decision.take does)",
        "SQL: update tournaments_match",
    ], found


# The tests call the lifecycle too (issue 22): a test reaches a finished, running, waiting or
# aborted match as the platform does (tests/factories.py: claim, flush, finish, abort, suspend),
# so what it asserts holds of matches the platform can make. Only the guards that must forge
# a row or a stream, to show what catches it, write one directly: each is named here, with
# why, and says so where it writes.

TESTS_OWNER = "tests/replays/"
"""The event store's own tests: the store's writers and its append-only guarantees."""
TESTS_EXEMPT = {
    "tests/tournaments/test_projection.py"
    "::test_the_twin_and_the_trigger_agree_on_any_result_in_any_batches": "the trigger, on"
    " streams no worker writes (a final event anywhere, any outcome, cut anywhere)",
    "tests/tournaments/test_rating_feed.py"
    "::test_a_match_that_finished_twice_is_rated_once_by_the_consumer_and_the_rebuild": "a"
    " second final event, which the ratings must not count twice",
    "tests/tournaments/test_runner.py::test_events_of_other_streams_touch_no_match": "a stream"
    " that is no match's",
    "tests/tournaments/test_seasons.py::test_a_season_runs_to_its_end_and_freezes_standings": "a"
    " finished match's row changed after the season ended: no transition leaves finished",
    "tests/tournaments/test_lifecycle_writers.py::test_the_rule_finds_each_kind_of_write": "the"
    " writes it must find, as source text",
    "tests/tournaments/test_lifecycle_writers.py::test_the_tests_rule_finds_each_kind_of_write": "the"
    " writes it must find, as source text",
    "tests/tournaments/test_lifecycle_writers.py::test_the_match_factory_refuses_a_status": "the"
    " factory's refusal",
}
"""Guards that forge a status or a stream on purpose, by ``path::function``, and why."""
READS = {"filter", "exclude", "get", "Q", "get_object_or_404"}
MATCH_STATUSES = {"queued", "running", "waiting", "finished", "aborted"}
"""``Match.Status``'s values, as a literal names them (no other model has these)."""


def _a_status(node: ast.expr) -> bool:
    if _is_match_status(node):
        return True
    return isinstance(node, ast.Constant) and node.value in MATCH_STATUSES


def _test_writes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Where a test writes a match's status or its stream itself."""
    for node in ast.walk(tree):
        if stream_write := _stream_write(node):
            yield node.lineno, stream_write
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "status"
                    and _a_status(node.value)
                ):
                    yield node.lineno, f"assigns {ast.unparse(target)}"
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else ast.unparse(func)
            for keyword in node.keywords:
                if keyword.arg != "status" or name in READS:
                    continue
                # A match factory's status, whatever its value; elsewhere, a match's status.
                if "MatchFactory" in ast.unparse(func) or _a_status(keyword.value):
                    yield node.lineno, f"{name}(status=...)"
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "status"
                    and _is_match_status(value)
                ):
                    yield node.lineno, "a dict's status"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.lower().split())
            if "update tournaments_match" in sql and "status" in sql:
                yield node.lineno, "SQL writes a match's status"


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Each top-level function (a class's methods under its name), and the rest as <module>."""
    rest = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, node
        else:
            rest.append(node)
    yield "<module>", ast.Module(body=rest, type_ignores=[])


def written_by_tests(root: Path) -> list[str]:
    """Every status or stream a test writes itself, as ``path::function:line: what``."""
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name.startswith(TESTS_OWNER):
            continue
        for function, node in _functions(ast.parse(path.read_text(), name)):
            for line, what in sorted(set(_test_writes(node))):
                found.append(f"{name}::{function}:{line}: {what}")
    return found


def _where(write: str) -> str:
    """The ``path::function`` of a write found."""
    path, rest = write.split("::", 1)
    return f"{path}::{rest.split(':', 1)[0]}"


def test_the_tests_reach_a_match_s_states_through_the_lifecycle() -> None:
    unexplained = [w for w in written_by_tests(ROOT) if _where(w) not in TESTS_EXEMPT]
    assert unexplained == [], "\n".join(unexplained)


def test_each_exemption_is_still_needed() -> None:
    """An exemption whose test no longer forges is dropped: the list says what forges now."""
    used = {_where(w) for w in written_by_tests(ROOT)}
    assert set(TESTS_EXEMPT) <= used, set(TESTS_EXEMPT) - used


def test_the_tests_rule_finds_each_kind_of_write(tmp_path: Path) -> None:
    """The check above can fail: each way a test could write a status or a stream is found,
    in a test file, and nothing under tests/replays/."""
    source = textwrap.dedent(
        """
        from replays.store import append
        def test_forged(match, matches, late):
            store.append(match.id, [], 0)
            store.Appender(match.id, 0)
            match.status = Match.Status.ABORTED
            match.status = "finished"
            Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
            matches.update(status="running")
            MatchFactory(status=late)
            MatchFactory(game="brexit", **{"status": Match.Status.WAITING})
            SQL = "UPDATE tournaments_match SET status = 'queued'"
        def test_allowed(match, version):
            Match.objects.filter(status=Match.Status.QUEUED).count()  # a read
            Match.objects.exclude(status="finished").get(status="running")  # reads
            version.status = BotVersion.Status.READY  # not a match's
            BotVersionFactory.create(bot=None)
            Match.objects.filter(pk=match.pk).update(lease_expires_at=None)  # time, not status
            store.read(match.id)
        """
    )
    (tmp_path / "tests" / "api").mkdir(parents=True)
    (tmp_path / "tests" / "api" / "test_bad.py").write_text(source)
    (tmp_path / "tests" / "replays").mkdir()
    (tmp_path / "tests" / "replays" / "test_store.py").write_text(source)
    found = written_by_tests(tmp_path)
    assert {w.split(":", 3)[0] for w in found} == {"tests/api/test_bad.py"}
    assert {_where(w) for w in found} == {
        "tests/api/test_bad.py::<module>",  # the import
        "tests/api/test_bad.py::test_forged",
    }
    assert [w.split(": ", 1)[1] for w in found] == [
        "calls store.append",
        "calls store.Appender",
        "assigns match.status",
        "assigns match.status",
        "update(status=...)",
        "update(status=...)",
        "MatchFactory(status=...)",
        "a dict's status",
        "SQL writes a match's status",
        "imports replays.store.append",
    ], found


def test_the_match_factory_refuses_a_status() -> None:
    """At run time too: a match made by the factory is queued, and taken further through the
    lifecycle (tests/factories.py)."""
    with pytest.raises(TypeError, match="through the lifecycle"):
        MatchFactory(status="finished")
