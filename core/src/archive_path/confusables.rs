//! Unicode look-alikes of `/`, `\` and `.`, and default-ignorable code points
//! (`spec/mpk.md` §2.4, §2.5).

/// Slash and backslash confusables, rejected anywhere in a path (§2.4).
pub(crate) const SLASHES: &[char] = &[
    '\u{2044}', '\u{2215}', '\u{2216}', '\u{2571}', '\u{2572}', '\u{29F5}', '\u{29F8}', '\u{29F9}', '\u{3033}',
    '\u{FE68}', '\u{FF0F}', '\u{FF3C}', '\u{1735}', '\u{27CB}', '\u{27CD}',
];

/// Dot confusables (§2.5).
pub(crate) const DOTS: &[char] = &[
    '\u{2024}',
    '\u{2025}',
    '\u{2026}',
    '\u{FE52}',
    '\u{FF0E}',
    '\u{3002}',
    '\u{FF61}',
    '\u{0701}',
    '\u{0702}',
    '\u{A60E}',
    '\u{10A50}',
    '\u{1D16D}',
];

/// The dot look-alikes that the MPK loader rewrites to `.` before it checks a path, rejected
/// anywhere in a path (§2.4): `v1\u{FF0E}0.json` would be `v1.0.json` to that reader.
pub(crate) const REWRITTEN_DOTS: &[char] = &['\u{FF0E}', '\u{2024}', '\u{FE52}'];

/// True for a slash or backslash confusable (§2.4).
pub(crate) fn is_slash_confusable(c: char) -> bool {
    SLASHES.contains(&c)
}

/// True for a dot look-alike that another reader rewrites to `.` (§2.4).
pub(crate) fn is_rewritten_dot(c: char) -> bool {
    REWRITTEN_DOTS.contains(&c)
}

/// True for a dot confusable (§2.5).
pub(crate) fn is_dot_confusable(c: char) -> bool {
    DOTS.contains(&c)
}

/// True for a default-ignorable code point that renders as nothing (§2.5).
pub(crate) fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
    )
}
