//! Placeholder: filled in by issue 4.
