//! What this binary is: version, instruction-set level and target, fixed at
//! compile time. The `id name` line a GUI lists the engine by carries the
//! version and level, so a user can see which download is running.

/// The crate version, from `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The x86-64 microarchitecture level the code was compiled for
/// (`x86-64` portable, `x86-64-v2`, `x86-64-v3` with AVX2, `x86-64-v4` with
/// AVX-512), or the architecture's name elsewhere. Set by `build.rs` from the
/// enabled target features, so `-C target-cpu=native` names the level of the
/// building machine.
pub const LEVEL: &str = env!("KIRALY_BUILD_LEVEL");

/// The target triple, e.g. `x86_64-pc-windows-gnu`.
pub const TARGET: &str = env!("KIRALY_BUILD_TARGET");

/// The engine's name as `id name` gives it: `Kiraly 0.1.0 (x86-64-v3)`.
pub const NAME: &str = concat!(
    "Kiraly ",
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("KIRALY_BUILD_LEVEL"),
    ")"
);

/// Features each x86-64 level needs beyond the previous one, as the CPU
/// reports them (mirrors `build.rs`).
const LEVEL_FEATURES: [(&str, &[&str]); 3] = [
    (
        "x86-64-v2",
        &["popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"],
    ),
    (
        "x86-64-v3",
        &[
            "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe",
        ],
    ),
    (
        "x86-64-v4",
        &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"],
    ),
];

/// The first feature that a binary of `level` needs and `has` says is absent.
fn first_missing(level: &str, has: impl Fn(&str) -> bool) -> Option<&'static str> {
    let needed = LEVEL_FEATURES
        .iter()
        .position(|(name, _)| *name == level)
        .map_or(0, |i| i + 1);
    LEVEL_FEATURES[..needed]
        .iter()
        .flat_map(|(_, features)| features.iter().copied())
        .find(|f| !has(f))
}

#[cfg(target_arch = "x86_64")]
fn cpu_has(feature: &str) -> bool {
    match feature {
        "popcnt" => is_x86_feature_detected!("popcnt"),
        "sse3" => is_x86_feature_detected!("sse3"),
        "sse4.1" => is_x86_feature_detected!("sse4.1"),
        "sse4.2" => is_x86_feature_detected!("sse4.2"),
        "ssse3" => is_x86_feature_detected!("ssse3"),
        "avx" => is_x86_feature_detected!("avx"),
        "avx2" => is_x86_feature_detected!("avx2"),
        "bmi1" => is_x86_feature_detected!("bmi1"),
        "bmi2" => is_x86_feature_detected!("bmi2"),
        "f16c" => is_x86_feature_detected!("f16c"),
        "fma" => is_x86_feature_detected!("fma"),
        "lzcnt" => is_x86_feature_detected!("lzcnt"),
        "movbe" => is_x86_feature_detected!("movbe"),
        "avx512f" => is_x86_feature_detected!("avx512f"),
        "avx512bw" => is_x86_feature_detected!("avx512bw"),
        "avx512cd" => is_x86_feature_detected!("avx512cd"),
        "avx512dq" => is_x86_feature_detected!("avx512dq"),
        "avx512vl" => is_x86_feature_detected!("avx512vl"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_has(_feature: &str) -> bool {
    true
}

/// Checks that this CPU runs what the binary was compiled for. An AVX2
/// build started on an older CPU would otherwise die of an illegal
/// instruction with no word of why; this says which download to take
/// instead. Call it first thing: the standard library around `main` is
/// compiled for the baseline, the engine's own code is not.
#[inline(never)]
pub fn check_cpu() -> Result<(), String> {
    match first_missing(LEVEL, cpu_has) {
        None => Ok(()),
        Some(feature) => Err(format!(
            "this Kiraly binary is built for {LEVEL} CPUs, and this CPU lacks {feature}; \
             use the portable x86-64 build instead"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_running_cpu_runs_this_build() {
        assert_eq!(check_cpu(), Ok(()));
    }

    #[test]
    fn a_missing_feature_of_the_level_is_found() {
        let pre_avx2 = |f: &str| !matches!(f, "avx2" | "bmi2" | "fma" | "movbe");
        assert_eq!(first_missing("x86-64-v3", pre_avx2), Some("avx2"));
        assert_eq!(first_missing("x86-64-v2", pre_avx2), None);
        assert_eq!(first_missing("x86-64", |_| false), None);
        // A v3 CPU passes v3, not v4.
        let v3_cpu = |f: &str| !f.starts_with("avx512");
        assert_eq!(first_missing("x86-64-v3", v3_cpu), None);
        assert_eq!(first_missing("x86-64-v4", v3_cpu), Some("avx512f"));
        // A level also needs the lower levels' features.
        assert_eq!(
            first_missing("x86-64-v3", |f| f != "sse4.2"),
            Some("sse4.2")
        );
    }

    /// The level `build.rs` computed must be the one the compiler actually
    /// targets: a stale build-script result (flags changed, script not rerun)
    /// would make a portable binary claim AVX2 or the other way round.
    #[test]
    fn level_matches_the_compiled_target_features() {
        let expected = if !cfg!(target_arch = "x86_64") {
            std::env::consts::ARCH
        } else if cfg!(all(
            target_feature = "avx512f",
            target_feature = "avx512bw",
            target_feature = "avx2",
            target_feature = "sse4.2"
        )) {
            "x86-64-v4"
        } else if cfg!(all(
            target_feature = "avx2",
            target_feature = "bmi2",
            target_feature = "fma",
            target_feature = "sse4.2"
        )) {
            "x86-64-v3"
        } else if cfg!(all(target_feature = "sse4.2", target_feature = "popcnt")) {
            "x86-64-v2"
        } else {
            "x86-64"
        };
        assert_eq!(LEVEL, expected);
    }
}
