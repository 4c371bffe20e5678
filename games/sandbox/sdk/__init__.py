"""The bot-side half of the protocol: shipped into every sandbox at /sdk, standard library only."""
