"""Rating: ratings as a read model of the event store's feed (issue 22)."""
