"""The API's shapes. Input serializers only check types and sizes; rules live in tournaments.play.services."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.fields import empty

from games.engine.registry import GAMES
from games.engine.storable import unstorable
from games.sandbox.upload import MAX_NAME_BYTES, MAX_PY_BYTES, MAX_ZIP_BYTES, unprintable
from tournaments.play import selectors, visibility
from tournaments.play.models import BUILTIN_BOTS, GAME_CHOICES, Bot, BotLog, BotVersion, Match, Seat
from tournaments.play.services import MAX_SEED

MAX_SEATS_ANY_GAME = max(info.max_seats for info in GAMES.values())
# Read at most this much of a multipart file: anything bigger is refused unread.
MAX_UPLOAD_BYTES = max(MAX_PY_BYTES, MAX_ZIP_BYTES)


class OmittableBooleanField(serializers.BooleanField):
    """A boolean that, left out, is left out: in a form or multipart body as in JSON.

    DRF reads a boolean missing from form data as false (an unticked HTML checkbox sends
    nothing), so a bot created with form data, no ``is_public`` in it, became private. Here an
    omitted boolean takes the field's default, or is not set at all, whatever the content type.
    """

    default_empty_html = empty


# Accounts


class AccountCreateSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = serializers.CharField(write_only=True, trim_whitespace=False, max_length=128)
    email = serializers.EmailField(required=False, allow_blank=True, default="")


class AccountSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    # An account may have no email: "" is then no address, so no `format: email` here.
    email = serializers.CharField(read_only=True, help_text='The email address, or "".')
    is_staff = serializers.BooleanField(read_only=True)


class AccountWithTokenSerializer(AccountSerializer):
    token = serializers.CharField(read_only=True, help_text="Send as 'Authorization: Token <key>'.")


@extend_schema_serializer(component_name="Login")
class TokenRequestSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True, trim_whitespace=False, max_length=128)


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(read_only=True)


# Bots and versions


IS_PUBLIC_HELP = (
    "Listed for everyone (its source stays private); a private bot's seats and ratings are "
    "shown to others as '(private bot)'."
)


class BotSerializer(serializers.ModelSerializer[Bot]):
    """A bot. In a change (PUT, PATCH), a field left out keeps its value."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    game = serializers.ChoiceField(choices=GAME_CHOICES)
    is_public = OmittableBooleanField(required=False, help_text=IS_PUBLIC_HELP)
    is_active = OmittableBooleanField(
        required=False, help_text="Matched by ladders and seasons; inactive bots are not."
    )
    # What ladders play, so as public as the ladder: shown to everyone who sees the bot.
    active_version = serializers.IntegerField(
        source="active_version.number",
        read_only=True,
        allow_null=True,
        help_text="The number of the ready version ladders play, chosen by the owner (POST"
        " /api/bots/{id}/activate/); null: the newest ready version plays.",
    )

    class Meta:
        model = Bot
        fields = [
            "id",
            "owner",
            "game",
            "name",
            "description",
            "is_public",
            "is_active",
            "active_version",
            "created_at",
            "webhook_url",
            "webhook_secret",
        ]
        read_only_fields = ["id", "owner", "created_at", "webhook_secret"]
        # Left out for anyone but the owner (to_representation), so never required (schema.py).
        owner_only_fields = ["webhook_url", "webhook_secret"]
        # Uniqueness per owner is checked by the service (the owner is not an input field).
        validators: list[Any] = []
        extra_kwargs = {
            "webhook_url": {
                "help_text": "Your webhook (docs/bots.md, Webhook): called on each rejected"
                " version, crash, timeout or disqualification; '' removes it. Owner only."
            },
            "webhook_secret": {
                "help_text": "Signs each webhook call (HMAC-SHA256 of the body, header"
                " X-Backroom-Signature); made when a URL is first set. Owner only."
            },
        }

    def to_representation(self, instance: Bot) -> dict[str, Any]:
        data = super().to_representation(instance)
        request = self.context.get("request")
        uid = visibility.user_id(getattr(request, "user", None))
        if uid is None or instance.owner_id != uid:  # the owner's own settings
            data.pop("webhook_url", None)
            data.pop("webhook_secret", None)
        return data

    def validate_name(self, name: str) -> str:
        # Shown in listings, pages and the viewer's seat labels: held to the rule for file
        # names (a fuzzer's names with U+000F were accepted).
        found = unprintable(name)
        if found:
            raise serializers.ValidationError(
                f"the name has a control or invisible character ({found})"
            )
        return name

    def validate_description(self, description: str) -> str:
        # Several lines (a browser sends CRLF) and tabs are text; any other control character
        # would be kept as it is and then move a terminal's cursor or hide text when printed.
        found = unstorable(description.replace("\r\n", "\n"))
        if found:
            raise serializers.ValidationError(
                f"the description has a control character ({found}); line breaks and tabs are fine"
            )
        return description


