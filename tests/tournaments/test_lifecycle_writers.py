"""Nothing in tournaments/ but the lifecycle (tournaments/play/lifecycle/) changes a match's
status or the fields that go with it, creates a match, or writes a match's stream; and nothing
there asks the rules to decide (a decision becomes events through games.engine.decision.take).

Read from the source (the AST): a write through the ORM on ``Match``, a keyword or an
assignment of a field only a match has (its lease, the seats it waits for) or of a
``Match.Status``, ``replays.store``'s writers, and SQL that writes the match table or the
events table.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.conftest import ROOT

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


def _writes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Where the source writes a match or its stream, other than through the lifecycle."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "replays.store":
            for alias in node.names:
                if alias.name in ("append", "Appender"):
                    yield node.lineno, f"imports replays.store.{alias.name}"
        elif isinstance(node, ast.Attribute) and ast.unparse(node) in (
            "store.append",
            "store.Appender",
        ):
            yield node.lineno, f"calls {ast.unparse(node)}"
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
