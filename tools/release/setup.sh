#!/usr/bin/env bash
# Installs what `make release` and `make test-release` need on a Debian
# machine with rustup: the Windows and Linux ARM64 targets of the Rust
# toolchain, mingw-w64's and the aarch64 GCC's linkers (with the ARM64
# glibc they link against), zip, and for the tests (with --wine) Wine to run
# the Windows binary and (with --qemu) qemu-user to run the ARM64 one.
# Quick when everything is there already: apt runs only for what is missing.
#
#   tools/release/setup.sh          build tools only
#   tools/release/setup.sh --wine   build tools and wine64
#   tools/release/setup.sh --qemu   build tools and qemu-user
#   tools/release/setup.sh --check  installs nothing; exits 0 when the build
#                                   tools are all there, 1 when not
#
# Exits non-zero when something could not be installed, after saying what.
set -uo pipefail

want_wine=0
want_qemu=0
check_only=0
for arg in "$@"; do
    case "$arg" in
        --wine) want_wine=1 ;;
        --qemu) want_qemu=1 ;;
        --check) check_only=1 ;;
        *) echo "setup.sh: unknown argument '$arg'" >&2; exit 2 ;;
    esac
done

RUST_TARGETS=(x86_64-pc-windows-gnu aarch64-unknown-linux-gnu)
missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
# The ARM64 glibc to link against: only a recommendation of the GCC
# package, which --no-install-recommends leaves out.
[ -e /usr/aarch64-linux-gnu/lib/libc.so ] || missing+=(libc6-dev-arm64-cross)
command -v zip >/dev/null 2>&1 || missing+=(zip)
# The tests look for Wine on PATH: Debian's wine64 package installs the
# loader outside it, and the `wine` package adds `wine` and `wine64` there.
if [ "$want_wine" = 1 ] && ! command -v wine64 >/dev/null 2>&1 \
    && ! command -v wine >/dev/null 2>&1; then
    missing+=(wine wine64)
fi

# qemu-user runs the ARM64 binary with the ARM64 glibc above
# (qemu-user-static's qemu-aarch64-static does as well).
if [ "$want_qemu" = 1 ] && ! command -v qemu-aarch64 >/dev/null 2>&1 \
    && ! command -v qemu-aarch64-static >/dev/null 2>&1; then
    missing+=(qemu-user)
fi

has_target() {
    rustup target list --installed 2>/dev/null | grep -qx "$1"
}

if [ "$check_only" = 1 ]; then
    for target in "${RUST_TARGETS[@]}"; do
        has_target "$target" || missing+=("rustup target $target")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "setup.sh: missing: ${missing[*]}"
        exit 1
    fi
    exit 0
fi

status=0
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup.sh: installing ${missing[*]} with apt-get"
    sudo=()
    if [ "$(id -u)" != 0 ]; then
        sudo=(sudo)
    fi
    if ! "${sudo[@]}" apt-get update -qq \
        || ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
            -o DPkg::Lock::Timeout=300 --no-install-recommends "${missing[@]}" >/dev/null; then
        echo "setup.sh: could not install ${missing[*]}" >&2
        status=1
    fi
fi

for target in "${RUST_TARGETS[@]}"; do
    if ! has_target "$target"; then
        echo "setup.sh: adding the Rust target $target with rustup"
        if ! rustup target add "$target"; then
            echo "setup.sh: could not add the Rust target $target" >&2
            status=1
        fi
    fi
done
exit "$status"
