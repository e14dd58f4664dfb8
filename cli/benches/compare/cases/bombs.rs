//! Decompression bombs against miniz_oxide (README "Goals missed", the hostile corpus):
//! the corpus's gzip bombs inflated to `modelgate check`'s 256 MiB bound with the CRC-32
//! of every byte, and 128 MiB of a p-byte period (the shape of a bomb whose matches have
//! distance p) inflated from one raw deflate stream, whole and broken by a changed byte
//! every 16 KiB (so that every byte is written). No goal: these rows say how far each
//! shape is from the 10 ms of the hostile goal, and that the peer is not closer.

use super::{Case, Imp, Mem};
use crate::measure::{fail, in_process};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
use modelgate_core::gzip::{GzipReason, gunzip};
use modelgate_core::inflate::{Inflater, OutputBound};
use std::path::Path;
use std::rc::Rc;

/// `modelgate check`'s bound on the output of a `.gz` file.
const GZ_LIMIT: u64 = 256 << 20;

/// The output of one period case.
const PERIOD_BYTES: usize = 128 << 20;

/// How often a broken period case changes a byte: less than the engine's buffer (the
/// default 64 KiB ring, the `fast-inflate` 96 KiB window).
const BREAK_EVERY: usize = 16 << 10;

/// The peer's output ring: miniz_oxide's wrapping mode needs a power of two at least as
/// large as deflate's 32 KiB window.
const RING: usize = 1 << 16;

/// A corpus bomb `path` (members with the plain 10-byte header, each under the bound, all
/// together over it): modelgate's `gunzip` against miniz_oxide with crc32fast, both
/// stopping once the output passes the bound.
pub fn gzip_bomb(path: &Path, name: &'static str) -> Case {
    let data = Rc::new(std::fs::read(path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display()))));
    let ours = Rc::clone(&data);
    Case {
        name,
        bytes: GZ_LIMIT,
        mem: Mem::Heap,
        imps: vec![
            Imp::new("modelgate gzip::gunzip, 256 MiB bound", move || {
                in_process(|| match gunzip(&ours, GZ_LIMIT, |_| {}) {
                    Err(e) if e.reason == GzipReason::LimitExceeded => {}
                    other => fail(&format!("the bomb was not stopped at the bound: {other:?}")),
                })
            }),
            Imp::new("miniz_oxide + crc32fast, same bound", move || {
                in_process(|| miniz_gzip_bound(&data, GZ_LIMIT))
            }),
        ],
        goals: Vec::new(),
    }
}

/// Inflates the members of `data` one after another into a 64 KiB ring, CRC-32 over every
/// byte, until more than `bound` bytes have come out; returns that count. Every member must
/// have the 10-byte header without optional fields (the corpus bombs do).
fn miniz_gzip_bound(data: &[u8], bound: u64) -> u64 {
    let mut ring = vec![0u8; RING];
    let mut total = 0u64;
    let mut at = 0usize;
    while total <= bound {
        if data.get(at..at + 4) != Some(&[0x1f, 0x8b, 8, 0][..]) {
            fail("the bomb ended under the bound, or a member has optional header fields");
        }
        let mut state = DecompressorOxide::new();
        let mut input = at + 10;
        let mut out = 0usize;
        let mut crc = crc32fast::Hasher::new();
        loop {
            let rest = data.get(input..).unwrap_or_default();
            let (status, used, wrote) = decompress(
                &mut state,
                rest,
                &mut ring,
                out,
                inflate_flags::TINFL_FLAG_HAS_MORE_INPUT,
            );
            crc.update(ring.get(out..out + wrote).unwrap_or_default());
            input += used;
            total += wrote as u64;
            out = (out + wrote) % RING;
            match status {
                _ if total > bound => return total,
                TINFLStatus::HasMoreOutput => {}
                TINFLStatus::Done => break,
                s => fail(&format!("miniz_oxide: {s:?}")),
            }
        }
        std::hint::black_box(crc.finalize());
        at = input + 8;
    }
    total
}

/// 128 MiB of a `period`-byte pattern, compressed by miniz_oxide at level 6 (every match
/// 258 bytes at distance `period`, once the first period is out): modelgate's `Inflater`
/// against miniz_oxide into a 64 KiB ring, both computing the CRC-32 of every byte (the
/// `Inflater` always does). The default `Inflater` is itself miniz_oxide's decompressor;
/// with `--features modelgate-core/fast-inflate` it is modelgate's own decoder, which
/// decodes a run of one period without writing it again (spec/inflate.md §2.7.1, §8.8).
/// With `broken`, one byte in every [`BREAK_EVERY`] is changed, so that no run spans the
/// window: every byte is then written and read for its CRC-32.
pub fn period(period: usize, broken: bool, name: &'static str) -> Case {
    let data: Vec<u8> = (0..PERIOD_BYTES)
        .map(|i| {
            let b = u8::try_from((i % period * 37 + 11) % 256).unwrap_or(0);
            if broken && i % BREAK_EVERY == BREAK_EVERY - 1 {
                b ^ 0x80
            } else {
                b
            }
        })
        .collect();
    let stream = Rc::new(miniz_oxide::deflate::compress_to_vec(&data, 6));
    drop(data);
    let ours = Rc::clone(&stream);
    Case {
        name,
        bytes: PERIOD_BYTES as u64,
        mem: Mem::Heap,
        imps: vec![
            Imp::new("modelgate Inflater", move || {
                in_process(|| {
                    let mut e = Inflater::new(OutputBound::Exact(PERIOD_BYTES as u64), false);
                    e.feed(&ours, false, |_| {})
                        .and_then(|_| e.finish(None))
                        .unwrap_or_else(|err| fail(&format!("{err:?}")))
                })
            }),
            Imp::new("miniz_oxide, 64 KiB ring", move || in_process(|| miniz_raw(&stream))),
        ],
        goals: Vec::new(),
    }
}

/// Inflates one raw deflate stream into a 64 KiB ring, CRC-32 over every byte; returns
/// the output length and the CRC-32.
fn miniz_raw(stream: &[u8]) -> (u64, u32) {
    let mut ring = vec![0u8; RING];
    let mut state = DecompressorOxide::new();
    let mut crc = crc32fast::Hasher::new();
    let (mut input, mut out, mut total) = (0usize, 0usize, 0u64);
    loop {
        let rest = stream.get(input..).unwrap_or_default();
        let (status, used, wrote) = decompress(&mut state, rest, &mut ring, out, 0);
        crc.update(ring.get(out..out + wrote).unwrap_or_default());
        input += used;
        total += wrote as u64;
        out = (out + wrote) % RING;
        match status {
            TINFLStatus::HasMoreOutput => {}
            TINFLStatus::Done => return (total, crc.finalize()),
            s => fail(&format!("miniz_oxide: {s:?}")),
        }
    }
}
