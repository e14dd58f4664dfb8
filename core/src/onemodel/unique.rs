//! The uniqueness rules a whole model must meet (`spec/onemodel.md` §2.1, §2.8), shared by
//! the ONNX reader (§6.2) and the writer (§4), which both hold a decoded [`Model`]. The
//! manifest reader applies the same keys while it parses, element by element.

use super::manifest::normal_domain;
use super::model::{Function, OperatorSet};
use alloc::collections::BTreeSet;

/// §2.1: the index of the first operator set whose domain (`""` and `ai.onnx` being one)
/// an earlier set already has.
pub(crate) fn duplicate_opset(opsets: &[OperatorSet]) -> Option<usize> {
    let mut seen = BTreeSet::new();
    opsets.iter().position(|o| !seen.insert(normal_domain(&o.domain)))
}

/// §2.8: the index of the first function whose (domain, name, overload) an earlier function
/// already has.
pub(crate) fn duplicate_function(functions: &[Function<'_>]) -> Option<usize> {
    let mut seen = BTreeSet::new();
    functions
        .iter()
        .position(|f| !seen.insert((f.domain.as_str(), f.name.as_str(), f.overload.as_str())))
}
