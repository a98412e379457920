#!/bin/sh
# Measures kiraly's UCI_Elo levels against Stockfish's own UCI_Elo levels:
# for each setting E, kiraly at UCI_Elo E plays Stockfish 15.1 at UCI_Elo E.
# The measured Elo of the setting is E + the Elo difference of the match.
#
#   tools/calibrate_strength.sh ENGINE GAMES TC ELO...
#   tools/calibrate_strength.sh ./kiraly 60 5+0.05 1500 1900 2300 2700
#
# Both engines use one thread, so two games run at once. Results go to
# stdout and to strength-<ELO>.json / .pgn in $OUT (default /tmp).
set -eu
engine=$1; games=$2; tc=$3; shift 3
out=${OUT:-/tmp}
stockfish=${STOCKFISH:-/usr/games/stockfish}
here=$(dirname "$0")
book=${BOOK:-$here/books/noob_3moves_500.epd}
for elo in "$@"; do
    echo "== kiraly UCI_Elo $elo vs Stockfish UCI_Elo $elo, $games games, $tc"
    python3 "$here/match.py" \
        --engine cmd="$engine" name="kiraly-$elo" option.UCI_LimitStrength=true option.UCI_Elo="$elo" \
        --engine cmd="$stockfish" name="stockfish-$elo" option.UCI_LimitStrength=true option.UCI_Elo="$elo" \
        --each option.Hash=16 option.Threads=1 \
        --tc "$tc" --concurrency 2 --games "$games" \
        --openings file="$book" format=epd order=random --seed "$elo" \
        --pgn "$out/strength-$elo.pgn" --json "$out/strength-$elo.json" --quiet
done
