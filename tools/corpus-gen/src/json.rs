//! `hostile-corpus/json/`: one file per rule of `spec/json.md`, each named for the rule
//! and carrying the exact outcome (`valid`, or the reason and byte offset) that the tests
//! below assert through `modelgate_core::json`.

use crate::{CorpusFile, Expect, Kind};
use Expect::{Reject, Valid};
use modelgate_core::json::{Expected as E, Limits, Reason, Reason as R, Utf8Problem as U};

/// The outcome the library gives for `bytes` under the `.json` check limits.
pub fn outcome(bytes: &[u8]) -> Expect<Reason> {
    match modelgate_core::json::validate(bytes, Limits::DEFAULT) {
        Ok(()) => Valid,
        Err(e) => Reject(e.reason, e.offset as u64),
    }
}

fn nest(open: &str, close: &str, depth: usize, inner: &str) -> Vec<u8> {
    let mut s = open.repeat(depth);
    s.push_str(inner);
    s.push_str(&close.repeat(depth));
    s.into_bytes()
}

/// `{"k0":0,"k1":1,…}` with `n` members, then `extra` before the closing brace.
fn wide_object(n: usize, extra: &str) -> Vec<u8> {
    let mut s = String::from("{");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("\"k{i}\":{i}"));
    }
    s.push_str(extra);
    s.push('}');
    s.into_bytes()
}

/// An object of `n` members (`n` a power of two, at least 64) whose names all start their
/// probe in the first 64 slots of the duplicate table when it is hashed under the published
/// `DEFAULT_HASH_KEY`: under that key each insertion would walk all earlier names
/// (`spec/json.md` §5). A parser without a key of its own must not hash under it.
fn names_colliding_under_default_key(n: usize) -> Vec<u8> {
    use modelgate_core::json::{DEFAULT_HASH_KEY, siphash13};
    // n members fill a table of 2n slots at most half: its mask is 2n - 1.
    let mask = (2 * n as u64) - 1;
    let mut s = String::from("{");
    let mut c = 0u64;
    let mut members = 0;
    while members < n {
        let name = format!("{c:x}");
        c += 1;
        if siphash13(DEFAULT_HASH_KEY, name.as_bytes()) & mask < 64 {
            if members > 0 {
                s.push(',');
            }
            s.push_str(&format!("\"{name}\":0"));
            members += 1;
        }
    }
    s.push('}');
    s.into_bytes()
}

