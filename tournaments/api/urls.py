"""The REST API's routes."""

from django.urls import path

urlpatterns: list[path] = []  # type: ignore[valid-type]
