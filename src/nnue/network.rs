//! The network file and the forward pass.
//!
//! File layout, little-endian:
//!
//! ```text
//! 0   8  magic "KIRALYNN"
//! 8   4  format version (2)
//! 12  4  inputs per bucket (768)
//! 16  4  hidden width
//! 20  4  king buckets
//! 24 32  bucket layout (king square, oriented and mirrored, to bucket)
//! 56  4  QA    60 4 QB    64 4 SCALE
//! 68  4  output buckets O (by the number of pieces on the board)
//! 72  8  FNV-1a 64 hash of the parameter bytes that follow
//! 80     feature weights  i16 [buckets * 768][hidden]
//!        feature biases   i16 [hidden]
//!        output weights   i16 [O][2 * hidden] (side to move's half first)
//!        output biases    i32 [O]
//! ```
//!
//! Version 1 (the first nets) had no output-bucket field: one output
//! bucket, the hash at 68 and the parameters, laid out as above, at 76. It
//! still loads.

use super::features::bucket_count;
use super::simd::screlu_dot;
use super::{output_bucket, BucketLayout, HIDDEN, INPUTS, MAX_OUTPUT_BUCKETS, QA, QB, SCALE};
use crate::huge_pages::HugePageSlice;

pub const MAGIC: &[u8; 8] = b"KIRALYNN";
/// The version this build writes; it reads `FIRST_VERSION` too.
pub const VERSION: u32 = 2;
pub const FIRST_VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 80;
/// The header of a version-1 file.
pub const FIRST_HEADER_BYTES: usize = 76;
/// Output weights stay within this (the trainer clips them to +-1.98 before
/// quantising by QB = 256: at most 507), so the forward pass's 16-bit
/// products and i32 sums cannot overflow (see `simd`).
pub const MAX_OUTPUT_WEIGHT: u16 = 512;

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    /// Shorter or longer than its header says.
    Size {
        expected: usize,
        found: usize,
    },
    NotANetwork,
    Version(u32),
    Architecture(String),
    Hash,
}

impl std::fmt::Display for NetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetworkError::Size { expected, found } => {
                let what = if found < expected {
                    "truncated"
                } else {
                    "too long"
                };
                write!(
                    f,
                    "{what}: {found} bytes, the architecture needs {expected}"
                )
            }
            NetworkError::NotANetwork => write!(f, "not a Kiraly network (bad magic)"),
            NetworkError::Version(v) => write!(
                f,
                "format version {v}, this build reads {FIRST_VERSION} and {VERSION}"
            ),
            NetworkError::Architecture(what) => write!(f, "wrong architecture: {what}"),
            NetworkError::Hash => write!(f, "damaged: the parameter hash does not match"),
        }
    }
}

/// The quantised network: this build's width and scales, any king bucket
/// layout.
#[derive(Clone)]
pub struct Network {
    /// King bucket of each own-king square (see `BucketLayout`).
    pub layout: BucketLayout,
    /// `[bucket * 768 + input][HIDDEN]`, so an input's column is contiguous.
    /// On huge pages: moves read its columns at random (`huge_pages`).
    pub feature_weights: HugePageSlice<[i16; HIDDEN]>,
    pub feature_bias: [i16; HIDDEN],
    /// Per output bucket: the weights of the side to move's half, then the
    /// other side's.
    pub output_weights: Vec<[[i16; HIDDEN]; 2]>,
    /// Per output bucket.
    pub output_bias: Vec<i32>,
    /// The hash of the parameters, as in the file; names the net.
    pub hash: u64,
}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The size of the parameters of a net of this build's width with `buckets`
/// king buckets and `outputs` output buckets.
const fn param_bytes(buckets: usize, outputs: usize) -> usize {
    2 * (buckets * INPUTS * HIDDEN + HIDDEN + outputs * 2 * HIDDEN) + 4 * outputs
}

/// The file size (this build's format) of a net of this build's width with
/// `buckets` king buckets and `outputs` output buckets.
pub const fn file_bytes(buckets: usize, outputs: usize) -> usize {
    HEADER_BYTES + param_bytes(buckets, outputs)
}

impl std::fmt::Debug for Network {
    /// The identity, not 50 thousand weights.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({INPUTS}x{} -> {HIDDEN} -> {}, hash {:016x})",
            self.buckets(),
            self.output_buckets(),
            self.hash
        )
    }
}

