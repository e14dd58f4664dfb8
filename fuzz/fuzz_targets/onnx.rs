//! ONNX protobuf (`spec/onemodel.md` §6): the reader never panics and every rejection has a
//! location; an accepted model writes back to protobuf that reads to the same model, and
//! writing again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::{onemodel, onnx};

fuzz_target!(|data: &[u8]| {
    match onnx::read_model(data, onemodel::Limits::DEFAULT) {
        Err(e) => assert!(e.path.is_some(), "rejection without a location: {e}"),
        Ok(model) => {
            let proto = onnx::write_model(&model).expect("a model read from ONNX fits ONNX");
            let back = onnx::read_model(&proto, onemodel::Limits::DEFAULT).expect("the writer's output reads");
            assert_eq!(back, model, "protobuf round trip changed the model");
            assert_eq!(onnx::write_model(&back).ok(), Some(proto), "ONNX writer not deterministic");
        }
    }
});
