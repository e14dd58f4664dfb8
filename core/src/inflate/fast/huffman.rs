//! Canonical Huffman decode tables for raw deflate (`spec/inflate.md` §2.2; RFC 1951
//! §3.2.2): one lookup of the next `root` bits gives a leaf, or a pointer to a
//! second-level table for the few codes longer than `root` bits.

use crate::invariant;

/// Entry layout (a `u32`): bits 0–4 the code length to consume (bit 5 is always clear,
/// so a 64-bit shift by the whole entry consumes the code), bits 6–8 the kind, bits
/// 10–14 the extra bits that follow (or a subtable's index bits), bits 16–31 the value
/// (a literal byte, a length or distance base, or a subtable's start).
pub(crate) const LEN_MASK: u32 = 0x1F;
/// A literal byte (or, in the code-length table, a code-length symbol).
pub(crate) const LITERAL: u32 = 0 << 6;
/// A length (literal/length table) or a distance (distance table) base.
pub(crate) const BASE: u32 = 1 << 6;
/// The end-of-block symbol 256.
pub(crate) const END: u32 = 2 << 6;
/// A pointer to a second-level table.
pub(crate) const SUBTABLE: u32 = 3 << 6;
/// No symbol: an unused code of an incomplete code, or literal/length symbols 286 and
/// 287, or distance symbols 30 and 31 (§2.2).
pub(crate) const INVALID: u32 = 4 << 6;
/// Mask of the kind bits.
pub(crate) const KIND_MASK: u32 = 7 << 6;
/// Set on a literal entry that holds two literals (value bits 16–23 and 24–31) whose
/// codes together fit the root bits; bits 10–14 then give the first code's length.
pub(crate) const PAIR: u32 = 1 << 9;
/// Where the extra-bit count starts.
pub(crate) const EXTRA_SHIFT: u32 = 10;

/// Root bits of the literal/length table.
pub(crate) const LITLEN_ROOT: u32 = 12;
/// Root bits of the distance table.
pub(crate) const DIST_ROOT: u32 = 8;
/// Root bits of the code-length table (its codes are at most 7 bits long).
pub(crate) const CODELEN_ROOT: u32 = 7;
/// Entries a literal/length table can need: 2^12 root entries plus its second-level
/// tables. Each of those holds at least one of the at most 288 codes longer than 12
/// bits and has at most 2^(15 - 12) entries, so together at most 288 × 8 (a safe
/// bound; zlib's `enough` program gives the exact one).
pub(crate) const LITLEN_ENOUGH: usize = (1 << LITLEN_ROOT) + 288 * 8;
/// The same for a distance code of at most 32 symbols with an 8-bit root: zlib's
/// `enough 32 8 15`.
pub(crate) const DIST_ENOUGH: usize = 402;
/// A 7-bit code-length table has no second level.
pub(crate) const CODELEN_ENOUGH: usize = 1 << CODELEN_ROOT;

const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];

/// An entry of `kind` for a code of `len` bits.
const fn entry(kind: u32, len: u32, extra: u32, value: u32) -> u32 {
    (value << 16) | (extra << EXTRA_SHIFT) | kind | len
}

/// Which alphabet a table decodes; gives each symbol's leaf entry (RFC 1951 §3.2.5).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alphabet {
    /// Literal/length symbols 0–287.
    LitLen,
    /// Distance symbols 0–31.
    Dist,
    /// Code-length symbols 0–18.
    CodeLen,
}

impl Alphabet {
    fn leaf(self, symbol: usize, len: u32) -> u32 {
        match self {
            Alphabet::LitLen => match symbol {
                0..=255 => entry(LITERAL, len, 0, as_u32(symbol)),
                256 => entry(END, len, 0, 0),
                _ => match (LENGTH_BASE.get(symbol - 257), LENGTH_EXTRA.get(symbol - 257)) {
                    (Some(&b), Some(&x)) => entry(BASE, len, u32::from(x), u32::from(b)),
                    // spec/inflate.md §2.2: symbols 286 and 287 are invalid.
                    _ => entry(INVALID, len, 0, 0),
                },
            },
            Alphabet::Dist => match (DIST_BASE.get(symbol), DIST_EXTRA.get(symbol)) {
                (Some(&b), Some(&x)) => entry(BASE, len, u32::from(x), u32::from(b)),
                // spec/inflate.md §2.2: distance symbols 30 and 31 are invalid.
                _ => entry(INVALID, len, 0, 0),
            },
            Alphabet::CodeLen => entry(LITERAL, len, 0, as_u32(symbol)),
        }
    }