impl Network {
    /// The number of king buckets.
    pub fn buckets(&self) -> usize {
        self.feature_weights.len() / INPUTS
    }

    /// The number of output buckets.
    pub fn output_buckets(&self) -> usize {
        self.output_bias.len()
    }

    /// Reads a network file (this build's version or the first), checking
    /// magic, version, architecture, length and hash.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < FIRST_HEADER_BYTES {
            if bytes.len() >= 8 && &bytes[..8] != MAGIC {
                return Err(NetworkError::NotANetwork);
            }
            return Err(NetworkError::Size {
                expected: file_bytes(1, 1),
                found: bytes.len(),
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(NetworkError::NotANetwork);
        }
        let version = read_u32(bytes, 8);
        let (header, outputs) = match version {
            VERSION if bytes.len() >= HEADER_BYTES => (HEADER_BYTES, read_u32(bytes, 68) as usize),
            VERSION => {
                return Err(NetworkError::Size {
                    expected: file_bytes(1, 1),
                    found: bytes.len(),
                })
            }
            FIRST_VERSION => (FIRST_HEADER_BYTES, 1),
            _ => return Err(NetworkError::Version(version)),
        };
        let (inputs, hidden, buckets) = (
            read_u32(bytes, 12) as usize,
            read_u32(bytes, 16) as usize,
            read_u32(bytes, 20) as usize,
        );
        let layout: BucketLayout = bytes[24..56].try_into().unwrap_or([u8::MAX; 32]);
        let (qa, qb, scale) = (
            read_u32(bytes, 56) as i32,
            read_u32(bytes, 60) as i32,
            read_u32(bytes, 64) as i32,
        );
        if (inputs, hidden, qa, qb, scale) != (INPUTS, HIDDEN, QA, QB, SCALE) {
            return Err(NetworkError::Architecture(format!(
                "{inputs}x{buckets} -> {hidden}, QA {qa}, QB {qb}, scale {scale}; this build \
                 reads {INPUTS}xB -> {HIDDEN}, QA {QA}, QB {QB}, scale {SCALE}"
            )));
        }
        if !(1..=MAX_OUTPUT_BUCKETS).contains(&outputs) {
            return Err(NetworkError::Architecture(format!(
                "{outputs} output buckets; this build reads 1 to {MAX_OUTPUT_BUCKETS}"
            )));
        }
        match bucket_count(&layout) {
            Ok(count) if count == buckets => {}
            Ok(count) => {
                return Err(NetworkError::Architecture(format!(
                    "{buckets} king buckets, but the layout uses {count}"
                )))
            }
            Err(why) => return Err(NetworkError::Architecture(why)),
        }
        let expected = header + param_bytes(buckets, outputs);
        if bytes.len() != expected {
            return Err(NetworkError::Size {
                expected,
                found: bytes.len(),
            });
        }
        let hash = u64::from_le_bytes(bytes[header - 8..header].try_into().unwrap_or_default());
        let params = &bytes[header..];
        if fnv1a(params) != hash {
            return Err(NetworkError::Hash);
        }
        let mut values = params
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut next = || values.next().unwrap_or(0);
        let mut feature_weights = HugePageSlice::<[i16; HIDDEN]>::zeroed(buckets * INPUTS);
        for column in feature_weights.iter_mut() {
            for w in column.iter_mut() {
                *w = next();
            }
        }
        let mut feature_bias = [0i16; HIDDEN];
        feature_bias.iter_mut().for_each(|b| *b = next());
        let mut output_weights = vec![[[0i16; HIDDEN]; 2]; outputs];
        for half in output_weights.iter_mut().flatten() {
            half.iter_mut().for_each(|w| *w = next());
        }
        // The forward pass sums in i32: output weights within the trainer's
        // clip keep it from overflowing.
        if output_weights
            .iter()
            .flatten()
            .flatten()
            .any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(NetworkError::Architecture(format!(
                "an output weight beyond +-{MAX_OUTPUT_WEIGHT}"
            )));
        }
        let output_bias = params[params.len() - 4 * outputs..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Network {
            layout,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            hash,
        })
    }

    /// The parameter bytes of the file, which its hash covers.
    pub fn param_bytes(&self) -> Vec<u8> {
        let mut params = Vec::with_capacity(param_bytes(self.buckets(), self.output_buckets()));
        for column in &self.feature_weights {
            column
                .iter()
                .for_each(|w| params.extend_from_slice(&w.to_le_bytes()));
        }
        self.feature_bias
            .iter()
            .for_each(|b| params.extend_from_slice(&b.to_le_bytes()));
        for half in self.output_weights.iter().flatten() {
            half.iter()
                .for_each(|w| params.extend_from_slice(&w.to_le_bytes()));
        }
        for bias in &self.output_bias {
            params.extend_from_slice(&bias.to_le_bytes());
        }
        params
    }

    /// The file bytes of this network in this build's format (the hash is
    /// recomputed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let params = self.param_bytes();
        let mut out = Vec::with_capacity(HEADER_BYTES + params.len());
        out.extend_from_slice(MAGIC);
        for v in [VERSION, INPUTS as u32, HIDDEN as u32, self.buckets() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.layout);
        for v in [QA, QB, SCALE] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&(self.output_buckets() as u32).to_le_bytes());
        out.extend_from_slice(&fnv1a(&params).to_le_bytes());
        out.extend_from_slice(&params);
        out
    }

    /// The output in centipawns from the side to move's view, given the
    /// side to move's accumulator, the other side's, and the number of
    /// pieces on the board (both kings included), which picks the output
    /// bucket.
    #[inline]
    pub fn output(&self, us: &[i16; HIDDEN], them: &[i16; HIDDEN], pieces: usize) -> i32 {
        let bucket = output_bucket(pieces, self.output_buckets());
        let [ours, theirs] = &self.output_weights[bucket];
        let sum = screlu_dot(us, ours) + screlu_dot(them, theirs);
        let raw = sum / i64::from(QA) + i64::from(self.output_bias[bucket]);
        (raw * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Network {
        sample_with(crate::nnue::ONE_BUCKET)
    }

    fn sample_with(layout: BucketLayout) -> Network {
        let buckets = bucket_count(&layout).unwrap();
        let mut feature_weights = HugePageSlice::<[i16; HIDDEN]>::zeroed(buckets * INPUTS);
        for (i, column) in feature_weights.iter_mut().enumerate() {
            for (j, w) in column.iter_mut().enumerate() {
                *w = ((i * 31 + j * 7) % 61) as i16 - 30;
            }
        }
        Network {
            layout,
            feature_weights,
            feature_bias: [5; HIDDEN],
            output_weights: vec![[[3; HIDDEN], [-2; HIDDEN]]],
            output_bias: vec![1234],
            hash: 0,
        }
    }

    #[test]
    fn file_round_trip_and_refusals() {
        let net = sample();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_bytes(1, 1));
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.feature_weights, net.feature_weights);
        assert_eq!(back.output_bias, vec![1234]);
        assert_eq!(back.hash, fnv1a(&bytes[HEADER_BYTES..]));

        let cut = &bytes[..bytes.len() - 10];
        assert!(matches!(
            Network::from_bytes(cut),
            Err(NetworkError::Size { .. })
        ));
        assert!(matches!(
            Network::from_bytes(&bytes[..20]),
            Err(NetworkError::Size { .. })
        ));
        let mut other = bytes.clone();
        other[16] = 32; // hidden width
        assert!(matches!(
            Network::from_bytes(&other),
            Err(NetworkError::Architecture(_))
        ));
        let mut damaged = bytes.clone();
        damaged[HEADER_BYTES + 100] ^= 1;
        assert_eq!(
            Network::from_bytes(&damaged).err(),
            Some(NetworkError::Hash)
        );
        assert_eq!(
            Network::from_bytes(b"position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6")
                .err(),
            Some(NetworkError::NotANetwork)
        );
        let mut version = bytes;
        version[8] = 9;
        assert_eq!(
            Network::from_bytes(&version).err(),
            Some(NetworkError::Version(9))
        );
    }

    #[test]
    fn any_bucket_layout_loads() {
        let layout = crate::nnue::layout_by_name("4").unwrap();
        let net = sample_with(layout);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_bytes(4, 1));
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!((back.layout, back.buckets()), (layout, 4));
        assert_eq!(back.feature_weights, net.feature_weights);
        // The header's bucket count must be the layout's.
        let mut miscounted = bytes.clone();
        miscounted[20] = 3;
        assert!(matches!(
            Network::from_bytes(&miscounted),
            Err(NetworkError::Architecture(_))
        ));
        // A layout that skips a bucket is refused.
        let mut gap = bytes;
        gap[24..56].copy_from_slice(&[0; 32]);
        gap[24] = 3;
        assert!(matches!(
            Network::from_bytes(&gap),
            Err(NetworkError::Architecture(_))
        ));
    }

    #[test]
    fn output_clips_and_scales() {
        let net = sample();
        let zero = [0i16; HIDDEN];
        // Only the bias: 1234 * 400 / (255 * 256).
        assert_eq!(net.output(&zero, &zero, 32), 1234 * SCALE / (QA * QB));
        // Values beyond QA clip to QA; negatives to 0.
        let high = [1000i16; HIDDEN];
        let low = [-1000i16; HIDDEN];
        let expected = (QA * QA * 3 * HIDDEN as i32 / QA + 1234) * SCALE / (QA * QB);
        assert_eq!(net.output(&high, &low, 32), expected);
        assert_eq!(net.output(&[QA as i16; HIDDEN], &zero, 3), expected);
    }

    /// A net of 8 output buckets whose bucket `b` has bias `1000 * b` and
    /// output weights `b` (side to move) and `-b` (other side).
    fn eight_outputs() -> Network {
        let mut net = sample();
        net.output_weights = (0..8)
            .map(|b| [[b as i16; HIDDEN], [-(b as i16); HIDDEN]])
            .collect();
        net.output_bias = (0..8).map(|b| 1000 * b).collect();
        net
    }

    #[test]
    fn the_piece_count_picks_the_output_bucket() {
        let net = eight_outputs();
        let zero = [0i16; HIDDEN];
        let on = [QA as i16; HIDDEN];
        for pieces in 2..=32 {
            let b = crate::nnue::output_bucket(pieces, 8) as i32;
            let bias_only = 1000 * b * SCALE / (QA * QB);
            assert_eq!(net.output(&zero, &zero, pieces), bias_only, "{pieces}");
            let weighted = (QA * QA * b * HIDDEN as i32 / QA + 1000 * b) * SCALE / (QA * QB);
            assert_eq!(net.output(&on, &zero, pieces), weighted, "{pieces}");
        }
        assert_ne!(net.output(&on, &zero, 32), net.output(&on, &zero, 5));
    }

    #[test]
    fn output_buckets_round_trip_and_are_checked() {
        let net = eight_outputs();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_bytes(1, 8));
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.output_buckets(), 8);
        assert_eq!(back.output_weights, net.output_weights);
        assert_eq!(back.output_bias, net.output_bias);
        assert_eq!(back.to_bytes(), bytes);
        // A count the parameters do not match is a wrong length; one beyond
        // the most this build reads is refused as an architecture.
        let mut miscounted = bytes.clone();
        miscounted[68] = 7;
        assert!(matches!(
            Network::from_bytes(&miscounted),
            Err(NetworkError::Size { .. })
        ));
        let mut too_many = bytes.clone();
        too_many[68] = 9;
        assert!(matches!(
            Network::from_bytes(&too_many),
            Err(NetworkError::Architecture(_))
        ));
        let mut none = bytes;
        none[68] = 0;
        assert!(matches!(
            Network::from_bytes(&none),
            Err(NetworkError::Architecture(_))
        ));
    }

    /// The first format (version 1: no output-bucket field, a 76-byte
    /// header) still loads, as the same net.
    #[test]
    fn a_version_one_file_loads() {
        let net = sample();
        let current = net.to_bytes();
        let mut first = current[..68].to_vec();
        first[8..12].copy_from_slice(&FIRST_VERSION.to_le_bytes());
        first.extend_from_slice(&current[72..]);
        assert_eq!(
            first.len(),
            FIRST_HEADER_BYTES + current.len() - HEADER_BYTES
        );
        let back = Network::from_bytes(&first).unwrap();
        assert_eq!(back.output_buckets(), 1);
        assert_eq!(back.hash, fnv1a(&current[HEADER_BYTES..]));
        assert_eq!(back.to_bytes(), current);
        let mut damaged = first;
        damaged[FIRST_HEADER_BYTES + 7] ^= 1;
        assert_eq!(
            Network::from_bytes(&damaged).err(),
            Some(NetworkError::Hash)
        );
    }
}
