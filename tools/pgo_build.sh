#!/usr/bin/env bash
# The engine built with profile-guided optimisation, as `make` builds it: an
# instrumented build runs `kiraly bench` (the training run), llvm-profdata
# merges the profile, and a second build uses it. About 7 % more nodes a
# second than the plain build, the same search (docs/speed.md).
#
#   tools/pgo_build.sh OUT [RUSTFLAGS]    (default RUSTFLAGS: -C target-cpu=native)
#
# llvm-profdata comes with the toolchain's llvm-tools component (`rustup
# component add llvm-tools`); LLVM_PROFDATA names another. Without it, or if a
# step of the profiled build fails, the plain build is made instead and
# stderr says so: a build never fails for want of a profile. `make PGO=`
# builds plainly on purpose.
set -euo pipefail

out=$1
flags=${2--C target-cpu=native}
cargo=${CARGO:-cargo}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

plain() {
    RUSTFLAGS="$flags" "$cargo" build --release --bin kiraly --target-dir target/native
    cp target/native/release/kiraly "$out"
}

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata}
if [ ! -x "$profdata" ]; then
    echo "pgo_build: no llvm-profdata at $profdata (rustup component add llvm-tools): plain build" >&2
    plain
    exit 0
fi

dir=$repo/target/pgo
profiled() {
    rm -rf "$dir/profiles"
    RUSTFLAGS="$flags -C profile-generate=$dir/profiles" \
        "$cargo" build --release --bin kiraly --target-dir "$dir/generate" &&
    # The training run: the counts matter, not the clock, so the self-play
    # generator is left running.
    KIRALY_NO_GENERATOR_PAUSE=1 "$dir/generate/release/kiraly" bench > /dev/null 2>&1 &&
    "$profdata" merge -o "$dir/kiraly.profdata" "$dir/profiles" &&
    RUSTFLAGS="$flags -C profile-use=$dir/kiraly.profdata" \
        "$cargo" build --release --bin kiraly --target-dir "$dir/use" &&
    cp "$dir/use/release/kiraly" "$out"
}
if profiled; then
    echo "pgo_build: $out built with the profile of bench" >&2
else
    echo "pgo_build: the profiled build failed (above): plain build" >&2
    plain
fi
