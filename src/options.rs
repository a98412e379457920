//! The UCI options the engine declares, their ranges, and validation of
//! `setoption` values against them.

use crate::strength::{ELO_DEFAULT, ELO_MAX, ELO_MIN};

pub const HASH_DEFAULT_MB: usize = 16;
/// As Stockfish: far beyond any machine, so the limit is what can be allocated.
pub const HASH_MAX_MB: usize = 33_554_432;
pub const THREADS_MAX: usize = 256;
pub const MOVE_OVERHEAD_DEFAULT_MS: u64 = 10;
pub const MOVE_OVERHEAD_MAX_MS: u64 = 5_000;
pub const MULTIPV_MAX: usize = 500;
pub const SYZYGY_PROBE_DEPTH_MAX: i32 = 100;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: u64,
    pub chess960: bool,
    pub ponder: bool,
    pub multipv: usize,
    pub limit_strength: bool,
    pub elo: u32,
    pub show_wdl: bool,
    /// Directories of Syzygy tables, separated as in `PATH`; empty for none.
    pub syzygy_path: String,
    pub syzygy_probe_depth: i32,
    pub syzygy_50_move_rule: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: HASH_DEFAULT_MB,
            threads: 1,
            move_overhead_ms: MOVE_OVERHEAD_DEFAULT_MS,
            chess960: false,
            ponder: false,
            multipv: 1,
            limit_strength: false,
            elo: ELO_DEFAULT,
            show_wdl: false,
            syzygy_path: String::new(),
            syzygy_probe_depth: 1,
            syzygy_50_move_rule: true,
        }
    }
}

/// A validated `setoption`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionChange {
    Hash(usize),
    Threads(usize),
    MoveOverhead(u64),
    Chess960(bool),
    Ponder(bool),
    ClearHash,
    MultiPv(usize),
    LimitStrength(bool),
    Elo(u32),
    ShowWdl(bool),
    SyzygyPath(String),
    SyzygyProbeDepth(i32),
    Syzygy50MoveRule(bool),
    UseNnue(bool),
    /// A net file, or `<embedded>` for the built-in net.
    EvalFile(String),
    /// A search parameter (tuning builds only; see `parameters`).
    Parameter(&'static str, i32),
}

/// The `option ...` lines sent in reply to `uci`.
pub fn declarations() -> Vec<String> {
    let mut lines = vec![
        format!("option name Hash type spin default {HASH_DEFAULT_MB} min 1 max {HASH_MAX_MB}"),
        format!("option name Threads type spin default 1 min 1 max {THREADS_MAX}"),
        format!(
            "option name Move Overhead type spin default {MOVE_OVERHEAD_DEFAULT_MS} min 0 max {MOVE_OVERHEAD_MAX_MS}"
        ),
        "option name Clear Hash type button".to_string(),
        "option name Ponder type check default false".to_string(),
        "option name UCI_Chess960 type check default false".to_string(),
        format!("option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}"),
        "option name UCI_LimitStrength type check default false".to_string(),
        format!("option name UCI_Elo type spin default {ELO_DEFAULT} min {ELO_MIN} max {ELO_MAX}"),
        "option name UCI_ShowWDL type check default false".to_string(),
        "option name SyzygyPath type string default <empty>".to_string(),
        format!("option name SyzygyProbeDepth type spin default 1 min 1 max {SYZYGY_PROBE_DEPTH_MAX}"),
        "option name Syzygy50MoveRule type check default true".to_string(),
        format!(
            "option name Use NNUE type check default {}",
            crate::nnue::ENABLED_BY_DEFAULT
        ),
        format!(
            "option name EvalFile type string default {}",
            crate::nnue::EMBEDDED_NAME
        ),
    ];
    lines.extend(crate::parameters::declarations());
    lines
}

