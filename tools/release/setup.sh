#!/usr/bin/env bash
# Installs what `make release` and `make test-release` need on a Debian
# machine with rustup: the Windows target of the Rust toolchain, mingw-w64's
# linker, zip, and (with --wine) Wine to run the Windows binary in tests.
# Quick when everything is there already: apt runs only for what is missing.
#
#   tools/release/setup.sh          build tools only
#   tools/release/setup.sh --wine   build tools and wine64
#   tools/release/setup.sh --check  installs nothing; exits 0 when the build
#                                   tools are all there, 1 when not
#
# Exits non-zero when something could not be installed, after saying what.
set -uo pipefail

want_wine=0
check_only=0
for arg in "$@"; do
    case "$arg" in
        --wine) want_wine=1 ;;
        --check) check_only=1 ;;
        *) echo "setup.sh: unknown argument '$arg'" >&2; exit 2 ;;
    esac
done

WINDOWS_TARGET=x86_64-pc-windows-gnu
missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
command -v zip >/dev/null 2>&1 || missing+=(zip)
# The tests look for Wine on PATH: Debian's wine64 package installs the
# loader outside it, and the `wine` package adds `wine` and `wine64` there.
if [ "$want_wine" = 1 ] && ! command -v wine64 >/dev/null 2>&1 \
    && ! command -v wine >/dev/null 2>&1; then
    missing+=(wine wine64)
fi

has_target() {
    rustup target list --installed 2>/dev/null | grep -qx "$WINDOWS_TARGET"
}

if [ "$check_only" = 1 ]; then
    has_target || missing+=("rustup target $WINDOWS_TARGET")
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

if ! has_target; then
    echo "setup.sh: adding the Rust target $WINDOWS_TARGET with rustup"
    if ! rustup target add "$WINDOWS_TARGET"; then
        echo "setup.sh: could not add the Rust target $WINDOWS_TARGET" >&2
        status=1
    fi
fi
exit "$status"
