"""The apps' static files, leaving out what no page serves.

drf-spectacular-sidecar ships ReDoc's bundle beside Swagger UI's; the site serves only Swagger UI
(config/urls.py: api-docs), yet collectstatic hashed, gzipped and brotli-compressed ReDoc's
1.1 MB bundle and its 3.9 MB source map in every image build: 2 s of the step's 8 s of CPU
(2026-12-04). The staticfiles app itself stays as Django ships it: pytest-django's live server,
among others, looks for it by its name in INSTALLED_APPS.
"""

from collections.abc import Iterable

from django.contrib.staticfiles.finders import AppDirectoriesFinder
from django.core.files.storage import Storage

UNSERVED = ["drf_spectacular_sidecar/redoc/*"]


class AppStaticFinder(AppDirectoriesFinder):
    """Django's finder of each app's static/ folder, listing nothing of ``UNSERVED``."""

    def list(self, ignore_patterns: Iterable[str] | None) -> Iterable[tuple[str, Storage]]:
        return super().list([*(ignore_patterns or []), *UNSERVED])
