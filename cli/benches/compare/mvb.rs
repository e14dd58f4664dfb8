//! mvb fixtures: a bundle folder (manifest with inventory and bundle hash, four weight
//! shards, config and tokenizer) and its export, made by `modelgate_io::mvb::export`.

use crate::data::{cached, write};
use crate::measure::fail;
use crate::payload::weights;
use modelgate_core::digest::{hex, sha256};
use modelgate_core::mvb::{bundle_hash, covers};
use std::path::{Path, PathBuf};

/// The bundle's id, which names its export and its vault folder.
pub const ID: &str = "bench--forest-1b@0123456789ab";

/// The bundle folder with `payload` bytes of shards.
pub fn bundle(dir: &Path, payload: usize) -> PathBuf {
    cached(&dir.join("bundle"), &format!("payload={payload}"), |p| {
        let mut files: Vec<(String, Vec<u8>)> = vec![
            (
                "model/config.json".into(),
                br#"{"hidden_size":1024,"layers":24}"#.to_vec(),
            ),
            ("model/tokenizer.json".into(), br#"{"vocab":{"a":0,"b":1}}"#.to_vec()),
        ];
        for i in 1..=4u64 {
            files.push((
                format!("model/model-{i:05}-of-00004.safetensors"),
                weights(payload / 4, 40 + i),
            ));
        }
        for (rel, data) in &files {
            write(&p.join(rel), data);
        }
        write(&p.join("manifest.json"), manifest(&files).as_bytes());
    })
}

fn manifest(files: &[(String, Vec<u8>)]) -> String {
    let sums: Vec<(String, String)> = files.iter().map(|(p, d)| (p.clone(), hex(&sha256(d)))).collect();
    let inventory: Vec<String> = files
        .iter()
        .zip(&sums)
        .map(|((p, d), (_, s))| format!(r#"{{"path":"{p}","size":{},"sha256":"{s}"}}"#, d.len()))
        .collect();
    let hash = bundle_hash(sums.iter().map(|(p, s)| (p.as_str(), s.as_str())));
    format!(
        r#"{{"schema_version":"1.6.0","kind":"darsay.bundle","artifact_type":"model","bundle_id":"{ID}","inventory":{{"layout":{{"payload_root":"model/"}},"files":[{}],"bundle_hash":{{"algorithm":"sha256-of-sorted-sha256-lines","value":"{hash}","covers":"{}"}}}},"archive":{{"date_archived":"2025-06-01T12:00:00Z"}}}}"#,
        inventory.join(","),
        covers("model")
    )
}

/// `<dir>/export/<ID>.mvb.tar`, exported from `bundle` (its `exports.json` removed after, so
/// the folder keeps its recorded hash).
pub fn export(dir: &Path, bundle: &Path) -> PathBuf {
    let recipe = crate::data::tree_sha256(bundle).unwrap_or_default();
    let out = dir.join("export");
    cached(&out.join(format!("{ID}.mvb.tar")), &recipe, |p| {
        let folder = p.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(folder).unwrap_or_else(|e| fail(&format!("{e}")));
        modelgate_io::mvb::export(bundle, folder, false, &mut |_, _| {})
            .unwrap_or_else(|e| fail(&format!("export: {e:?}")));
        let _ = std::fs::remove_file(bundle.join("exports.json"));
    })
}
