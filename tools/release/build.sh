#!/usr/bin/env bash
# Builds Kiraly's release binaries and packs them into versioned archives.
# `make release` runs it; tools/release/setup.sh installs what it needs.
#
#   tools/release/build.sh [--dist DIR] [--levels "x86-64 x86-64-v3 aarch64"]
#                          [--os "linux windows"] [--binaries-only]
#
# The x86-64 levels are microarchitecture levels, passed as -C target-cpu:
# the portable `x86-64` runs on every 64-bit x86 CPU, `x86-64-v3` needs
# AVX2, BMI2 and FMA (Intel Haswell, AMD Excavator and later); they build
# for every system asked for. `aarch64` is 64-bit ARM, Linux only, for the
# ARMv8-A baseline (NEON included) that every 64-bit ARM CPU runs. Each
# level builds in its own target directory, target/release-LEVEL/TRIPLE/
# release/, so that switching levels never rebuilds another level's
# binaries.
set -euo pipefail
cd "$(dirname "$0")/../.."

DIST=dist
LEVELS="x86-64 x86-64-v3 aarch64"
SYSTEMS="linux windows"
BINARIES_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dist) DIST="$2"; shift 2 ;;
        --levels) LEVELS="$2"; shift 2 ;;
        --os) SYSTEMS="$2"; shift 2 ;;
        --binaries-only) BINARIES_ONLY=1; shift ;;
        *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$VERSION" ] || { echo "build.sh: no version in Cargo.toml" >&2; exit 1; }

# The target triple of a system and level.
triple_of() {
    case "$1-$2" in
        linux-aarch64) echo aarch64-unknown-linux-gnu ;;
        linux-*) echo x86_64-unknown-linux-gnu ;;
        windows-*) echo x86_64-pc-windows-gnu ;;
        *) echo "build.sh: unknown system '$1' (linux, windows)" >&2; exit 2 ;;
    esac
}

# Whether a level is built for a system: there is no Windows ARM64 build.
builds_for() { [ "$2" != aarch64 ] || [ "$1" = linux ]; }

os_title() { [ "$1" = windows ] && echo Windows || echo Linux; }

exe_suffix() { [ "$1" = windows ] && echo .exe || true; }

# Where the binary of a system and level lands.
binary_path() {
    echo "target/release-$2/$(triple_of "$1" "$2")/release/kiraly$(exe_suffix "$1")"
}

# The build machine's home must not show in the binaries' panic messages.
CARGO_HOME_DIR=${CARGO_HOME:-$HOME/.cargo}

for level in $LEVELS; do
    case "$level" in
        x86-64|x86-64-v2|x86-64-v3|x86-64-v4) cpu_flag="-C target-cpu=$level" ;;
        # The target's own baseline: no -C target-cpu.
        aarch64) cpu_flag="" ;;
        *) echo "build.sh: unknown level '$level'" >&2; exit 2 ;;
    esac
    systems=()
    targets=()
    for os in $SYSTEMS; do
        if builds_for "$os" "$level"; then
            systems+=("$os")
            targets+=(--target "$(triple_of "$os" "$level")")
        fi
    done
    [ "${#systems[@]}" -gt 0 ] || continue
    echo "build.sh: building $level for ${systems[*]}"
    # One cargo run per level builds every system's binary side by side.
    RUSTFLAGS="$cpu_flag --remap-path-prefix=$CARGO_HOME_DIR=cargo --remap-path-prefix=$PWD=kiraly" \
        cargo build --release --locked --bin kiraly "${targets[@]}" \
        --target-dir "target/release-$level"
    for os in "${systems[@]}"; do
        bin=$(binary_path "$os" "$level")
        # The id name compiled in must name the level asked for: a stale
        # build-script result would mislabel the download.
        if ! grep -q -a -F "Kiraly $VERSION ($level)" "$bin"; then
            echo "build.sh: $bin does not carry the name 'Kiraly $VERSION ($level)'" >&2
            exit 1
        fi
    done
done

[ "$BINARIES_ONLY" = 1 ] && exit 0

# Archives carry the time of the last commit, not of the build, so that the
# same commit gives the same archive bytes for the same binaries.
EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 0)
STAGING=target/dist-staging
rm -rf "$STAGING"
mkdir -p "$STAGING" "$DIST"
DIST=$(cd "$DIST" && pwd)
for os in $SYSTEMS; do
    for level in $LEVELS; do
        builds_for "$os" "$level" || continue
        name="kiraly-$VERSION-$os-$level"
        dir="$STAGING/$name"
        mkdir -p "$dir"
        file="kiraly-$VERSION-$level$(exe_suffix "$os")"
        cp "$(binary_path "$os" "$level")" "$dir/$file"
        cp README.md LICENSE "$dir/"
        sed -e "s/@VERSION@/$VERSION/g" -e "s/@LEVEL@/$level/g" -e "s/@FILE@/$file/g" \
            -e "s/@OS@/$(os_title "$os")/g" tools/release/WHICH-BINARY.txt > "$dir/WHICH-BINARY.txt"
        if [ "$os" = windows ]; then
            # Notepad before Windows 10 shows a text with bare LF on one line.
            sed -i 's/$/\r/' "$dir/WHICH-BINARY.txt"
        fi
        find "$dir" -exec touch -h -d "@$EPOCH" {} +
        rm -f "$DIST/$name.tar.gz" "$DIST/$name.zip"
        if [ "$os" = windows ]; then
            (cd "$STAGING" && find "$name" | LC_ALL=C sort \
                | TZ=UTC zip -q -X -@ "$DIST/$name.zip")
        else
            tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$EPOCH" \
                -C "$STAGING" -cf - "$name" | gzip -n -9 > "$DIST/$name.tar.gz"
        fi
    done
done
shopt -s nullglob
(cd "$DIST" && sha256sum kiraly-"$VERSION"-*.tar.gz kiraly-"$VERSION"-*.zip > SHA256SUMS)
echo "build.sh: archives in $DIST/:"
ls -l "$DIST"
