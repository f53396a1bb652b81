//! A tiny deterministic PRNG (xorshift) for randomised tests: seeded explicitly, or from the
//! clock with the seed printed so a failure can be replayed.

pub struct Rng(pub u64);

impl Rng {
    /// Seeded from the clock; the seed is printed.
    pub fn new() -> Rng {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            | 1;
        eprintln!("crash test seed: {seed}");
        Rng(seed)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}
