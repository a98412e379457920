//! The network file and the forward pass.
//!
//! File layout, little-endian:
//!
//! ```text
//! 0   8  magic "KIRALYNN"
//! 8   4  format version (1)
//! 12  4  inputs per bucket (768)
//! 16  4  hidden width
//! 20  4  king buckets
//! 24 32  bucket layout (king square, oriented and mirrored, to bucket)
//! 56  4  QA    60 4 QB    64 4 SCALE
//! 68  8  FNV-1a 64 hash of the parameter bytes that follow
//! 76     feature weights  i16 [buckets * 768][hidden]
//!        feature biases   i16 [hidden]
//!        output weights   i16 [2 * hidden] (side to move's half first)
//!        output bias      i32
//! ```

use super::features::bucket_count;
use super::simd::screlu_dot;
use super::{BucketLayout, HIDDEN, INPUTS, QA, QB, SCALE};

pub const MAGIC: &[u8; 8] = b"KIRALYNN";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 76;
/// Output weights stay within this (the trainer clips them to +-1.98 before
/// quantising by QB = 256: at most 507), so the forward pass's 16-bit
/// products and i32 sums cannot overflow (see `simd`).
pub const MAX_OUTPUT_WEIGHT: u16 = 512;

/// Why a network file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkError {
    Truncated { expected: usize, found: usize },
    NotANetwork,
    Version(u32),
    Architecture(String),
    Hash,
}

impl std::fmt::Display for NetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetworkError::Truncated { expected, found } => {
                write!(
                    f,
                    "truncated: {found} bytes, the architecture needs {expected}"
                )
            }
            NetworkError::NotANetwork => write!(f, "not a Kiraly network (bad magic)"),
            NetworkError::Version(v) => write!(f, "format version {v}, expected {VERSION}"),
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
    pub feature_weights: Vec<[i16; HIDDEN]>,
    pub feature_bias: [i16; HIDDEN],
    pub output_weights: [[i16; HIDDEN]; 2],
    pub output_bias: i32,
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

/// The file size of a net of this build's width with `buckets` king buckets.
pub const fn file_bytes(buckets: usize) -> usize {
    HEADER_BYTES + 2 * (buckets * INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) + 4
}

impl std::fmt::Debug for Network {
    /// The identity, not 50 thousand weights.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Network({INPUTS}x{} -> {HIDDEN}, hash {:016x})",
            self.buckets(),
            self.hash
        )
    }
}

impl Network {
    /// The number of king buckets.
    pub fn buckets(&self) -> usize {
        self.feature_weights.len() / INPUTS
    }