class BotActivateSerializer(serializers.Serializer[Any]):
    # Bounded so that a huge number is this 400, not a database error.
    number = serializers.IntegerField(
        min_value=1, max_value=2**31 - 1, help_text="A ready version's number (not its id)."
    )


class BotCreateSerializer(BotSerializer):
    """A new bot: a field left out takes its default."""

    # The model's default, whatever the content type (an omitted boolean is not false).
    is_public = OmittableBooleanField(
        default=Bot._meta.get_field("is_public").get_default(), help_text=IS_PUBLIC_HELP
    )
    # A new bot is active: deactivating is a change of an existing one.
    is_active = OmittableBooleanField(read_only=True)

    class Meta(BotSerializer.Meta):
        # A webhook is set on an existing bot (its secret is made then).
        fields = [f for f in BotSerializer.Meta.fields if not f.startswith("webhook_")]
        extra_kwargs = {"description": {"default": ""}}


def _viewer(serializer: serializers.Serializer[Any]) -> Any:
    request = serializer.context.get("request")
    return getattr(request, "user", None)


class BotVersionSerializer(serializers.ModelSerializer[BotVersion]):
    validation_error = serializers.SerializerMethodField(
        help_text="Why validation rejected it: the bot's owner and staff only (null for others)."
    )
    smoke_match = serializers.SerializerMethodField(
        help_text="The validation run, kept as a match the bot's owner can read (owner and staff)."
    )
    smoke_match_url = serializers.SerializerMethodField(
        help_text="Its match document; 'step N' in the error is the events after version N."
    )

    class Meta:
        model = BotVersion
        fields = [
            "id",
            "bot",
            "number",
            "filename",
            "sha256",
            "size",
            "status",
            "validation_error",
            "smoke_match",
            "smoke_match_url",
            "created_at",
            "validated_at",
        ]
        read_only_fields = fields

    def _diagnostics(self, version: BotVersion) -> bool:
        return visibility.may_read_bot_diagnostics(_viewer(self), version.bot)

    def get_validation_error(self, version: BotVersion) -> str | None:
        return version.validation_error if self._diagnostics(version) else None

    @extend_schema_field(serializers.UUIDField(allow_null=True))
    def get_smoke_match(self, version: BotVersion) -> str | None:
        smoke = getattr(version, "smoke_match_id", None)
        return str(smoke) if smoke is not None and self._diagnostics(version) else None

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_smoke_match_url(self, version: BotVersion) -> str | None:
        smoke = self.get_smoke_match(version)
        if smoke is None:
            return None
        url = reverse("match-events", kwargs={"match_id": smoke})
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url


# The two shapes of an upload, as the schema shows them: VersionUploadSerializer reads either.
class VersionFileUploadSerializer(serializers.Serializer[Any]):
    """An upload as multipart/form-data: the file itself."""

    file = serializers.FileField(help_text="bot.py, or a .zip with bot.py at its root.")
    filename = serializers.CharField(
        required=False,
        help_text="The name to store instead of the file part's own, at most "
        f"{MAX_NAME_BYTES} characters.",
    )


class VersionSourceUploadSerializer(serializers.Serializer[Any]):
    """An upload as JSON: the source as text."""

    source = serializers.CharField(  # type: ignore[assignment]  # the API's field name
        trim_whitespace=False,
        allow_blank=True,
        max_length=MAX_PY_BYTES + 1,
        help_text="The bot's Python source, as text.",
    )
    filename = serializers.CharField(
        required=False,
        default="bot.py",
        help_text=f"The file name, at most {MAX_NAME_BYTES} characters (a .py).",
    )


