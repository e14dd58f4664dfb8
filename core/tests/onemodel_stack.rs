//! The stack a decode needs is bounded independent of nesting (`spec/onemodel.md` §3.3):
//! models at the deepest accepted nesting (64 graphs and types, §3.2) are decoded, resolved,
//! written and converted both ways on a thread with a small stack, in this unoptimised test
//! profile. The nesting-limit rejections themselves are tested in `tests/onemodel.rs`.

use modelgate_core::onemodel::{self, Limits, Model};
use modelgate_core::onnx;
use modelgate_corpus_gen::onemodel::pb::{int, len};

/// The stack the spec promises is enough in an unoptimised build (§3.3).
const SMALL_STACK: usize = 256 << 10;

/// A `TypeProto` `levels` deep: sequence, optional and map wrappers around a tensor type.
fn onnx_type(levels: usize) -> Vec<u8> {
    let dim = len(1, &int(1, 3));
    let mut ty = len(1, &[int(1, 1), len(2, &dim)].concat());
    for i in 1..levels {
        ty = match i % 3 {
            0 => len(4, &len(1, &ty)),
            1 => len(9, &len(1, &ty)),
            _ => len(5, &[int(1, 7), len(2, &ty)].concat()),
        };
    }
    ty
}

/// A `GraphProto` at nesting level `level` whose node holds the next graph down (alternately
/// as GRAPH and GRAPHS attributes, next to a TYPE_PROTO attribute and a tensor), down to
/// level `graphs`; the innermost graph's input has a type `types` levels deep.
fn onnx_graph(level: usize, graphs: usize, types: usize) -> Vec<u8> {
    let tensor = [int(1, 2), int(2, 1), len(9, &[0u8; 8])].concat();
    let mut attrs = vec![len(5, &[len(1, b"t"), len(5, &tensor), int(20, 4)].concat())];
    if level < 64 {
        attrs.push(len(5, &[len(1, b"tp"), len(14, &onnx_type(1)), int(20, 13)].concat()));
    }
    if level < graphs {
        let inner = onnx_graph(level + 1, graphs, types);
        attrs.push(if level.is_multiple_of(2) {
            len(5, &[len(1, b"g"), len(6, &inner), int(20, 5)].concat())
        } else {
            len(5, &[len(1, b"gs"), len(11, &inner), int(20, 10)].concat())
        });
    }
    let node = [len(2, b"y"), len(4, b"If"), attrs.concat()].concat();
    let mut g = vec![len(1, &node)];
    if level == graphs && types > 0 {
        g.push(len(11, &[len(1, b"x"), len(2, &onnx_type(types))].concat()));
    }
    g.push(len(12, &len(1, b"y")));
    g.concat()
}

/// A `ModelProto` with `graphs` graph levels whose innermost input has `types` type levels,
/// and a function whose body holds `graphs - 1` more graph levels.
fn onnx_model(graphs: usize, types: usize) -> Vec<u8> {
    let body = onnx_graph(2, graphs, 0);
    let fnode = [
        len(2, b"z"),
        len(4, b"If"),
        len(5, &[len(1, b"g"), len(6, &body), int(20, 5)].concat()),
    ]
    .concat();
    let function = [len(1, b"F"), len(5, b"z"), len(7, &fnode), len(10, b"local")].concat();
    [
        int(1, 9),
        len(7, &onnx_graph(1, graphs, types)),
        len(8, &int(2, 17)),
        len(8, &[len(1, b"local"), int(2, 1)].concat()),
        len(25, &function),
    ]
    .concat()
}

/// ONNX → model → OneModel → model → ONNX → model, each result compared through what the
/// writers make of it (the derived `PartialEq` recurses once per level and is not part of
/// the bound, §3.3).
fn round_trip(proto: &[u8]) {
    let model = onnx::to_model(proto, Limits::DEFAULT).expect("ONNX at the nesting limit is accepted");
    let onnx_bytes = onnx::write_model(&model).expect("ONNX written");
    let file = onemodel::write(&model, Limits::DEFAULT).expect("written");
    let read: Model<'_> = onemodel::read(
        &file,
        Limits {
            hash_key: [1, 2],
            ..Limits::DEFAULT
        },
    )
    .expect("OneModel read back");
    assert!(
        onemodel::write(&read, Limits::DEFAULT).expect("written again") == file,
        "OneModel round trip changed the model"
    );
    let back = onnx::write_model(&read).expect("ONNX written");
    assert!(back == onnx_bytes, "ONNX bytes differ after the OneModel round trip");
    let again = onnx::to_model(&back, Limits::DEFAULT).expect("written ONNX read back");
    assert!(
        onnx::write_model(&again).expect("ONNX written") == onnx_bytes,
        "ONNX round trip changed the model"
    );
}

/// Runs `f` on a thread with `stack` bytes of stack; a stack overflow aborts the test binary.
fn on_stack(stack: usize, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no panic");
}

fn stack_size() -> usize {
    std::env::var("MODELGATE_STACK_KIB")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .map_or(SMALL_STACK, |k| k << 10)
}

#[test]
fn deepest_graphs_decode_on_small_stack() {
    let proto = onnx_model(64, 0);
    on_stack(stack_size(), move || round_trip(&proto));
}

#[test]
fn deepest_types_decode_on_small_stack() {
    let proto = onnx_model(1, 63);
    on_stack(stack_size(), move || round_trip(&proto));
}

#[test]
fn deepest_graphs_and_types_decode_on_small_stack() {
    let proto = onnx_model(32, 32);
    on_stack(stack_size(), move || round_trip(&proto));
}

#[test]
fn deepest_json_decode_on_small_stack() {
    // An ignored member 1024 JSON levels deep (the JSON depth limit, §1.2), and one level
    // more rejected.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let manifest = |n: usize| format!("{{\"ir_version\":9,\"x\":{},\"graph\":{{}}}}", deep(n));
    let ok = onemodel::assemble(manifest(1023).as_bytes(), &[]);
    let over = onemodel::assemble(manifest(1024).as_bytes(), &[]);
    on_stack(stack_size(), move || {
        assert!(onemodel::read(&ok, Limits::DEFAULT).is_ok());
        assert_eq!(
            onemodel::read(&over, Limits::DEFAULT).unwrap_err().kind,
            onemodel::ErrorKind::LimitExceeded
        );
    });
}

#[test]
fn nesting_over_64_rejected_on_small_stack() {
    // One level past the limit (§3.2), graphs or types, is LimitExceeded, also on the small
    // stack: the readers stop at the 65th level without having spent stack on the 64 above.
    let graphs = onnx_model(65, 0);
    let types = onnx_model(1, 64);
    let mut g = String::from("{}");
    for _ in 0..65 {
        g = format!("{{\"nodes\":[{{\"op\":\"If\",\"attributes\":[{{\"name\":\"b\",\"type\":5,\"value\":{g}}}]}}]}}");
    }
    let manifest = format!("{{\"ir_version\":9,\"opsets\":[{{\"version\":17}}],\"graph\":{g}}}");
    let file = onemodel::assemble(manifest.as_bytes(), &[]);
    on_stack(stack_size(), move || {
        for proto in [&graphs, &types] {
            assert_eq!(
                onnx::to_model(proto, Limits::DEFAULT).unwrap_err().kind,
                onemodel::ErrorKind::LimitExceeded
            );
        }
        let e = onemodel::read(&file, Limits::DEFAULT).unwrap_err();
        assert_eq!(e.kind, onemodel::ErrorKind::LimitExceeded);
        assert!(e.path.unwrap().ends_with("attributes[0].value"));
    });
}