    /// Reads a network file, checking magic, version, architecture, length
    /// and hash.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < HEADER_BYTES {
            if bytes.len() >= 8 && &bytes[..8] != MAGIC {
                return Err(NetworkError::NotANetwork);
            }
            return Err(NetworkError::Truncated {
                expected: file_bytes(1),
                found: bytes.len(),
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(NetworkError::NotANetwork);
        }
        let version = read_u32(bytes, 8);
        if version != VERSION {
            return Err(NetworkError::Version(version));
        }
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
        match bucket_count(&layout) {
            Ok(count) if count == buckets => {}
            Ok(count) => {
                return Err(NetworkError::Architecture(format!(
                    "{buckets} king buckets, but the layout uses {count}"
                )))
            }
            Err(why) => return Err(NetworkError::Architecture(why)),
        }
        if bytes.len() != file_bytes(buckets) {
            return Err(NetworkError::Truncated {
                expected: file_bytes(buckets),
                found: bytes.len(),
            });
        }
        let hash = u64::from_le_bytes(bytes[68..76].try_into().unwrap_or_default());
        let params = &bytes[HEADER_BYTES..];
        if fnv1a(params) != hash {
            return Err(NetworkError::Hash);
        }
        let mut values = params
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut next = || values.next().unwrap_or(0);
        let mut feature_weights = vec![[0i16; HIDDEN]; buckets * INPUTS];
        for column in feature_weights.iter_mut() {
            for w in column.iter_mut() {
                *w = next();
            }
        }
        let mut feature_bias = [0i16; HIDDEN];
        feature_bias.iter_mut().for_each(|b| *b = next());
        let mut output_weights = [[0i16; HIDDEN]; 2];
        for half in output_weights.iter_mut() {
            half.iter_mut().for_each(|w| *w = next());
        }
        // The forward pass sums in i32: output weights within the trainer's
        // clip keep it from overflowing.
        if output_weights
            .iter()
            .flatten()
            .any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(NetworkError::Architecture(format!(
                "an output weight beyond +-{MAX_OUTPUT_WEIGHT}"
            )));
        }
        let tail = &params[params.len() - 4..];
        let output_bias = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        Ok(Network {
            layout,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            hash,
        })
    }

    /// The file bytes of this network (the hash is recomputed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let size = file_bytes(self.buckets());
        let mut params = Vec::with_capacity(size - HEADER_BYTES);
        for column in &self.feature_weights {
            column
                .iter()
                .for_each(|w| params.extend_from_slice(&w.to_le_bytes()));
        }
        self.feature_bias
            .iter()
            .for_each(|b| params.extend_from_slice(&b.to_le_bytes()));
        for half in &self.output_weights {
            half.iter()
                .for_each(|w| params.extend_from_slice(&w.to_le_bytes()));
        }
        params.extend_from_slice(&self.output_bias.to_le_bytes());
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(MAGIC);
        for v in [VERSION, INPUTS as u32, HIDDEN as u32, self.buckets() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.layout);
        for v in [QA, QB, SCALE] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&fnv1a(&params).to_le_bytes());
        out.extend_from_slice(&params);
        out
    }

    /// The output in centipawns from the side to move's view, given the
    /// side to move's accumulator and the other side's.
    #[inline]
    pub fn output(&self, us: &[i16; HIDDEN], them: &[i16; HIDDEN]) -> i32 {
        let sum =
            screlu_dot(us, &self.output_weights[0]) + screlu_dot(them, &self.output_weights[1]);
        let raw = sum / i64::from(QA) + i64::from(self.output_bias);
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
        let mut feature_weights = vec![[0i16; HIDDEN]; buckets * INPUTS];
        for (i, column) in feature_weights.iter_mut().enumerate() {
            for (j, w) in column.iter_mut().enumerate() {
                *w = ((i * 31 + j * 7) % 61) as i16 - 30;
            }
        }
        Network {
            layout,
            feature_weights,
            feature_bias: [5; HIDDEN],
            output_weights: [[3; HIDDEN], [-2; HIDDEN]],
            output_bias: 1234,
            hash: 0,
        }
    }

    #[test]
    fn file_round_trip_and_refusals() {
        let net = sample();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_bytes(1));
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.feature_weights, net.feature_weights);
        assert_eq!(back.output_bias, 1234);
        assert_eq!(back.hash, fnv1a(&bytes[HEADER_BYTES..]));

        let cut = &bytes[..bytes.len() - 10];
        assert!(matches!(
            Network::from_bytes(cut),
            Err(NetworkError::Truncated { .. })
        ));
        assert!(matches!(
            Network::from_bytes(&bytes[..20]),
            Err(NetworkError::Truncated { .. })
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
        assert_eq!(bytes.len(), file_bytes(4));
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
        // Only the bias: 1234 * 400 / (255 * 64).
        assert_eq!(net.output(&zero, &zero), 1234 * SCALE / (QA * QB));
        // Values beyond QA clip to QA; negatives to 0.
        let high = [1000i16; HIDDEN];
        let low = [-1000i16; HIDDEN];
        let expected = (QA * QA * 3 * HIDDEN as i32 / QA + 1234) * SCALE / (QA * QB);
        assert_eq!(net.output(&high, &low), expected);
        assert_eq!(net.output(&[QA as i16; HIDDEN], &zero), expected);
    }
}
