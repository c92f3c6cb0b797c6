"""Computer players: they see a seat's observation and choose its moves under the rules."""