    /// May this code be incomplete (§2.2)? Only literal/length and distance codes, and
    /// only with no code or a single one-bit code.
    fn incomplete_allowed(self, total: u32, one_bit: u32) -> bool {
        self != Alphabet::CodeLen && (total == 0 || (total == 1 && one_bit == 1))
    }
}

/// Builds the decode table of the canonical code with code lengths `lens` (each at
/// most 15) into `table` (RFC 1951 §3.2.2). Returns false when the code is
/// over-subscribed or incomplete beyond what §2.2 allows, or (never for a code of at
/// most 15 bits) when `table` is too small.
pub(crate) fn build(table: &mut [u32], root: u32, lens: &[u8], alphabet: Alphabet) -> bool {
    if !build_single(table, root, lens, alphabet) {
        return false;
    }
    if alphabet == Alphabet::LitLen && pairs_can_fit(lens, root) {
        pair_literals(table, root);
    }
    true
}

/// [`build`] without the literal pairs: every entry holds one symbol.
fn build_single(table: &mut [u32], root: u32, lens: &[u8], alphabet: Alphabet) -> bool {
    let mut count = [0u32; 16];
    for &len in lens {
        if let Some(c) = count.get_mut(usize::from(len)) {
            *c += 1;
        }
    }
    // spec/inflate.md §2.2: over-subscribed codes are invalid.
    let mut left: i64 = 1;
    for &c in count.iter().skip(1) {
        left = (left << 1) - i64::from(c);
        if left < 0 {
            return false;
        }
    }
    let total: u32 = count.iter().skip(1).sum();
    let root_size = 1usize << root;
    if left > 0 {
        // spec/inflate.md §2.2: incomplete codes only as RFC 1951 §3.2.7 and zlib allow.
        if !alphabet.incomplete_allowed(total, count[1]) {
            return false;
        }
        match table.get_mut(..root_size) {
            Some(t) => t.fill(entry(INVALID, 1, 0, 0)),
            None => return false,
        }
    }
    fill(table, root, lens, &count, alphabet)
}

/// Whether two literal codes can fit `root` bits together: twice the shortest literal
/// code's length is at most `root`. When none can, [`pair_literals`] would change no
/// entry, and its pass over the root table is skipped (a code for data that compresses
/// little, whose literal codes are all 7 bits or longer).
fn pairs_can_fit(lens: &[u8], root: u32) -> bool {
    let shortest = lens.iter().take(256).filter(|&&l| l > 0).min();
    shortest.is_some_and(|&l| 2 * u32::from(l) <= root)
}

/// Turns each root entry whose bits hold a literal followed by a whole second literal
/// into a [`PAIR`] entry, so one lookup yields both. Runs from the top index down:
/// the entry for the bits after the first code (`index >> len`) is always below, so
/// still a single-symbol entry.
fn pair_literals(table: &mut [u32], root: u32) {
    for index in (0..1usize << root).rev() {
        let Some(&first) = table.get(index) else {
            continue;
        };
        if first & KIND_MASK != LITERAL {
            continue;
        }
        let n1 = first & LEN_MASK;
        let Some(&second) = table.get(index >> n1) else {
            continue;
        };
        let n2 = second & LEN_MASK;
        if second & KIND_MASK != LITERAL || n1 + n2 > root {
            continue;
        }
        let value = ((first >> 16) & 0xFF) | (((second >> 16) & 0xFF) << 8);
        if let Some(e) = table.get_mut(index) {
            *e = (value << 16) | (n1 << EXTRA_SHIFT) | PAIR | LITERAL | (n1 + n2);
        }
    }
}

