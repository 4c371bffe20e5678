"""Settings per environment: ``base`` is shared; ``local``, ``test`` and ``production`` adjust it."""
