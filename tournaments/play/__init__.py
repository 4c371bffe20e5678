"""Play: a match from creation to result, bots and their versions, the workers (issue 22)."""