cases! {
    expect: Expect<Reason>;
    ext: "json";
    check: |case| assert_eq!(outcome(&case.bytes), case.expect);
    // §2 grammar: every value type at the top level.
    empty_object: "{}" => Valid;
    empty_array: "[]" => Valid;
    top_level_true: "true" => Valid;
    top_level_false: "false" => Valid;
    top_level_null: "null" => Valid;
    top_level_string: "\"a\"" => Valid;
    top_level_number: "-12.5e3" => Valid;
    all_whitespace_kinds: " \t\r\n{ \"a\" :\t[ 1 ,\r2 ]\n} \n" => Valid;
    nested_mixed: "{\"a\":[{\"b\":null},true,false,\"s\",0]}" => Valid;
    // §4 numbers.
    number_forms: "[0,-0,1,-1,10,0.5,-0.5,1e5,1E5,1e+5,1e-5,1.5E-10,0e0]" => Valid;
    number_huge_integer_kept: "[123456789012345678901234567890,-99999999999999999999]" => Valid;
    number_long_fraction: "0.00000000000000000000000000000000000000000000000000001" => Valid;
    // §3 strings and escapes.
    escapes_all_short_forms: "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"" => Valid;
    escape_unicode_mixed_case_hex: "\"\\u0041\\u00e9\\u00E9\\uABCD\"" => Valid;
    escape_nul_allowed: "\"\\u0000\"" => Valid;
    escape_surrogate_pair: "\"\\ud83d\\ude00\\uD83D\\uDE00\"" => Valid;
    escape_replacement_character: "\"\\uFFFD\"" => Valid;
    utf8_two_three_four_bytes: "\"é€😀\"" => Valid;
    utf8_last_scalar_before_plane16_noncharacters: "\"\u{10FFFD}\"" => Valid;
    utf8_around_fdd0_block: "\"\u{FDCF}\u{FDF0}\u{FFFD}\"" => Valid;
    utf8_line_separators_raw: "\"\u{2028}\u{2029}\"" => Valid;
    del_character_raw: "\"\u{7f}\"" => Valid;
    empty_name: "{\"\":1}" => Valid;
    // §5 duplicate names: only within one object, only when equal after unescaping.
    same_name_in_sibling_objects: "[{\"a\":1},{\"a\":2}]" => Valid;
    same_name_in_nested_object: "{\"a\":{\"a\":{\"a\":1}}}" => Valid;
    names_differ_after_unescaping: "{\"a\":1,\"\\u0062\":2}" => Valid;
    names_that_are_prefixes: "{\"a\":1,\"ab\":2,\"abc\":3,\"\":4}" => Valid;
    object_16_members: wide_object(16, "") => Valid;
    object_17_members: wide_object(17, "") => Valid;
    object_5000_members: wide_object(5000, "") => Valid;
    object_names_colliding_under_default_key: names_colliding_under_default_key(4096) => Valid;
    // §6 depth: exactly the limit is accepted.
    depth_1024_arrays: nest("[", "]", 1024, "") => Valid;
    depth_1024_objects: nest("{\"a\":", "}", 1023, "{}") => Valid;

    // §1 encoding.
    byte_order_mark: "\u{feff}{}" => Reject(R::ByteOrderMark, 0);
    utf8_invalid_after_byte_order_mark: b"\xEF\xBB\xBF[\"\xC3\"]".as_slice() => Reject(R::InvalidUtf8(U::Truncated), 5);
    empty_input: "" => Reject(R::UnexpectedEnd(E::Value), 0);
    whitespace_only: "  \n" => Reject(R::UnexpectedEnd(E::Value), 3);
    utf8_continuation_as_lead: b"\"a\x80\"".as_slice() => Reject(R::InvalidUtf8(U::InvalidLeadByte), 2);
    utf8_c0_overlong_two_bytes: b"\"\xC0\xAF\"".as_slice() => Reject(R::InvalidUtf8(U::InvalidLeadByte), 1);
    utf8_overlong_three_bytes: b"\"\xE0\x80\xAF\"".as_slice() => Reject(R::InvalidUtf8(U::Overlong), 1);
    utf8_overlong_four_bytes: b"\"\xF0\x80\x80\xAF\"".as_slice() => Reject(R::InvalidUtf8(U::Overlong), 1);
    utf8_encoded_high_surrogate: b"\"\xED\xA0\x80\"".as_slice() => Reject(R::InvalidUtf8(U::SurrogateEncoding), 1);
    utf8_encoded_low_surrogate: b"[\"x\xED\xBF\xBF\"]".as_slice() => Reject(R::InvalidUtf8(U::SurrogateEncoding), 3);
    utf8_above_u10ffff: b"\"\xF4\x90\x80\x80\"".as_slice() => Reject(R::InvalidUtf8(U::AboveMaximum), 1);
    utf8_f5_lead: b"\"\xF5\x80\x80\x80\"".as_slice() => Reject(R::InvalidUtf8(U::InvalidLeadByte), 1);
    utf8_ff_byte_outside_string: b"[\xFF]".as_slice() => Reject(R::InvalidUtf8(U::InvalidLeadByte), 1);
    utf8_truncated_by_ascii: b"\"\xE2\x82a\"".as_slice() => Reject(R::InvalidUtf8(U::Truncated), 1);
    utf8_truncated_at_end: b"\"\xF0\x9F\x98".as_slice() => Reject(R::InvalidUtf8(U::Truncated), 1);
    utf8_invalid_in_name: b"{\"\xC3\":1}".as_slice() => Reject(R::InvalidUtf8(U::Truncated), 2);
    // §3.4 I-JSON: no noncharacters, raw or escaped.
    noncharacter_raw_fffe: "\"a\u{FFFE}\"" => Reject(R::Noncharacter, 2);
    noncharacter_raw_ffff: "[\"\u{FFFF}\"]" => Reject(R::Noncharacter, 2);
    noncharacter_raw_fdd0: "\"\u{FDD0}\"" => Reject(R::Noncharacter, 1);
    noncharacter_raw_fdef: "\"\u{FDEF}\"" => Reject(R::Noncharacter, 1);
    noncharacter_raw_plane1: "\"\u{1FFFE}\"" => Reject(R::Noncharacter, 1);
    noncharacter_raw_plane16: "\"\u{10FFFF}\"" => Reject(R::Noncharacter, 1);
    noncharacter_escaped_ffff: "\"ab\\uFFFF\"" => Reject(R::Noncharacter, 3);
    noncharacter_escaped_fdd0: "\"\\ufdd0\"" => Reject(R::Noncharacter, 1);
    noncharacter_escaped_pair_1fffe: "\"\\uD83F\\uDFFE\"" => Reject(R::Noncharacter, 1);
    noncharacter_in_name: "{\"\\uFDD5\":1}" => Reject(R::Noncharacter, 2);
    // §3.2 control characters must be escaped.
    control_tab_raw: "\"a\tb\"" => Reject(R::ControlCharacter, 2);
    control_newline_raw: "[\"\n\"]" => Reject(R::ControlCharacter, 2);
    control_nul_raw: "\"\u{0}\"" => Reject(R::ControlCharacter, 1);
    control_1f_raw_in_name: "{\"\u{1f}\":0}" => Reject(R::ControlCharacter, 2);
    // §3.3 escapes.
    escape_unknown_letter: "\"\\x41\"" => Reject(R::InvalidEscape, 1);
    escape_single_quote: "\"\\'\"" => Reject(R::InvalidEscape, 1);
    escape_uppercase_u: "\"\\U0041\"" => Reject(R::InvalidEscape, 1);
    escape_bad_hex_digit: "\"\\u12G4\"" => Reject(R::InvalidEscape, 1);
    escape_short_hex_at_end: "\"\\u12" => Reject(R::InvalidEscape, 1);
    escape_backslash_at_end: "\"abc\\" => Reject(R::InvalidEscape, 4);
    escape_bad_hex_in_low_half: "\"\\uD83D\\uDE0Z\"" => Reject(R::InvalidEscape, 7);
    escape_unknown_letter_after_high_surrogate: "\"\\uD83D\\x41\"" => Reject(R::InvalidEscape, 7);
    escape_backslash_at_end_after_high_surrogate: "\"\\uD83D\\" => Reject(R::InvalidEscape, 7);
    // §3.4 surrogate escapes must pair high then low.
    surrogate_lone_high: "\"\\uD800\"" => Reject(R::UnpairedSurrogate, 1);
    surrogate_high_then_text: "\"\\uD800abcdef\"" => Reject(R::UnpairedSurrogate, 1);
    surrogate_high_then_high: "\"\\uD800\\uD800\"" => Reject(R::UnpairedSurrogate, 1);
    surrogate_high_then_short_escape: "\"\\uDBFF\\n\"" => Reject(R::UnpairedSurrogate, 1);
    surrogate_lone_low: "\"x\\uDC00\"" => Reject(R::UnpairedSurrogate, 2);
    surrogate_reversed_pair: "\"\\uDE00\\uD83D\"" => Reject(R::UnpairedSurrogate, 1);
    surrogate_high_at_end_of_name: "{\"\\udbff\":1}" => Reject(R::UnpairedSurrogate, 2);
    // §4.1 number grammar.
    number_leading_zero: "[01]" => Reject(R::InvalidNumber, 2);
    number_negative_leading_zero: "[-012]" => Reject(R::InvalidNumber, 3);
    number_minus_alone: "[-]" => Reject(R::InvalidNumber, 2);
    number_minus_space_digit: "[- 1]" => Reject(R::InvalidNumber, 2);
    number_dot_without_fraction: "[1.]" => Reject(R::InvalidNumber, 3);
    number_dot_then_exponent: "[1.e5]" => Reject(R::InvalidNumber, 3);
    number_exponent_without_digits: "[1e]" => Reject(R::InvalidNumber, 3);
    number_exponent_sign_without_digits: "[1E+]" => Reject(R::InvalidNumber, 4);
    number_leading_dot: "[.5]" => Reject(R::UnexpectedByte(E::Value), 1);
    number_leading_plus: "[+1]" => Reject(R::UnexpectedByte(E::Value), 1);
    number_hex: "[0x10]" => Reject(R::UnexpectedByte(E::CommaOrArrayEnd), 2);
    number_nan: "[NaN]" => Reject(R::UnexpectedByte(E::Value), 1);
    number_infinity: "[Infinity]" => Reject(R::UnexpectedByte(E::Value), 1);
    number_negative_infinity: "[-Infinity]" => Reject(R::InvalidNumber, 2);
    number_two_dots: "[1.5.3]" => Reject(R::UnexpectedByte(E::CommaOrArrayEnd), 4);
    // §2 literals are lowercase and exact.
    literal_truncated_true: "[tru]" => Reject(R::InvalidLiteral, 1);
    literal_truncated_null_at_end: "nul" => Reject(R::InvalidLiteral, 0);
    literal_capitalised: "[True]" => Reject(R::UnexpectedByte(E::Value), 1);
    literal_mixed_case: "[nulL]" => Reject(R::InvalidLiteral, 1);
    literal_with_suffix: "[falsey]" => Reject(R::UnexpectedByte(E::CommaOrArrayEnd), 6);
    // §2 structure.
    array_trailing_comma: "[1,]" => Reject(R::UnexpectedByte(E::Value), 3);
    array_leading_comma: "[,1]" => Reject(R::UnexpectedByte(E::Value), 1);
    array_missing_comma: "[1 2]" => Reject(R::UnexpectedByte(E::CommaOrArrayEnd), 3);
    array_unclosed: "[1" => Reject(R::UnexpectedEnd(E::CommaOrArrayEnd), 2);
    array_closed_by_brace: "[1}" => Reject(R::UnexpectedByte(E::CommaOrArrayEnd), 2);
    array_empty_closed_by_brace: "[}" => Reject(R::UnexpectedByte(E::Value), 1);
    object_trailing_comma: "{\"a\":1,}" => Reject(R::UnexpectedByte(E::Name), 7);
    object_missing_colon: "{\"a\" 1}" => Reject(R::UnexpectedByte(E::Colon), 5);
    object_missing_value: "{\"a\":}" => Reject(R::UnexpectedByte(E::Value), 5);
    object_missing_comma: "{\"a\":1 \"b\":2}" => Reject(R::UnexpectedByte(E::CommaOrObjectEnd), 7);
    object_unquoted_name: "{a:1}" => Reject(R::UnexpectedByte(E::Name), 1);
    object_single_quoted_name: "{'a':1}" => Reject(R::UnexpectedByte(E::Name), 1);
    object_number_name: "{1:1}" => Reject(R::UnexpectedByte(E::Name), 1);
    object_unclosed: "{\"a\":1" => Reject(R::UnexpectedEnd(E::CommaOrObjectEnd), 6);
    object_closed_by_bracket: "{]" => Reject(R::UnexpectedByte(E::Name), 1);
    object_name_at_end: "{\"a\"" => Reject(R::UnexpectedEnd(E::Colon), 4);
    string_unterminated: "\"abc" => Reject(R::UnexpectedEnd(E::StringEnd), 4);
    trailing_second_value: "{}{}" => Reject(R::TrailingContent, 2);
    trailing_number_after_space: "1 2" => Reject(R::TrailingContent, 2);
    trailing_nul_byte: "{}\u{0}" => Reject(R::TrailingContent, 2);
    trailing_comma_after_value: "[] ," => Reject(R::TrailingContent, 3);
    comment_line_before_value: "// c\n{}" => Reject(R::UnexpectedByte(E::Value), 0);
    comment_block_after_value: "{}/*c*/" => Reject(R::TrailingContent, 2);
    whitespace_form_feed: "\u{c}{}" => Reject(R::UnexpectedByte(E::Value), 0);
    whitespace_vertical_tab: "[1,\u{b}2]" => Reject(R::UnexpectedByte(E::Value), 3);
    whitespace_no_break_space: "[\u{a0}]" => Reject(R::UnexpectedByte(E::Value), 1);
    // §5 duplicate names, compared after unescaping.
    duplicate_name: "{\"a\":1,\"a\":2}" => Reject(R::DuplicateName, 7);
    duplicate_name_escaped_letter: "{\"a\":1,\"\\u0061\":2}" => Reject(R::DuplicateName, 7);
    duplicate_name_both_escaped: "{\"\\n\":1,\"\\u000a\":2}" => Reject(R::DuplicateName, 8);
    duplicate_name_escaped_slash: "{\"/\":1,\"\\/\":2}" => Reject(R::DuplicateName, 7);
    duplicate_name_surrogate_pair_vs_raw: "{\"😀\":1,\"\\ud83d\\ude00\":2}" => Reject(R::DuplicateName, 10);
    duplicate_name_empty: "{\"\":1,\"\":2}" => Reject(R::DuplicateName, 6);
    duplicate_name_escaped_quote: "{\"a\\\"\":1,\"a\\u0022\":2}" => Reject(R::DuplicateName, 9);
    duplicate_name_nested: "[{\"x\":{\"b\":1,\"c\":2,\"b\":3}}]" => Reject(R::DuplicateName, 19);
    duplicate_name_not_adjacent: "{\"a\":1,\"b\":2,\"c\":3,\"a\":4}" => Reject(R::DuplicateName, 19);
    duplicate_name_after_nested_object: "{\"a\":{\"a\":1},\"a\":2}" => Reject(R::DuplicateName, 13);
    // The duplicate's opening quote follows the comma that `wide_object` inserts `extra` at.
    duplicate_name_in_hashed_object: wide_object(40, ",\"k7\":0") => Reject(R::DuplicateName, wide_object(40, "").len() as u64);
    duplicate_name_at_switch_to_hashing: wide_object(16, ",\"k0\":0") => Reject(R::DuplicateName, wide_object(16, "").len() as u64);
    duplicate_name_escaped_in_hashed_object: wide_object(300, ",\"k\\u0032\\u0039\\u0039\":0") => Reject(R::DuplicateName, wide_object(300, "").len() as u64);
    // §5.1: a validation's table stops growing at 1,024 names; when the object closes, a
    // later name that repeats a table name is found by looking each later name up in the
    // table (up to 1,024 of them) or each table name up among the later ones (more), one
    // that repeats a later name by the sort, and that repeat is reported before a failure
    // that follows it.
    duplicate_name_of_a_table_name_after_1024_members: wide_object(1100, ",\"k5\":0") => Reject(R::DuplicateName, wide_object(1100, "").len() as u64);
    duplicate_name_of_a_table_name_after_3000_members: wide_object(3000, ",\"k5\":0") => Reject(R::DuplicateName, wide_object(3000, "").len() as u64);
    duplicate_name_among_names_after_1024_members: wide_object(1100, ",\"k1050\":0") => Reject(R::DuplicateName, wide_object(1100, "").len() as u64);
    duplicate_name_after_1024_members_before_a_bad_literal: wide_object(1100, ",\"k\\u0031050\":0,\"x\":tru") => Reject(R::DuplicateName, wide_object(1100, "").len() as u64);
    // §6 limits.
    depth_1025_arrays: nest("[", "]", 1025, "") => Reject(R::TooDeep, 1024);
    depth_1025_objects: nest("{\"a\":", "}", 1024, "{}") => Reject(R::TooDeep, 1024 * 5);
    depth_1025_mixed: nest("[{\"a\":", "}]", 512, "[]") => Reject(R::TooDeep, 512 * 6);
}

