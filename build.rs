//! Names the instruction-set level the crate is compiled for, so that the
//! `id name` line a GUI shows tells a portable binary from an AVX2 one.
//!
//! Cargo hands a build script the target's features (after `RUSTFLAGS`,
//! `-C target-cpu=...` included) in `CARGO_CFG_TARGET_FEATURE`; the level is
//! the highest x86-64 microarchitecture level (psABI v2, v3, v4) whose
//! features are all enabled. The result reaches the crate as the compile-time
//! variable `KIRALY_BUILD_LEVEL` (see `src/build_info.rs`).

use std::env;

/// Features that each x86-64 level adds, from the x86-64 psABI's table: the
/// ones that tell the levels apart in rustc's feature names.
const V2: &[&str] = &["popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"];
const V3: &[&str] = &[
    "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe",
];
const V4: &[&str] = &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

fn main() {
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
