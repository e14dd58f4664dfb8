//! The in-memory model a OneModel file describes (`spec/onemodel.md` §2): one Rust type per
//! manifest table. Tensor bytes read from a file are views (`Cow::Borrowed`) into the
//! caller's file bytes, never copies; so are the names a model is made of (node names,
//! operators, domains, value names, tensor names) when the manifest writes them without
//! escapes. Other strings are owned.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// The top-level Model table (§2.1), ONNX `ModelProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model<'a> {
    /// `ir_version`.
    pub ir_version: u64,
    /// `opsets` (`opset_import`).
    pub opsets: Vec<OperatorSet>,
    /// `producer_name`.
    pub producer_name: String,
    /// `producer_version`.
    pub producer_version: String,
    /// `domain`.
    pub domain: String,
    /// `model_version`.
    pub model_version: i64,
    /// `doc` (`doc_string`).
    pub doc: String,
    /// `metadata` (`metadata_props`).
    pub metadata: Vec<StringEntry>,
    /// `graph`.
    pub graph: Graph<'a>,
    /// `functions` (model-local functions).
    pub functions: Vec<Function<'a>>,
}

/// OperatorSet (§2.1), ONNX `OperatorSetIdProto`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperatorSet {
    /// Domain; `""` is the default ONNX domain (`ai.onnx`).
    pub domain: String,
    /// Operator set version.
    pub version: u64,
}

/// StringEntry (§2.1), ONNX `StringStringEntryProto`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringEntry {
    /// `key`.
    pub key: String,
    /// `value`.
    pub value: String,
}

/// A part of a model that holds graphs, directly or through nodes and attributes: what the
/// writers' loops (ONNX protobuf, OneModel manifest) keep on their heap stacks instead of
/// recursing per nesting level (`spec/onemodel.md` §3.3).
#[derive(Clone, Copy)]
pub(crate) enum GraphHolder<'m, 'a> {
    /// A graph: its nodes hold attributes that may hold graphs.
    Graph(&'m Graph<'a>),
    /// A node: its attributes may hold graphs.
    Node(&'m Node<'a>),
    /// An attribute: a GRAPH or GRAPHS value.
    Attribute(&'m Attribute<'a>),
    /// A model-local function: its nodes and attribute defaults.
    Function(&'m Function<'a>),
}

/// The Graph table (§2.2), ONNX `GraphProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph<'a> {
    /// `name`.
    pub name: String,
    /// `doc`.
    pub doc: String,
    /// `initializers`.
    pub initializers: Vec<Tensor<'a>>,
    /// `sparse_initializers`.
    pub sparse_initializers: Vec<SparseTensor<'a>>,
    /// `inputs`.
    pub inputs: Vec<TypedName>,
    /// `outputs`.
    pub outputs: Vec<TypedName>,
    /// `value_info`.
    pub value_info: Vec<TypedName>,
    /// `nodes`, in dependency order once read (§3.1 rule 3).
    pub nodes: Vec<Node<'a>>,
    /// `metadata`.
    pub metadata: Vec<StringEntry>,
}

/// TypedName (§2.2), ONNX `ValueInfoProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypedName {
    /// `name`.
    pub name: String,
    /// `type`, `None` when not declared.
    pub ty: Option<Type>,
    /// `doc`.
    pub doc: String,
    /// `metadata`.
    pub metadata: Vec<StringEntry>,
}

/// The Node table (§2.3), ONNX `NodeProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node<'a> {
    /// `name`.
    pub name: Cow<'a, str>,
    /// `op` (`op_type`).
    pub op: Cow<'a, str>,
    /// `domain`.
    pub domain: Cow<'a, str>,
    /// `overload`.
    pub overload: Cow<'a, str>,
    /// `doc`.
    pub doc: String,
    /// `inputs`; `""` is an omitted optional input.
    pub inputs: Vec<Cow<'a, str>>,
    /// `outputs`; `""` is an omitted optional output.
    pub outputs: Vec<Cow<'a, str>>,
    /// `attributes`.
    pub attributes: Vec<Attribute<'a>>,
    /// `metadata`.
    pub metadata: Vec<StringEntry>,
}

/// The Attribute table (§2.4), ONNX `AttributeProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attribute<'a> {
    /// `name`.
    pub name: String,
    /// `type`: the `AttributeProto.AttributeType` code, 1..=14 once read.
    pub ty: u8,
    /// `doc`.
    pub doc: String,
    /// `ref` (`ref_attr_name`); non-empty means a reference without a value.
    pub ref_name: String,
    /// `value`; `None` exactly when `ref_name` is non-empty.
    pub value: Option<AttrValue<'a>>,
}