/// The corpus files of this module.
pub fn files() -> Vec<CorpusFile> {
    cases().iter().map(|c| c.file("json")).collect()
}

impl Kind for Reason {
    fn kind(self, _: u64) -> &'static str {
        Reason::kind(self).name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_sixty_cases_with_distinct_names() {
        crate::assert_enough_distinct(cases().iter().map(|c| c.name), 60);
    }

    #[test]
    fn every_reason_has_a_case() {
        let all = cases();
        let has = |f: &dyn Fn(Reason) -> bool| all.iter().any(|c| matches!(c.expect, Reject(r, _) if f(r)));
        assert!(has(&|r| r == R::ByteOrderMark));
        assert!(has(&|r| matches!(r, R::InvalidUtf8(_))));
        assert!(has(&|r| r == R::Noncharacter));
        assert!(has(&|r| r == R::ControlCharacter));
        assert!(has(&|r| r == R::InvalidEscape));
        assert!(has(&|r| r == R::UnpairedSurrogate));
        assert!(has(&|r| r == R::InvalidNumber));
        assert!(has(&|r| r == R::InvalidLiteral));
        assert!(has(&|r| matches!(r, R::UnexpectedByte(_))));
        assert!(has(&|r| matches!(r, R::UnexpectedEnd(_))));
        assert!(has(&|r| r == R::TrailingContent));
        assert!(has(&|r| r == R::DuplicateName));
        assert!(has(&|r| r == R::TooDeep));
    }
}
