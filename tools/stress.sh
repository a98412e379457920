#!/usr/bin/env bash
# Reliability stress (issue #8): self-play at bullet clocks while another
# process keeps both cores busy. Zero time losses, illegal moves, crashes
# and hangs are expected; match.py prints those counts at the end.
#
#   tools/stress.sh [engine] [games-1+0.01] [games-0.5+0.005]
#
# The load is the project's own data generator (two threads, so both cores
# are busy the whole time); its positions land in /tmp and can be used for
# tuning. Takes about 30 minutes for the default 1000 + 300 games.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE=${1:-./kiraly}
GAMES1=${2:-1000}
GAMES2=${3:-300}
BOOK=${BOOK:-tools/books/noob_3moves_500.epd}
OUT=${OUT:-/tmp/kiraly-stress}
mkdir -p "$OUT"

cargo build --release -p datagen
# The load is a generator of its own; match.py pauses only the service's
# (tools/selfplay.py), whose data this run must not disturb.
./target/release/datagen play --threads 2 --soft-nodes 5000 --output "$OUT/load.kdat" \
    > "$OUT/load.log" 2>&1 &
LOAD=$!
trap 'kill $LOAD 2>/dev/null || true' EXIT

run() {
    python3 tools/match.py --engine cmd="$ENGINE" name=a --engine cmd="$ENGINE" name=b \
        --openings file="$BOOK" format=epd order=random "$@"
}
# 1+0.01, one thread each, two games at a time.
run --each option.Hash=16 option.Threads=1 --tc 1+0.01 --concurrency 2 --seed 31 \
    --games "$GAMES1" --pgn "$OUT/bullet-1+0.01.pgn" | tail -n 4
# 0.5+0.005 with two threads each: one game at a time.
run --each option.Hash=16 option.Threads=2 --tc 0.5+0.005 --concurrency 1 --seed 32 \
    --games "$GAMES2" --pgn "$OUT/bullet-0.5+0.005-threads2.pgn" | tail -n 4