class VersionUploadSerializer(serializers.Serializer[Any]):
    """Either a multipart ``file``, or JSON ``filename`` + ``source`` text."""

    file = serializers.FileField(
        required=False, help_text="bot.py, or a .zip with bot.py at its root."
    )
    filename = serializers.CharField(
        required=False,
        help_text=f"With 'source': the file name (default bot.py), at most {MAX_NAME_BYTES}"
        " characters.",
    )
    source = serializers.CharField(  # type: ignore[assignment]  # the API's field name
        required=False,
        trim_whitespace=False,
        allow_blank=True,
        max_length=MAX_PY_BYTES + 1,
        help_text="The bot's Python source as text (instead of 'file').",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_file, has_source = "file" in attrs, "source" in attrs
        if has_file and has_source:
            raise serializers.ValidationError(
                {"file": "send either a 'file' (multipart) or a 'source' text (JSON), not both"}
            )
        if not (has_file or has_source):
            # Also what a multipart file part comes to when Django cannot read its headers (a
            # filename that is not UTF-8): the part is dropped, so say what a readable one is.
            raise serializers.ValidationError(
                {
                    "file": "no 'file' and no 'source' received: send a 'file' part (multipart, "
                    "with a filename in UTF-8) or a 'source' text (JSON)"
                }
            )
        if has_source:
            try:
                data = attrs["source"].encode("utf-8")
            except UnicodeEncodeError as exc:
                raise serializers.ValidationError(
                    {"source": f"source is not valid Unicode text (character {exc.start})"}
                ) from None
            filename = attrs.get("filename") or "bot.py"
        else:
            upload = attrs["file"]
            if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
                raise serializers.ValidationError(
                    {
                        "file": f"{upload.name} is {upload.size} bytes; uploads may be at most "
                        f"{MAX_PY_BYTES} bytes for a .py and {MAX_ZIP_BYTES} for a .zip"
                    }
                )
            data = upload.read(MAX_UPLOAD_BYTES + 1)
            # As sent: Django's own name for the file is cut to 255 characters.
            sent = self.context.get("sent_names", {}).get("file")
            filename = attrs.get("filename") or sent or upload.name or ""
        return {"filename": filename, "data": data}


# Matches


# Named in the schema for what they hold: its request components get "Request" appended.
@extend_schema_serializer(component_name="Seat")
class SeatRequestSerializer(serializers.Serializer[Any]):
    bot_version = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="A bot version's id."
    )
    builtin = serializers.ChoiceField(
        choices=list(BUILTIN_BOTS), required=False, allow_blank=True, help_text="A built-in bot."
    )
    human = OmittableBooleanField(
        default=False,
        help_text="True: you play this seat yourself (POST /api/matches/{id}/actions/).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # False says what leaving it out says: the seat is named by the other fields alone (a
        # fork's {} keeps the original's player, and {"human": false} must too).
        if not attrs.get("human", False):
            attrs.pop("human", None)
        return attrs


class ChallengeSerializer(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=GAME_CHOICES)
    seats = serializers.ListField(
        child=SeatRequestSerializer(),
        min_length=1,
        max_length=MAX_SEATS_ANY_GAME,
        help_text="One entry per seat in table order: {'bot_version': id}, {'builtin': name},"
        " or {'human': true} for a seat you play yourself.",
    )
    human_move_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="A person's time for each decision (default 600); past it the default action"
        " is played with the verdict timeout.",
    )
    options = serializers.DictField(required=False, default=dict, help_text="The game's options.")
    seed = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=MAX_SEED,
        help_text="Random 63-bit seed if omitted; shown once the match is finished.",
    )


class MatchSeatSerializer(serializers.ModelSerializer[Seat]):
    label = serializers.SerializerMethodField()  # type: ignore[assignment]
    bot_version = serializers.SerializerMethodField()
    bot = serializers.SerializerMethodField()
    owner = serializers.SerializerMethodField()
    time_used_ms = serializers.SerializerMethodField(
        help_text="How long its bot thought, in all: its owner's, and staff's once the match and "
        "its duplicate deal are over, as its logs are (null for everyone else)."
    )

    class Meta:
        model = Seat
        fields = [
            "number",
            "label",
            "bot_version",
            "bot",
            "owner",
            "builtin",
            "human",
            "rank",
            "score",
            "verdicts",
            "strikes",
            "disqualified",
            "time_used_ms",
        ]
        read_only_fields = fields

    def to_representation(self, instance: Seat) -> dict[str, Any]:
        """The fields above, written out: a page of matches holds a hundred seats, and DRF's
        field-by-field path, asking four times what the viewer may see of each, was most of
        the list's CPU. tests/api/test_matches.py checks it against DRF's own path."""
        shown = self._shown(instance)
        return {
            "number": instance.number,
            "label": shown.label,
            "bot_version": shown.bot_version_id,
            "bot": shown.bot_id,
            "owner": shown.owner,
            "builtin": instance.builtin,
            "human": instance.human,
            "rank": instance.rank,
            "score": instance.score,
            "verdicts": instance.verdicts,
            "strikes": instance.strikes,
            "disqualified": instance.disqualified,
            "time_used_ms": self.get_time_used_ms(instance),
        }

    # A private bot's seat: "(private bot)", no ids or owner, to all but its owner and staff.
    def _shown(self, seat: Seat) -> visibility.SeatShown:
        return visibility.seat_as_seen(_viewer(self), seat)

    def get_label(self, seat: Seat) -> str:
        return self._shown(seat).label

    def get_bot_version(self, seat: Seat) -> int | None:
        return self._shown(seat).bot_version_id

    def get_bot(self, seat: Seat) -> int | None:
        return self._shown(seat).bot_id

    def get_owner(self, seat: Seat) -> str | None:
        return self._shown(seat).owner

    # How hard a bot thinks is its owner's business, as its logs are (visibility.log_seats).
    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_time_used_ms(self, seat: Seat) -> int | None:
        return seat.time_used_ms if seat.number in self._timed(seat.match) else None

    def _timed(self, match: Match) -> frozenset[int]:
        """``log_seats`` of the seat's match, asked once per match and not once per seat."""
        context = cast("dict[str, Any]", self.context)  # the root serializer's own dict
        asked: dict[Any, frozenset[int]] = context.setdefault("_log_seats", {})
        if match.pk not in asked:
            asked[match.pk] = visibility.log_seats(_viewer(self), match)
        return asked[match.pk]