/// An attribute value by type code (§2.4 value table).
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue<'a> {
    /// 1 FLOAT: the binary32 bit pattern.
    Float(u32),
    /// 2 INT.
    Int(i64),
    /// 3 STRING: bytes.
    String(Vec<u8>),
    /// 4 TENSOR.
    Tensor(Tensor<'a>),
    /// 5 GRAPH.
    Graph(Box<Graph<'a>>),
    /// 6 FLOATS: bit patterns.
    Floats(Vec<u32>),
    /// 7 INTS.
    Ints(Vec<i64>),
    /// 8 STRINGS.
    Strings(Vec<Vec<u8>>),
    /// 9 TENSORS.
    Tensors(Vec<Tensor<'a>>),
    /// 10 GRAPHS.
    Graphs(Vec<Graph<'a>>),
    /// 11 SPARSE_TENSOR.
    SparseTensor(Box<SparseTensor<'a>>),
    /// 12 SPARSE_TENSORS.
    SparseTensors(Vec<SparseTensor<'a>>),
    /// 13 TYPE_PROTO.
    Type(Type),
    /// 14 TYPE_PROTOS.
    Types(Vec<Type>),
}

impl AttrValue<'_> {
    /// The `AttributeProto.AttributeType` code of this value.
    pub fn type_code(&self) -> u8 {
        match self {
            AttrValue::Float(_) => 1,
            AttrValue::Int(_) => 2,
            AttrValue::String(_) => 3,
            AttrValue::Tensor(_) => 4,
            AttrValue::Graph(_) => 5,
            AttrValue::Floats(_) => 6,
            AttrValue::Ints(_) => 7,
            AttrValue::Strings(_) => 8,
            AttrValue::Tensors(_) => 9,
            AttrValue::Graphs(_) => 10,
            AttrValue::SparseTensor(_) => 11,
            AttrValue::SparseTensors(_) => 12,
            AttrValue::Type(_) => 13,
            AttrValue::Types(_) => 14,
        }
    }
}

/// The Tensor table (§2.5), ONNX `TensorProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tensor<'a> {
    /// `name`.
    pub name: Cow<'a, str>,
    /// `dtype`: a code of §2.5's table or 8 (string).
    pub dtype: u8,
    /// `dims`.
    pub dims: Vec<u64>,
    /// `doc`.
    pub doc: String,
    /// The elements.
    pub data: TensorData<'a>,
    /// `metadata`.
    pub metadata: Vec<StringEntry>,
}

/// A tensor's elements (§2.5 `data` or `strings`).
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData<'a> {
    /// Fixed-size elements in `raw_data` layout: when read from a file, a view of its data
    /// region (`Cow::Borrowed`); owned when converted from typed ONNX fields.
    Raw(Cow<'a, [u8]>),
    /// dtype 8: one byte string per element.
    Strings(Vec<Vec<u8>>),
    /// Fixed-size elements in `raw_data` layout that stay in a file the caller holds: the
    /// data region of a OneModel file read from its head (`read_head`, §5), or an ONNX
    /// tensor's external data (§6.2). Nothing reads them; the writers lay them out
    /// (`writer::layout`, `onnx::write_parts`) and the caller copies them.
    File(FileRange),
}

/// Tensor bytes in a file: `length` bytes at `offset` of the caller's file number `file`
/// (0 for the file a OneModel head was read from; for ONNX external data, the number the
/// resolver gave).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRange {
    /// Which file: the reader's caller numbers them.
    pub file: usize,
    /// The first byte's offset in the file.
    pub offset: u64,
    /// How many bytes.
    pub length: u64,
}

impl TensorData<'_> {
    /// The byte length of fixed-size elements (`Raw` or `File`); `None` for strings.
    pub fn byte_length(&self) -> Option<u64> {
        match self {
            TensorData::Raw(b) => Some(u64::try_from(b.len()).unwrap_or(u64::MAX)),
            TensorData::File(r) => Some(r.length),
            TensorData::Strings(_) => None,
        }
    }
}

impl Default for TensorData<'_> {
    fn default() -> Self {
        TensorData::Raw(Cow::Borrowed(&[]))
    }
}

/// SparseTensor (§2.6), ONNX `SparseTensorProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseTensor<'a> {
    /// `values`; its name is the sparse tensor's name.
    pub values: Tensor<'a>,
    /// `indices` (int64).
    pub indices: Tensor<'a>,
    /// `dims` of the dense tensor.
    pub dims: Vec<u64>,
}

/// Type (§2.7), ONNX `TypeProto`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Type {
    /// `denotation`.
    pub denotation: String,
    /// The kind and its members.
    pub kind: TypeKind,
}

/// A Type's kind (§2.7 table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// `tensor`: element type and optional shape (`None` = rank unknown).
    Tensor {
        /// `elem_type`.
        elem_type: u8,
        /// `shape`.
        shape: Option<Vec<Dim>>,
    },
    /// `sparse_tensor`.
    SparseTensor {
        /// `elem_type`.
        elem_type: u8,
        /// `shape`.
        shape: Option<Vec<Dim>>,
    },
    /// `sequence`.
    Sequence(Box<Type>),
    /// `map`.
    Map {
        /// `key_type`.
        key_type: u8,
        /// `value`.
        value: Box<Type>,
    },
    /// `optional`.
    Optional(Box<Type>),
}

/// Dim (§2.7), ONNX `TensorShapeProto.Dimension`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dim {
    /// The size, a symbolic name, or unknown.
    pub value: DimValue,
    /// `denotation`.
    pub denotation: String,
}

/// What a Dim says about its size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DimValue {
    /// Not known (`{}`).
    #[default]
    Unknown,
    /// `value` (dim_value).
    Value(u64),
    /// `param` (dim_param).
    Param(String),
}

/// The Function table (§2.8), ONNX `FunctionProto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function<'a> {
    /// `name`.
    pub name: String,
    /// `domain`.
    pub domain: String,
    /// `overload`.
    pub overload: String,
    /// `doc`.
    pub doc: String,
    /// `inputs`.
    pub inputs: Vec<String>,
    /// `outputs`.
    pub outputs: Vec<String>,
    /// `attribute_names`.
    pub attribute_names: Vec<String>,
    /// `attribute_defaults`.
    pub attribute_defaults: Vec<Attribute<'a>>,
    /// `nodes`, in dependency order once read.
    pub nodes: Vec<Node<'a>>,
    /// `opsets`.
    pub opsets: Vec<OperatorSet>,
    /// `value_info`.
    pub value_info: Vec<TypedName>,
    /// `metadata`.
    pub metadata: Vec<StringEntry>,
}
