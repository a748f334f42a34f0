#!/bin/sh
# Self-play records for `rebirth puzzles make` (docs/puzzles.md): seeded bot games on both
# boards and every player count, written to DIR (a new folder; nothing in the clone). The bots
# run on the native core when it is built. Usage: sh scripts/puzzle-games.sh DIR [GAMES_PER_SETUP]
# Environment: REBIRTH (the command, default .venv/bin/rebirth), SEED (first seed, default 1).
set -eu
out=${1:?usage: puzzle-games.sh DIR [GAMES_PER_SETUP]}
per=${2:-4}
rebirth=${REBIRTH:-.venv/bin/rebirth}
seed=${SEED:-1}
mkdir -p "$out"
# board:players:seats — normal and greedy play most seats (fast); one hard seat in some games
# so that the positions are those of good play as well as of plain play.
for setup in scotland:3:normal,greedy,normal ireland:3:normal,normal,greedy \
             scotland:2:normal,hard ireland:2:hard,normal scotland:4:normal,greedy,normal,easy \
             ireland:4:greedy,normal,easy,normal; do
  board=${setup%%:*}; rest=${setup#*:}; players=${rest%%:*}; seats=${rest#*:}
  i=0
  while [ "$i" -lt "$per" ]; do
    f="$out/$board-$players-$seed.json"
    "$rebirth" play --board "$board" --players "$players" --seats "$seats" --seed "$seed" \
      --record "$f" > /dev/null
    echo "$f"
    i=$((i + 1)); seed=$((seed + 1))
  done
done
