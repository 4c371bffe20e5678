"""Competition: ladders and seasons, which ask play to play their matches (issue 22)."""