/// Checks a `setoption` against the declarations. Names are matched without
/// regard to case, as the UCI specification asks.
pub fn validate(name: &str, value: Option<&str>) -> Result<OptionChange, String> {
    let is = |n: &str| name.eq_ignore_ascii_case(n);
    if is("Hash") {
        spin(name, value, 1, HASH_MAX_MB as u64).map(|v| OptionChange::Hash(v as usize))
    } else if is("Threads") {
        spin(name, value, 1, THREADS_MAX as u64).map(|v| OptionChange::Threads(v as usize))
    } else if is("Move Overhead") {
        spin(name, value, 0, MOVE_OVERHEAD_MAX_MS).map(OptionChange::MoveOverhead)
    } else if is("Clear Hash") {
        Ok(OptionChange::ClearHash)
    } else if is("Ponder") {
        check(name, value).map(OptionChange::Ponder)
    } else if is("UCI_Chess960") {
        check(name, value).map(OptionChange::Chess960)
    } else if is("MultiPV") {
        spin(name, value, 1, MULTIPV_MAX as u64).map(|v| OptionChange::MultiPv(v as usize))
    } else if is("UCI_LimitStrength") {
        check(name, value).map(OptionChange::LimitStrength)
    } else if is("UCI_Elo") {
        spin(name, value, ELO_MIN.into(), ELO_MAX.into()).map(|v| OptionChange::Elo(v as u32))
    } else if is("UCI_ShowWDL") {
        check(name, value).map(OptionChange::ShowWdl)
    } else if is("SyzygyPath") {
        // No value, an empty one or `<empty>` means no tables.
        let path = value.map_or("", str::trim);
        let path = if path == "<empty>" { "" } else { path };
        Ok(OptionChange::SyzygyPath(path.to_string()))
    } else if is("SyzygyProbeDepth") {
        spin(name, value, 1, SYZYGY_PROBE_DEPTH_MAX as u64)
            .map(|v| OptionChange::SyzygyProbeDepth(v as i32))
    } else if is("Syzygy50MoveRule") {
        check(name, value).map(OptionChange::Syzygy50MoveRule)
    } else if is("Use NNUE") {
        check(name, value).map(OptionChange::UseNnue)
    } else if is("EvalFile") {
        // No value or an empty one means the built-in net.
        let path = value.map_or("", str::trim);
        let path = if path.is_empty() {
            crate::nnue::EMBEDDED_NAME
        } else {
            path
        };
        Ok(OptionChange::EvalFile(path.to_string()))
    } else if let Some(p) = crate::parameters::find(name).filter(|_| cfg!(feature = "tune")) {
        spin(name, value, p.min as u64, p.max as u64)
            .map(|v| OptionChange::Parameter(p.name, v as i32))
    } else {
        Err(format!("no such option: {name}"))
    }
}

fn spin(name: &str, value: Option<&str>, min: u64, max: u64) -> Result<u64, String> {
    let text = value.ok_or_else(|| format!("option {name} needs a value"))?;
    match text.trim().parse::<i128>() {
        Ok(v) if v >= min as i128 && v <= max as i128 => Ok(v as u64),
        Ok(v) => Err(format!(
            "option {name}: {v} is out of range {min}..{max}, value unchanged"
        )),
        Err(_) => Err(format!(
            "option {name}: '{text}' is not a number, value unchanged"
        )),
    }
}

