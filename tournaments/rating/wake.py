"""Ratings follow results within moments: a stored ``match_finished`` wakes the consumer.

The consumer reads the feed (rating_feed.py), so this only says when to look; beat's
``update-ratings`` (config/queues.py) catches up with any wake-up lost to a broker outage.
Neither the runner nor the match task knows that ratings exist.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from celery import current_app
from kombu.exceptions import OperationalError as BrokerError

from config import queues

log = logging.getLogger(__name__)

FINISHED = "match_finished"


def on_stored(sender: Any, *, stream_id: uuid.UUID, types: frozenset[str], **_: Any) -> None:
    """``replays.store.stored``'s receiver: a finished match sends one ratings update."""
    if FINISHED not in types:
        return
    try:
        if queues.UPDATE_RATINGS not in current_app.tasks:
            current_app.loader.import_default_modules()
        current_app.tasks[queues.UPDATE_RATINGS].delay()
    except (BrokerError, OSError) as exc:
        log.warning(
            "broker unavailable, ratings wait for beat's update (match %s): %s", stream_id, exc
        )
