#!/usr/bin/env bash
# The engine of any commit, built plainly into OUT: the reference builds of
# the match measures (4a42e4a for issue #37's), the two sides of a package's
# confirmation, or the engines carried to a borrowed machine
# (docs/tools.md, "A match on a borrowed machine").
#
#   tools/build_commit.sh COMMIT OUT [RUSTFLAGS]
#
# RUSTFLAGS defaults to -C target-cpu=native; `-C target-cpu=x86-64-v3`
# builds for any AVX2 machine. The commit is checked out in a temporary
# worktree (this tree is not touched) and built with cargo into
# target/commits (CARGO_TARGET_DIR names another), which every commit
# shares, so a second commit rebuilds only what differs. Each commit builds
# with its own net and its own Cargo.lock.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: tools/build_commit.sh COMMIT OUT [RUSTFLAGS]" >&2
    exit 2
fi
commit=$1
out=$2
flags=${3--C target-cpu=native}
cargo=${CARGO:-cargo}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target/commits}

rev=$(git -C "$repo" rev-parse --verify --quiet "$commit^{commit}") || {
    echo "build_commit: no commit $commit in $repo" >&2
    exit 2
}
tree=$(mktemp -d "${TMPDIR:-/tmp}/kiraly-commit-XXXXXX")
cleanup() {
    git -C "$repo" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
    git -C "$repo" worktree prune
}
trap cleanup EXIT
git -C "$repo" worktree add --detach --quiet "$tree" "$rev"
# --locked: the commit's own dependency versions, as it was tested.
(cd "$tree" && RUSTFLAGS="$flags" "$cargo" build --release --locked --bin kiraly \
    --target-dir "$target")
mkdir -p "$(dirname "$out")"
cp "$target/release/kiraly" "$out"
echo "build_commit: $(git -C "$repo" rev-parse --short "$rev") built into $out" >&2
