//! A hash that stays the same across platforms, Rust releases and runs, for names that must
//! (state directories, the order of a schedule): `std`'s `DefaultHasher` promises none of that.

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn fnv1a_gives_the_published_values() {
        // The reference values of the FNV test suite (Fowler, Noll, Vo).
        assert_eq!(super::fnv1a(b""), 0xCBF2_9CE4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xAF63_DC4C_8601_EC8C);
        assert_eq!(super::fnv1a(b"foobar"), 0x8594_4171_F739_67E8);
    }
}