/// Writes the entries of a code already checked by [`build`].
fn fill(table: &mut [u32], root: u32, lens: &[u8], count: &[u32; 16], alphabet: Alphabet) -> bool {
    // Symbols sorted by (length, symbol): canonical order (RFC 1951 §3.2.2).
    let mut start = [0u16; 16];
    let mut acc = 0u16;
    for (s, &c) in start.iter_mut().zip(count.iter()).skip(1) {
        *s = acc;
        acc = acc.saturating_add(u16::try_from(c).unwrap_or(u16::MAX));
    }
    let mut sorted = [0u16; 288];
    let mut next = start;
    for (symbol, &len) in lens.iter().enumerate() {
        if len == 0 {
            continue;
        }
        if let Some(n) = next.get_mut(usize::from(len)) {
            if let Some(slot) = sorted.get_mut(usize::from(*n)) {
                *slot = u16::try_from(symbol).unwrap_or(0);
            }
            *n += 1;
        }
    }
    let sorted = invariant::sub(&sorted, ..usize::from(acc));
    let root_size = 1usize << root;
    // Codes are placed shortest first; before the codes of each longer length the
    // filled part of the table is doubled, which repeats every shorter code's entry at
    // each index whose low bits are that code.
    let mut size = 1usize;
    let mut code = 0u32;
    let mut len = 0u32;
    for &symbol in sorted {
        len = next_length(lens, symbol, len, &mut code);
        let rev = reverse(code, len);
        if len <= root {
            if !double_to(table, &mut size, 1 << len) {
                return false;
            }
            if let Some(e) = table.get_mut(rev as usize) {
                *e = alphabet.leaf(usize::from(symbol), len);
            }
        }
        code += 1;
    }
    if !double_to(table, &mut size, root_size) {
        return false;
    }
    if count.iter().skip(root as usize + 1).all(|&c| c == 0) {
        return true;
    }
    second_level(table, root, lens, sorted, count, alphabet)
}

/// Steps the canonical code to `symbol`, the next in canonical order after a code of
/// `len` bits: shifts `code` left by the growth in length (RFC 1951 §3.2.2; the caller
/// adds one after each code). Returns the symbol's code length.
#[inline(always)]
fn next_length(lens: &[u8], symbol: u16, len: u32, code: &mut u32) -> u32 {
    let l = u32::from(invariant::item(lens, usize::from(symbol)));
    *code <<= l.saturating_sub(len);
    l
}

/// Doubles the filled start of `table` until it is `want` entries long.
fn double_to(table: &mut [u32], size: &mut usize, want: usize) -> bool {
    while *size < want {
        let Some(end) = size.checked_mul(2).filter(|&e| e <= table.len()) else {
            return false;
        };
        table.copy_within(..*size, *size);
        *size = end;
    }
    true
}

/// Fills the second-level tables of the codes longer than `root` bits.
fn second_level(
    table: &mut [u32],
    root: u32,
    lens: &[u8],
    sorted: &[u16],
    count: &[u32; 16],
    alphabet: Alphabet,
) -> bool {
    let root_size = 1usize << root;
    let mut remaining = *count;
    let mut free = root_size;
    let mut current: Option<(usize, usize, u32)> = None; // (prefix, start, bits)
    let mut code = 0u32;
    let mut len = 0u32;
    for &symbol in sorted {
        len = next_length(lens, symbol, len, &mut code);
        let this = code;
        code += 1;
        if len <= root {
            continue;
        }
        let rev = reverse(this, len) as usize;
        let prefix = rev & (root_size - 1);
        let (start, bits) = match current {
            Some((p, s, b)) if p == prefix => (s, b),
            _ => {
                let bits = subtable_bits(&remaining, len, root);
                let start = free;
                free += 1 << bits;
                if free > table.len() || start > 0xFFFF {
                    return false;
                }
                if let Some(e) = table.get_mut(prefix) {
                    *e = entry(SUBTABLE, root, bits, as_u32(start));
                }
                current = Some((prefix, start, bits));
                (start, bits)
            }
        };
        let leaf = alphabet.leaf(usize::from(symbol), len);
        let mut i = rev >> root;
        while i < 1 << bits {
            if let Some(e) = table.get_mut(start + i) {
                *e = leaf;
            }
            i += 1 << (len - root);
        }
        if let Some(r) = remaining.get_mut(len as usize) {
            *r = r.saturating_sub(1);
        }
    }
    true
}

