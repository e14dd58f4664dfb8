//! The uniqueness rules a whole model must meet (`spec/onemodel.md` §2.1, §2.8), shared by
//! the manifest reader (§2), the ONNX reader (§6.2) and the writer (§4), each answered by
//! [`crate::unique::first_repeat`].

use super::manifest::normal_domain;
use super::model::{Function, OperatorSet};
use crate::unique::{Key, first_repeat};

/// §2.1: the index of the first operator set whose domain (`""` and `ai.onnx` being one)
/// an earlier set already has.
pub(crate) fn duplicate_opset(opsets: &[OperatorSet]) -> Option<usize> {
    fn domain(o: &OperatorSet) -> &str {
        normal_domain(&o.domain)
    }
    first_repeat(opsets, |o| Key::new(domain(o)).head(), domain)
}

/// §2.8: the index of the first function whose (domain, name, overload) an earlier function
/// already has.
pub(crate) fn duplicate_function(functions: &[Function<'_>]) -> Option<usize> {
    first_repeat(
        functions,
        |f| Key::new(&f.name).head(),
        |f| (f.name.as_str(), f.domain.as_str(), f.overload.as_str()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeSet;
    use alloc::vec::Vec;

    /// Every list of up to five elements from pools whose keys tie in their 8-byte heads,
    /// differ only past them, swap fields, or differ by `""` against `"ai.onnx"`: both rules
    /// give exactly the index one set insertion per element in reading order gives (the
    /// rules' former implementation, keyed `(domain, name, overload)`).
    #[test]
    fn both_rules_agree_with_one_insertion_per_element_on_every_short_list() {
        let domains = ["", "ai.onnx", "ai.onnx.ml", "\0", "abcdefgh1", "abcdefgh2"];
        let keys = [
            ("F", "", ""),
            ("F", "ai.onnx", ""),
            ("", "F", ""),
            ("F", "", "o"),
            ("abcdefgh1", "d", ""),
            ("abcdefgh2", "d", ""),
            ("abcdefgh", "1d", ""),
        ];
        let mut list = [0usize; 5];
        for len in 0..=list.len() {
            let total = keys.len().pow(len as u32);
            for code in 0..total {
                let mut c = code;
                for slot in list.iter_mut().take(len) {
                    *slot = c % keys.len();
                    c /= keys.len();
                }
                let picks = &list[..len];
                let opsets: Vec<OperatorSet> = picks
                    .iter()
                    .map(|&i| OperatorSet {
                        domain: domains[i % domains.len()].into(),
                        version: 1,
                    })
                    .collect();
                let mut seen = BTreeSet::new();
                let expected = opsets.iter().position(|o| !seen.insert(normal_domain(&o.domain)));
                assert_eq!(duplicate_opset(&opsets), expected, "{picks:?}");
                let functions: Vec<Function<'_>> = picks
                    .iter()
                    .map(|&i| Function {
                        name: keys[i].0.into(),
                        domain: keys[i].1.into(),
                        overload: keys[i].2.into(),
                        ..Function::default()
                    })
                    .collect();
                let mut seen = BTreeSet::new();
                let expected = functions
                    .iter()
                    .position(|f| !seen.insert((f.domain.as_str(), f.name.as_str(), f.overload.as_str())));
                assert_eq!(duplicate_function(&functions), expected, "{picks:?}");
            }
        }
    }

    #[test]
    fn opset_domains_ai_onnx_and_empty_are_one() {
        let set = |d: &str| OperatorSet {
            domain: d.into(),
            version: 1,
        };
        assert_eq!(duplicate_opset(&[set("a"), set(""), set("b"), set("ai.onnx")]), Some(3));
        assert_eq!(duplicate_opset(&[set("a"), set("ai.onnx.ml"), set("")]), None);
    }
}
