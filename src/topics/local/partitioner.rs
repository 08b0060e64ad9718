//! Kafka's default partitioner for keyed records: `toPositive(murmur2(key)) % numPartitions`,
//! byte-exact with Java's `org.apache.kafka.common.utils.Utils.murmur2`, so a keyed record lands
//! on the partition a Java producer would choose.

/// Kafka's murmur2 hash of `data` (seed `0x9747b28c`), as the Java `int` it returns.
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let length = data.len();
    // Java: `int h = seed ^ length` (the length truncated to an int).
    let mut h: u32 = SEED ^ (length as u32);
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: clears the sign bit (not `abs`).
pub fn to_positive(n: i32) -> i32 {
    n & 0x7fff_ffff
}

/// The partition Kafka's default partitioner picks for a non-null `key` among `num_partitions`
/// (`num_partitions` must be positive; 0 is treated as 1).
pub fn partition_for_key(key: &[u8], num_partitions: u32) -> i32 {
    let n = num_partitions.max(1) as i32;
    to_positive(murmur2(key)) % n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors of Kafka's `UtilsTest.testMurmur2` (generated with the Java client).
    #[test]
    fn murmur2_matches_the_java_client() {
        let cases: [(&[u8], i32); 7] = [
            (b"21", -973_932_308),
            (b"foobar", -790_332_482),
            (&[12, 42, 56, 24, 109, 111], 274_204_207),
            (b"a-little-bit-long-string", -985_981_536),
            (b"a-little-bit-longer-string", -1_486_304_829),
            (
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            (b"abc", 479_470_107),
        ];
        for (key, expected) in cases {
            assert_eq!(
                murmur2(key),
                expected,
                "murmur2({:?})",
                String::from_utf8_lossy(key)
            );
        }
    }

    #[test]
    fn partition_uses_to_positive_modulo() {
        // toPositive(-790332482) = 1357151166; 1357151166 % 10 = 6.
        assert_eq!(to_positive(-790_332_482), 1_357_151_166);
        assert_eq!(partition_for_key(b"foobar", 10), 6);
        for n in 1..=12 {
            let p = partition_for_key(b"customer-42", n);
            assert!((0..n as i32).contains(&p));
        }
    }
}
