//! Texel tuner for Kiraly's evaluation: fits the weights of
//! `src/eval/params.rs` to game results of self-play positions (see
//! `docs/tools.md`, "Tuning the evaluation", and `tuner --help`).
//!
//! * [`data`]: loading datagen files into compact per-position coefficients,
//! * [`model`]: the evaluation recomputed from the coefficients, the loss,
//!   its analytic gradient, the fit of K and Adam,
//! * [`params_file`]: reading and rewriting `params.rs`,
//! * [`ordered_sum`]: parallel sums with the same bits on every run.

pub mod data;
pub mod model;
pub mod ordered_sum;
pub mod params_file;
pub mod wdl;
pub mod wdl_cli;

use kiraly::eval::params::{kd, PARAMS};

use model::{KD_OFFSET, THETA_LEN};

/// Parameters frozen unless `--no-default-freeze` is given: the middlegame
/// pawn value anchors the centipawn scale.
pub const DEFAULT_FREEZE: &[&str] = &["MATERIAL[0].mg"];

/// Marks the parameters named by `spec` as frozen: `NAME` (a whole entry,
/// both halves), `NAME[i]`, `NAME[i].mg`, `NAME[i].eg`, `KING_DANGER` or
/// `KING_DANGER[i]`.
pub fn freeze(frozen: &mut [bool], spec: &str) -> Result<(), String> {
    assert_eq!(frozen.len(), THETA_LEN);
    let bad =
        || format!("--freeze: cannot parse '{spec}' (NAME, NAME[i], NAME[i].mg or NAME[i].eg)");
    let (head, half) = match spec.rsplit_once('.') {
        Some((h, "mg")) => (h, Some(0)),
        Some((h, "eg")) => (h, Some(1)),
        Some(_) => return Err(bad()),
        None => (spec, None),
    };
    let (name, element) = match head.split_once('[') {
        Some((n, rest)) => {
            let i = rest
                .strip_suffix(']')
                .and_then(|i| i.parse::<usize>().ok())
                .ok_or_else(bad)?;
            (n, Some(i))
        }
        None => (head, None),
    };
    if name == "KING_DANGER" {
        if half.is_some() {
            return Err(format!(
                "--freeze {spec}: KING_DANGER weights have no mg/eg halves"
            ));
        }
        let range = match element {
            Some(i) if i < kd::COUNT => i..i + 1,
            Some(i) => return Err(format!("--freeze {spec}: index {i} out of range")),
            None => 0..kd::COUNT,
        };
        for j in range {
            frozen[KD_OFFSET + j] = true;
        }
        return Ok(());
    }
    let param = PARAMS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| format!("--freeze {spec}: no parameter named {name}"))?;
    let range = match element {
        Some(i) if i < param.values.len() => i..i + 1,
        Some(i) => return Err(format!("--freeze {spec}: index {i} out of range")),
        None => 0..param.values.len(),
    };
    for i in range {
        let base = 2 * (param.offset + i);
        match half {
            Some(h) => frozen[base + h] = true,
            None => {
                frozen[base] = true;
                frozen[base + 1] = true;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiraly::eval::params::idx;

    #[test]
    fn freeze_specs() {
        let mut f = vec![false; THETA_LEN];
        freeze(&mut f, "MATERIAL[0].mg").unwrap();
        assert!(f[2 * idx::MATERIAL] && !f[2 * idx::MATERIAL + 1]);
        freeze(&mut f, "TEMPO").unwrap();
        assert!(f[2 * idx::TEMPO] && f[2 * idx::TEMPO + 1]);
        freeze(&mut f, "MOBILITY_ROOK[3]").unwrap();
        assert!(f[2 * (idx::MOBILITY_ROOK + 3)] && !f[2 * (idx::MOBILITY_ROOK + 4)]);
        freeze(&mut f, "KING_DANGER[13]").unwrap();
        assert!(f[KD_OFFSET + 13] && !f[KD_OFFSET + 12]);
        assert_eq!(f.iter().filter(|&&x| x).count(), 1 + 2 + 2 + 1);
        for bad in [
            "NOPE",
            "TEMPO[1]",
            "TEMPO[0].xx",
            "KING_DANGER[14]",
            "KING_DANGER.mg",
            "MATERIAL[a]",
        ] {
            assert!(freeze(&mut f, bad).is_err(), "{bad}");
        }
    }
}
