"""Online games in memory: each game's session (its authority), the registry of games and their life in
memory."""
