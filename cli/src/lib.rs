//! The command lines `modelgate` and `corpus-check`: argument parsing lives in the
//! binaries, the commands here only call `modelgate-io` and print (CONVENTIONS.md
//! "Command line").

pub mod commands;
pub mod mlbundle;
pub mod mpk;
pub mod mvb;
pub mod onemodel;
pub mod progress;
