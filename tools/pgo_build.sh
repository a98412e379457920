#!/usr/bin/env bash
# A binary built with profile-guided optimisation: an instrumented build
# runs a training workload, llvm-profdata merges the profile, and a second
# build uses it. The same results, faster (docs/speed.md): the engine about
# 7 % by `bench`, the self-play generator about 3 %.
#
#   tools/pgo_build.sh OUT [RUSTFLAGS]             the engine, as `make` builds it
#   tools/pgo_build.sh --datagen OUT [RUSTFLAGS]   datagen, as tools/selfplay.py builds it
#
# RUSTFLAGS defaults to -C target-cpu=native. The engine trains on `kiraly
# bench`, datagen on a few self-play games at the service's settings.
# llvm-profdata comes with the toolchain's llvm-tools component (`rustup
# component add llvm-tools`); LLVM_PROFDATA names another. Without it, or if a
# step of the profiled build fails, the plain build (in target/native, as
# before) is made instead and stderr says so: a build never fails for want
# of a profile.
set -euo pipefail

binary=kiraly
if [ "${1:-}" = --datagen ]; then
    binary=datagen
    shift
fi
out=$1
flags=${2--C target-cpu=native}
cargo=${CARGO:-cargo}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
if [ "$binary" = kiraly ]; then
    package=(--bin kiraly)
else
    package=(-p datagen)
fi

plain() {
    RUSTFLAGS="$flags" "$cargo" build --release "${package[@]}" --target-dir target/native
    cp "target/native/release/$binary" "$out"
}

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata}
if [ ! -x "$profdata" ]; then
    echo "pgo_build: no llvm-profdata at $profdata (rustup component add llvm-tools): plain build" >&2
    plain
    exit 0
fi

dir=$repo/target/pgo/$binary
train() {
    local instrumented=$dir/generate/release/$binary
    # The counts matter, not the clock: the self-play generator keeps running.
    if [ "$binary" = kiraly ]; then
        KIRALY_NO_GENERATOR_PAUSE=1 "$instrumented" bench > /dev/null 2>&1
    else
        rm -f "$dir/train.kdat" "$dir/train.json"
        "$instrumented" play --output "$dir/train.kdat" --net embedded --soft-nodes 2000 \
            --hard-nodes 20000 --chess960 0.15 --seed 1 --games 16 --threads 1 > /dev/null 2>&1
    fi
}
profiled() {
    rm -rf "$dir/profiles"
    RUSTFLAGS="$flags -C profile-generate=$dir/profiles" \
        "$cargo" build --release "${package[@]}" --target-dir "$dir/generate" &&
    train &&
    "$profdata" merge -o "$dir/merged.profdata" "$dir/profiles" &&
    RUSTFLAGS="$flags -C profile-use=$dir/merged.profdata" \
        "$cargo" build --release "${package[@]}" --target-dir "$dir/use" &&
    cp "$dir/use/release/$binary" "$out"
}
if profiled; then
    echo "pgo_build: $out built with the profile of its training run" >&2
else
    echo "pgo_build: the profiled build failed (above): plain build" >&2
    plain
fi
