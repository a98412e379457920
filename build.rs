//! Build-time facts the binary reports:
//! * the git commit it is built from, for `kiraly --version` (a tree
//!   without git, a release tarball or a copy, says `unknown`);
//! * the instruction-set level it is compiled for, so that the `id name`
//!   line a GUI shows tells a portable binary from an AVX2 one. Cargo hands
//!   a build script the target's features (after `RUSTFLAGS`,
//!   `-C target-cpu=...` included) in `CARGO_CFG_TARGET_FEATURE`; the level
//!   is the highest x86-64 microarchitecture level (psABI v2, v3, v4) whose
//!   features are all enabled (see `src/build_info.rs`).

use std::env;
use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// `KIRALY_COMMIT`: the short commit hash, for `kiraly --version`.
fn record_commit() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    // Only this repository's own history: a copy unpacked inside some other
    // repository must not report that one's commit.
    let top = git(&["rev-parse", "--show-toplevel"]);
    let ours = match (&top, Path::new(&manifest).canonicalize()) {
        (Some(top), Ok(manifest)) => Path::new(top).canonicalize().ok() == Some(manifest),
        _ => false,
    };
    let commit = ours
        .then(|| git(&["rev-parse", "--short", "HEAD"]))
        .flatten();
    println!(
        "cargo:rustc-env=KIRALY_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    // Run again when the commit changes: HEAD, the branch it names, and the
    // packed refs (where a branch may live after `git gc`).
    println!("cargo:rerun-if-changed=build.rs");
    // A path that does not exist would make cargo run this on every build.
    if ours {
        let mut names = vec!["HEAD".to_string(), "packed-refs".to_string()];
        names.extend(git(&["symbolic-ref", "-q", "HEAD"]));
        for name in names {
            if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
                if Path::new(&path).exists() {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
        }
    }
}

/// Features that each x86-64 level adds, from the x86-64 psABI's table: the
/// ones that tell the levels apart in rustc's feature names.
const V2: &[&str] = &["popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"];
const V3: &[&str] = &[
    "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe",
];
const V4: &[&str] = &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

/// `KIRALY_BUILD_LEVEL` and `KIRALY_BUILD_TARGET`.
fn record_level() {
    println!("cargo:rerun-if-changed=build.rs");
    // Set by cargo from the target and RUSTFLAGS; a change of either must
    // rename the build, so both are watched.
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let enabled: Vec<&str> = features.split(',').collect();
    let has_all = |set: &[&str]| set.iter().all(|f| enabled.contains(f));
    let level = if arch == "x86_64" {
        if has_all(V2) && has_all(V3) && has_all(V4) {
            "x86-64-v4".to_string()
        } else if has_all(V2) && has_all(V3) {
            "x86-64-v3".to_string()
        } else if has_all(V2) {
            "x86-64-v2".to_string()
        } else {
            "x86-64".to_string()
        }
    } else if arch.is_empty() {
        "unknown".to_string()
    } else {
        arch
    };
    println!("cargo:rustc-env=KIRALY_BUILD_LEVEL={level}");
    let target = env::var("TARGET").unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=KIRALY_BUILD_TARGET={target}");
}

fn main() {
    record_commit();
    record_level();
}
