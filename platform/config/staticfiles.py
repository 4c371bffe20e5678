"""The staticfiles app, leaving out what no page serves.

drf-spectacular-sidecar ships ReDoc's bundle beside Swagger UI's; the site serves only Swagger UI
(config/urls.py: api-docs), yet collectstatic hashed, gzipped and brotli-compressed ReDoc's
1.1 MB bundle and its 3.9 MB source map in every image build: 2 s of the step's 8 s of CPU
(2026-12-04). Django's documented way to skip files is the app config's ignore_patterns.
"""

from django.contrib.staticfiles.apps import StaticFilesConfig


class StaticFiles(StaticFilesConfig):
    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "drf_spectacular_sidecar/redoc/*"]
