"""Benchmark, fuzz and load tooling (`manage.py bench`, `manage.py fuzz`): never imported by
runtime code (an import-linter contract, pyproject.toml)."""
