#!/usr/bin/env bash
# The Linux ARM64 release binary under emulation (qemu-user), for
# `make test-release`:
#   1. installs what is missing (tools/release/setup.sh --qemu);
#   2. builds the ARM64 release binary as `make release` does;
#   3. cross-compiles the net's SIMD unit tests for ARM64 and runs them under
#      qemu (NEON against the plain Rust version, exact equality);
#   4. tools/release/test_arm64.py: `bench` nodes and `eval` equal to the
#      host binary's, a UCI transcript, a short game.
# Any step that fails, a missing emulator or cross toolchain included,
# fails the whole (unlike the Wine test, nothing here is skipped).
#
#   tools/release/test_arm64.sh [PYTHON]   (default python3; needs python-chess)
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${1:-python3}

TRIPLE=aarch64-unknown-linux-gnu
QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
export QEMU_LD_PREFIX

step() {
    local started=$SECONDS
    echo "test_arm64.sh: $1"
    shift
    "$@"
    echo "test_arm64.sh: done in $((SECONDS - started)) s"
}

step "installing what is missing" tools/release/setup.sh --qemu
qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
[ -n "$qemu" ] || { echo "test_arm64.sh: FAILED: no qemu-aarch64 after setup" >&2; exit 1; }

step "building the ARM64 release binary" \
    tools/release/build.sh --binaries-only --os linux --levels aarch64

# The tests build beside the release binary (same target directory, so the
# dependencies are compiled once), with the runner cargo uses for a target
# the host cannot run.
simd_tests() {
    local log=target/release-aarch64/simd-tests.log
    mkdir -p target/release-aarch64
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="$qemu -L $QEMU_LD_PREFIX" \
        cargo test --release --locked --lib --target "$TRIPLE" \
        --target-dir target/release-aarch64 nnue::simd 2>&1 | tee "$log"
    # A filter that matched nothing would pass without testing NEON.
    grep -q "^test nnue::simd::tests::neon_equals_the_reference \.\.\. ok$" "$log" || {
        echo "test_arm64.sh: FAILED: neon_equals_the_reference did not run and pass" >&2
        return 1
    }
}
step "the net's SIMD tests (NEON against plain Rust) under qemu" simd_tests

# The host binary that bench and eval are compared with.
step "building the host binary" cargo build --release --locked --bin kiraly

step "the ARM64 binary under qemu" env QEMU="$qemu" "$PYTHON" tools/release/test_arm64.py \
    "target/release-aarch64/$TRIPLE/release/kiraly" target/release/kiraly