fn check(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(format!(
            "option {name}: expected true or false, value unchanged"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_values_in_range() {
        assert_eq!(validate("Hash", Some("64")), Ok(OptionChange::Hash(64)));
        assert_eq!(validate("hash", Some("1")), Ok(OptionChange::Hash(1)));
        assert_eq!(validate("Threads", Some("2")), Ok(OptionChange::Threads(2)));
        assert_eq!(
            validate("Move Overhead", Some("100")),
            Ok(OptionChange::MoveOverhead(100))
        );
        assert_eq!(
            validate("UCI_Chess960", Some("true")),
            Ok(OptionChange::Chess960(true))
        );
        assert_eq!(validate("Clear Hash", None), Ok(OptionChange::ClearHash));
        assert_eq!(validate("multipv", Some("3")), Ok(OptionChange::MultiPv(3)));
        assert_eq!(
            validate("UCI_Elo", Some("2000")),
            Ok(OptionChange::Elo(2000))
        );
        assert_eq!(
            validate("UCI_LimitStrength", Some("true")),
            Ok(OptionChange::LimitStrength(true))
        );
        assert_eq!(
            validate("SyzygyPath", Some("/tb/wdl:/tb/dtz")),
            Ok(OptionChange::SyzygyPath("/tb/wdl:/tb/dtz".into()))
        );
        for empty in [None, Some(""), Some("<empty>")] {
            assert_eq!(
                validate("syzygypath", empty),
                Ok(OptionChange::SyzygyPath(String::new()))
            );
        }
        assert_eq!(
            validate("SyzygyProbeDepth", Some("6")),
            Ok(OptionChange::SyzygyProbeDepth(6))
        );
        assert_eq!(
            validate("Syzygy50MoveRule", Some("false")),
            Ok(OptionChange::Syzygy50MoveRule(false))
        );
    }

    #[test]
    fn accepts_the_ends_of_each_range_and_any_case() {
        // GUIs set limits to the declared ends (cutechess's UCI_Elo slider,
        // Arena's Move Overhead 0) and some write check values capitalised.
        assert_eq!(validate("Hash", Some("1")), Ok(OptionChange::Hash(1)));
        assert_eq!(
            validate("Threads", Some("256")),
            Ok(OptionChange::Threads(256))
        );
        assert_eq!(
            validate("Move Overhead", Some("0")),
            Ok(OptionChange::MoveOverhead(0))
        );
        assert_eq!(
            validate("Move Overhead", Some("5000")),
            Ok(OptionChange::MoveOverhead(5000))
        );
        assert_eq!(
            validate("MultiPV", Some("500")),
            Ok(OptionChange::MultiPv(500))
        );
        assert_eq!(
            validate("UCI_Elo", Some("1350")),
            Ok(OptionChange::Elo(1350))
        );
        assert_eq!(
            validate("UCI_Elo", Some("2850")),
            Ok(OptionChange::Elo(2850))
        );
        assert_eq!(
            validate("SyzygyProbeDepth", Some("100")),
            Ok(OptionChange::SyzygyProbeDepth(100))
        );
        assert_eq!(
            validate("Ponder", Some("True")),
            Ok(OptionChange::Ponder(true))
        );
        assert_eq!(
            validate("UCI_ShowWDL", Some(" FALSE ")),
            Ok(OptionChange::ShowWdl(false))
        );
    }

    #[test]
    fn rejects_bad_values() {
        assert!(validate("Hash", Some("0")).is_err());
        assert!(validate("Hash", Some("99999999999999999999999")).is_err());
        assert!(validate("Threads", Some("-1")).is_err());
        assert!(validate("Threads", None).is_err());
        assert!(validate("Move Overhead", Some("abc")).is_err());
        assert!(validate("UCI_Chess960", Some("maybe")).is_err());
        assert!(validate("MultiPV", Some("0")).is_err());
        assert!(validate("UCI_Elo", Some("1349")).is_err());
        assert!(validate("UCI_Elo", Some("2851")).is_err());
        assert!(validate("SyzygyProbeDepth", Some("0")).is_err());
        assert!(validate("SyzygyProbeDepth", Some("101")).is_err());
        assert!(validate("Syzygy50MoveRule", Some("1")).is_err());
        assert!(validate("NoSuchOption", Some("1")).is_err());
    }

    #[test]
    fn every_declared_option_validates_its_default() {
        for line in declarations() {
            let name_start = line.find("name ").unwrap() + 5;
            let name_end = line.find(" type ").unwrap();
            let name = &line[name_start..name_end];
            let default = line
                .split(" default ")
                .nth(1)
                .map(|rest| rest.split(' ').next().unwrap());
            assert!(validate(name, default).is_ok(), "{line}");
        }
    }
}
