//! The command lines `modelgate` and `corpus-check`: argument parsing lives in the
//! binaries, the commands here only call `modelgate-io` and print (README "Checking files").
//!
//! - [`output`]: where results and errors go, `--json` lines, exit status.
//! - [`paths`]: the checks of a writing command's input and output paths before it starts.
//! - [`commands`]: `check`, `inspect`, `corpus-check`.
//! - [`mlbundle`], [`mpk`], [`mvb`], [`onemodel`]: the writing commands of each format.
//! - [`progress`]: progress on stderr when it is a terminal.

pub mod commands;
pub mod mlbundle;
pub mod mpk;
pub mod mvb;
pub mod onemodel;
pub mod output;
pub mod paths;
pub mod progress;
