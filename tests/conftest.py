"""Fixtures shared by the whole suite. Tests talk to the real Postgres, RabbitMQ and Redis."""
