//! The MPK fixture: a valid package (contract, pipeline, stage configs) whose two stage
//! binaries carry float32 weights, as GNU tar through the deterministic gzip writer.

use crate::data::{cached, write};
use crate::measure::fail;
use crate::payload::weights;
use modelgate_core::gzip::write_gzip;
use modelgate_core::tar::{FileMeta, Flavor, TarWriter};
use std::path::{Path, PathBuf};

const CONTRACT: &str = r#"{"name":"resnet50","model_sdk_version":"2.0.0","plugins":[{"name":"quantize_0","sequence":1,"processor":"EV74","type":"sgpProcess","config_params":{"kernel":"quantization_transform","params":{}},"input_nodes":[],"output_nodes":[]},{"name":"MLA_0","sequence":2,"processor":"MLA","type":"sgpProcess","config_params":{"desired_batch_size":1,"actual_batch_size":1},"input_nodes":[],"output_nodes":[],"resources":{"executable":"resnet50_mla.elf"}},{"name":"post","sequence":3,"processor":"A65","type":"sgpProcess","config_params":{"kernel":"processtvm"},"input_nodes":[],"output_nodes":[],"resources":{"executable":"libpost.so"}}]}"#;

const PIPELINE: &str = r#"{"pipelines":[{"sequence":[{"sequence_id":1,"name":"pre","pluginId":"processcvu","configPath":"pre_config.json","processor":"CVU","kernel":"quanttess","input":"decoder"},{"sequence_id":2,"name":"mla_0","pluginId":"processmla","configPath":"mla_0_config.json","processor":"MLA","kernel":"infer","input":"pre"},{"sequence_id":3,"name":"post","pluginId":"processcvu","configPath":"post_config.json","processor":"CVU","kernel":"detessdequant","input":["mla_0"]}]}]}"#;

/// The package with `payload` bytes of stage binaries (7/8 in the MLA executable).
pub fn package(dir: &Path, payload: usize) -> PathBuf {
    cached(&dir.join("package.tar.gz"), &format!("payload={payload}"), |p| {
        let mla = elf(payload / 8 * 7, 21);
        let post = elf(payload / 8, 22);
        let files: [(&str, &[u8]); 7] = [
            ("etc/resnet50_mpk.json", CONTRACT.as_bytes()),
            ("etc/pipeline_sequence.json", PIPELINE.as_bytes()),
            ("etc/pre_config.json", b"{\"scale\":0.5}"),
            ("etc/mla_0_config.json", b"{\"batch\":1}"),
            ("etc/post_config.json", b"{}"),
            ("share/resnet50_mla.elf", &mla),
            ("lib/libpost.so", &post),
        ];
        let meta = FileMeta {
            mode: 0o644,
            mtime: 1_700_000_000,
            uid: 0,
            gid: 0,
        };
        let mut w = TarWriter::new(Flavor::Gnu);
        for (name, data) in files {
            w.append_file(name.as_bytes(), data, &meta)
                .unwrap_or_else(|e| fail(&format!("tar: {e:?}")));
        }
        let gz = write_gzip(&w.finish(), usize::MAX).unwrap_or_else(|e| fail(&format!("gzip: {e:?}")));
        write(p, &gz);
    })
}

fn elf(len: usize, seed: u64) -> Vec<u8> {
    let mut v = b"\x7fELF\x02\x01\x01\0".to_vec();
    v.extend_from_slice(&weights(len.saturating_sub(8), seed));
    v
}
