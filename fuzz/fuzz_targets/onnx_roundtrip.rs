//! ONNX → OneModel → ONNX (`spec/onemodel.md` §4, §6): a model the converter accepts (names
//! resolved) writes as OneModel unless a string holds a noncharacter, reads back equal, and
//! converts back to the same protobuf bytes; converting twice gives identical files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::{onemodel, onnx};

fuzz_target!(|data: &[u8]| {
    let Ok(model) = onnx::to_model(data, onemodel::Limits::DEFAULT) else { return };
    let Ok(file) = onemodel::write(&model, onemodel::Limits::DEFAULT) else { return };
    assert_eq!(
        onemodel::write(&model, onemodel::Limits::DEFAULT).expect("writes twice"),
        file,
        "OneModel writer not deterministic"
    );
    let back = onemodel::read(&file, onemodel::Limits::DEFAULT).expect("the writer's output reads");
    assert_eq!(back, model, "OneModel round trip changed the model");
    assert_eq!(onnx::write_model(&back).ok(), onnx::write_model(&model).ok());
});