class MatchSerializer(serializers.ModelSerializer[Match]):
    created_by = serializers.SerializerMethodField()
    seats = MatchSeatSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField()
    options = serializers.SerializerMethodField()
    outcome = serializers.SerializerMethodField(
        help_text="Ranks and scores; its detail (what the end revealed) once every match of its"
        " duplicate deal is over."
    )
    error = serializers.SerializerMethodField(
        help_text="Why it was aborted: its bots' owners, its creator and staff only (null for others)."
    )
    waiting_for = serializers.SerializerMethodField(
        help_text="While the status is waiting: the people's seats whose action it awaits."
    )
    deadline = serializers.SerializerMethodField(
        help_text="While waiting: when the default action is played for them."
    )
    kind = serializers.SerializerMethodField(
        help_text="What the match is: "
        + "; ".join(f"{k}, {v}" for k, v in selectors.MATCH_KINDS.items())
        + "."
    )

    class Meta:
        model = Match
        fields = [
            "id",
            "kind",
            "game",
            "status",
            "error",
            "validation_of",
            "rated",
            "created_by",
            "season",
            "ladder",
            "created_at",
            "started_at",
            "finished_at",
            "outcome",
            "error",
            "options",
            "seed",
            "waiting_for",
            "waiting_step",
            "deadline",
            "human_move_seconds",
            "seats",
        ]
        read_only_fields = fields

    def to_representation(self, instance: Match) -> dict[str, Any]:
        """The fields above, written out as the seat's are: DRF's generic path (an attribute
        lookup, a skip check and a field call for each of twenty fields) cost more than the rest
        of a 50-match page's serializing. tests/api/test_matches.py checks it against DRF's own
        path."""
        match, fields = instance, self.fields
        when = fields["created_at"].to_representation
        return {
            "id": str(match.id),
            "kind": selectors.match_kind(match),
            "game": match.game,
            "status": match.status,
            "error": self.get_error(match),
            "validation_of": match.validation_of_id,
            "rated": match.rated,
            "created_by": self.get_created_by(match),
            "season": match.season_id,
            "ladder": match.ladder_id,
            "created_at": when(match.created_at),
            "started_at": when(match.started_at),  # DRF's field writes None as None
            "finished_at": when(match.finished_at),
            "outcome": self.get_outcome(match),
            "options": self.get_options(match),
            "seed": self.get_seed(match),
            "waiting_for": self.get_waiting_for(match),
            "waiting_step": match.waiting_step,
            "deadline": self.get_deadline(match),
            "human_move_seconds": match.human_move_seconds,
            "seats": fields["seats"].to_representation(match.seats),
        }

    @extend_schema_field(serializers.ChoiceField(choices=list(selectors.MATCH_KINDS)))
    def get_kind(self, match: Match) -> str:
        return selectors.match_kind(match)

    def get_waiting_for(self, match: Match) -> list[int]:
        return list(match.waiting_for or []) if match.status == Match.Status.WAITING else []

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_deadline(self, match: Match) -> str | None:
        if match.status != Match.Status.WAITING or match.deadline is None:
            return None
        # Written as every other time of the match is (DRF's "...Z"), not Python's "+00:00".
        return cast("str", self.fields["created_at"].to_representation(match.deadline))

    def get_created_by(self, match: Match) -> str | None:
        return match.created_by.get_username() if match.created_by else None

    # Scenario options can stack decks, so they are as secret as the seed until the deal is over:
    # the match, and every match of its duplicate deal (visibility.deal_over).
    @extend_schema_field({"type": "integer", "format": "int64", "nullable": True})
    def get_seed(self, match: Match) -> int | None:
        return match.seed if visibility.deal_over(match) else None

    @extend_schema_field({"type": "object", "additionalProperties": {}, "nullable": True})
    def get_options(self, match: Match) -> dict[str, Any] | None:
        return match.options if visibility.deal_over(match) else None

    @extend_schema_field({"type": "object", "additionalProperties": {}, "nullable": True})
    def get_outcome(self, match: Match) -> dict[str, Any] | None:
        outcome = visibility.outcome_as_seen(match)
        return None if outcome is None else dict(outcome)

    def get_error(self, match: Match) -> str | None:
        if not match.error:
            return None
        return match.error if visibility.may_read_error(_viewer(self), match) else None


