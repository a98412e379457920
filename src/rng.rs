//! The project's one random number generator, SplitMix64: small, fast,
//! and with a stream per seed and game number that tools can reproduce.
//! Not for anything that needs unpredictability.

/// SplitMix64's output function: a bijective 64-bit mixer.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A small deterministic random number generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of game (or opening) `game` of a run with seed `seed`.
    /// The streams of different games start at unrelated points.
    pub fn for_game(seed: u64, game: u64) -> Rng {
        Rng(mix64(
            mix64(seed) ^ mix64(game.wrapping_add(0x5851_F42D_4C95_7F2D)),
        ))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// A generator seeded from the clock, for choices that need variety
    /// between runs (the strength limit's), not repeatability.
    pub fn from_clock() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        // The clock's high bits barely change between moves: mix them all.
        Rng(mix64(nanos))
    }

    /// A number in `0..1`, with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `0..n` (n > 0); the bias is below n / 2^64.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_uniform_enough() {
        let mut a = Rng::for_game(7, 3);
        let mut b = Rng::for_game(7, 3);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        // Other games and seeds get other streams.
        assert_ne!(Rng::for_game(7, 4).next_u64(), xs[0]);
        assert_ne!(Rng::for_game(8, 3).next_u64(), xs[0]);
        // Game k+1 is not game k shifted by one draw (a plain counter seed would be).
        assert_ne!(Rng::for_game(7, 4).next_u64(), xs[1]);

        let mut rng = Rng::new(1);
        let mut counts = [0u32; 20];
        for _ in 0..20_000 {
            counts[rng.below(20)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn uniform_stays_in_the_unit_interval() {
        let mut rng = Rng::new(3);
        let draws: Vec<f64> = (0..10_000).map(|_| rng.uniform()).collect();
        assert!(draws.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((0.48..0.52).contains(&mean), "{mean}");
    }
}
