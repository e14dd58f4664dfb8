//! Placeholder: filled in by issue 6.