@extend_schema_serializer(component_name="Action")
class ActionRequestSerializer(serializers.Serializer[Any]):
    action = serializers.JSONField(
        help_text="The action, exactly as a bot's act() returns it (see the game's docs)."
    )
    seat = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, help_text="Your seat (if you play several)."
    )
    step = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=10**9,
        help_text="The decision you answer (its waiting_step): a repeat of an answered one is a 409.",
    )


class DecisionSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    waiting = serializers.BooleanField(help_text="Whether the match waits for this seat now.")
    step = serializers.IntegerField(allow_null=True, help_text="The decision's step, to send back.")
    deadline = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField()
    observation = serializers.JSONField(allow_null=True, help_text="What the seat sees, as a bot.")
    legal = serializers.JSONField(
        allow_null=True, help_text="Its legal actions, as a bot gets them."
    )


class BotFilterSerializer(serializers.Serializer[Any]):
    game = serializers.ChoiceField(
        choices=GAME_CHOICES, required=False, help_text="Only this game."
    )


class MatchFilterSerializer(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=GAME_CHOICES, required=False)
    bot = serializers.IntegerField(
        required=False, min_value=1, help_text="Matches with this bot seated."
    )
    status = serializers.ChoiceField(choices=Match.Status.choices, required=False)
    season = serializers.IntegerField(required=False, min_value=1)
    ladder = serializers.IntegerField(required=False, min_value=1)


class EventsQuerySerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="Only this seat's view (its owner only, until the match and every match of "
        "its duplicate deal are over). "
        "Omit it for your own seats' view (a spectator's if you have none).",
    )
    after = serializers.IntegerField(
        required=False, min_value=0, default=0, help_text="Only events after this version."
    )
    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=selectors.EVENTS_PAGE_MAX,
        default=selectors.EVENTS_PAGE_SIZE,
        help_text="Events per page.",
    )


class EventSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    type = serializers.CharField()
    actor = serializers.IntegerField(allow_null=True)
    payload = serializers.JSONField(help_text="The whole payload, or its redacted form.")
    visible_to = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Seats that see the whole payload (null: everyone).",
    )
    redacted = serializers.JSONField(
        allow_null=True, help_text="What the others see (null when the payload shown is it)."
    )


class DocumentMatchSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField(allow_null=True)
    game = serializers.CharField()
    options = serializers.DictField(
        allow_null=True, help_text="Shown once over, with every match of its duplicate deal."
    )
    seed = serializers.IntegerField(
        allow_null=True, help_text="Shown once over, with every match of its duplicate deal."
    )
    seats = serializers.ListField(child=serializers.CharField(), help_text="Labels, in seat order.")
    status = serializers.CharField()
    outcome = serializers.DictField(allow_null=True)


class DocumentViewSerializer(serializers.Serializer[Any]):
    seats = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Whose hidden cards this page shows (before the end: only your own seats').",
    )
    game_over = serializers.BooleanField(help_text="The match is over (finished or aborted).")
    deal_over = serializers.BooleanField(
        help_text="The match and every match of its duplicate deal are over: every payload and "
        "the seed are shown."
    )


class MatchDocumentPageSerializer(serializers.Serializer[Any]):
    """One page of the backroom-match/1 document that ``manage.py play --out`` writes."""

    format = serializers.CharField(help_text="backroom-match/1")
    match = DocumentMatchSerializer()
    events = EventSerializer(many=True)
    view = DocumentViewSerializer()
    next = serializers.URLField(
        allow_null=True, help_text="The next page; null when no more events are stored yet."
    )


class BotLogSerializer(serializers.ModelSerializer[BotLog]):
    step = serializers.IntegerField(
        source="version", read_only=True, help_text="The stream version at the decision."
    )

    class Meta:
        model = BotLog
        fields = ["seat", "step", "verdict", "text"]
        read_only_fields = fields
