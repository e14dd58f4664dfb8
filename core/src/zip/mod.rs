//! Placeholder: filled in by issue 3.
