"""The site: the API, the pages, the admin, their templates' tags (issue 22)."""