/// Index bits of the second-level table that starts with a code of `len` bits: the
/// codes still to place, shortest first, fill a subtree of that depth exactly (the code
/// is complete whenever it has codes longer than the root; zlib sizes its tables so).
fn subtable_bits(remaining: &[u32; 16], len: u32, root: u32) -> u32 {
    let mut bits = len - root;
    let mut left: i64 = 1 << bits;
    while bits + root < 15 {
        left -= i64::from(remaining.get((bits + root) as usize).copied().unwrap_or(0));
        if left <= 0 {
            break;
        }
        bits += 1;
        left <<= 1;
    }
    bits
}

/// A symbol or table index (always far below 2^32) as an entry value.
fn as_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

/// The low `len` bits of `code`, reversed: deflate sends Huffman codes most
/// significant bit first into a least-significant-bit-first stream.
fn reverse(code: u32, len: u32) -> u32 {
    if len == 0 { 0 } else { code.reverse_bits() >> (32 - len) }
}

/// The fixed literal/length code lengths of RFC 1951 §3.2.6.
pub(crate) fn fixed_litlen() -> [u8; 288] {
    let mut lens = [8u8; 288];
    for (i, l) in lens.iter_mut().enumerate() {
        *l = match i {
            0..=143 => 8,
            144..=255 => 9,
            256..=279 => 7,
            _ => 8,
        };
    }
    lens
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_docs::Rng;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Code lengths of a complete code over `symbols` of the 286 valid literal/length
    /// symbols, from the full tree of depth `depth` grown by splitting pseudorandom leaves
    /// (depth at most 15), its lengths given to the symbols in a pseudorandom order.
    fn random_code(rng: &mut Rng, depth: u8, symbols: usize) -> Vec<u8> {
        let mut next = || rng.next_u64();
        let mut leaves: Vec<u8> = vec![depth; 1 << depth];
        while leaves.len() < symbols {
            let i = (next() % leaves.len() as u64) as usize;
            if leaves[i] < 15 {
                let d = leaves[i] + 1;
                leaves[i] = d;
                leaves.push(d);
            }
        }
        let mut lens = vec![0u8; 288];
        let mut order: Vec<usize> = (0..286).collect();
        for k in (1..order.len()).rev() {
            order.swap(k, (next() % (k as u64 + 1)) as usize);
        }
        for (&symbol, &d) in order.iter().zip(&leaves) {
            lens[symbol] = d;
        }
        lens
    }

    /// Skipping the pairing pass when no two literal codes fit the root never changes a
    /// table: for random complete codes of 2 to 286 symbols grown from the root, and of
    /// 128 to 286 and 256 to 286 symbols whose codes are all 7 or 8 bits or longer (as for
    /// data that compresses little), the table built is the one the pass over every root
    /// entry gives.
    #[test]
    fn skipping_the_pair_pass_changes_no_table() {
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        let mut skipped = 0;
        for round in 0..600 {
            let (depth, fewest) = [(0, 2), (7, 128), (8, 256)][round % 3];
            let lens = random_code(&mut rng, depth, fewest + round % (287 - fewest));
            let mut built = vec![0u32; LITLEN_ENOUGH];
            assert!(build(&mut built, LITLEN_ROOT, &lens, Alphabet::LitLen));
            let mut paired = vec![0u32; LITLEN_ENOUGH];
            assert!(build_single(&mut paired, LITLEN_ROOT, &lens, Alphabet::LitLen));
            pair_literals(&mut paired, LITLEN_ROOT);
            assert!(built == paired, "round {round}");
            skipped += usize::from(!pairs_can_fit(&lens, LITLEN_ROOT));
        }
        // Both branches ran.
        assert!(skipped > 0 && skipped < 600, "{skipped}");
    }

    #[test]
    fn pairs_fit_only_when_the_shortest_literal_code_is_half_the_root() {
        let mut lens = vec![0u8; 288];
        assert!(!pairs_can_fit(&lens, 12));
        lens[256] = 1;
        assert!(!pairs_can_fit(&lens, 12), "the end-of-block code is no literal");
        lens[65] = 7;
        assert!(!pairs_can_fit(&lens, 12));
        lens[66] = 6;
        assert!(pairs_can_fit(&lens, 12));
    }
}
