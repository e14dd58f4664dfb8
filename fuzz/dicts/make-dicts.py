#!/usr/bin/env python3
"""Writes fuzz/dicts/<target>.dict, one libFuzzer dictionary per fuzz target.

Usage: python3 fuzz/dicts/make-dicts.py   (rewrites every .dict next to this file)

The entries come from the specs (spec/*.md, section numbers in the comments) and the code
they describe: magic numbers, signatures, field values, JSON member names and the tokens a
reader's rules turn on. libFuzzer keeps only entries of at most 64 bytes, so the script
refuses longer ones; it also checks that every PAX record it writes has a correct length.
Python 3 standard library only; the output depends on nothing but this file.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_WORD = 64  # libFuzzer's FixedWord<64>: longer entries are silently dropped


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def esc(b):
    out = []
    for c in b:
        if 0x20 <= c < 0x7F and c not in (0x22, 0x5C):
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "".join(out)


def section(title, entries):
    """entries: list of bytes or str (str is UTF-8 encoded)."""
    return (title, [e.encode() if isinstance(e, str) else e for e in entries])


def jstr(*names):
    """JSON member names as `"name"` and `"name":`."""
    out = []
    for n in names:
        out.append('"%s"' % n)
        out.append('"%s":' % n)
    return out


# ---------------------------------------------------------------- JSON (spec/json.md)
JSON = section(
    "JSON tokens (spec/json.md §2-§5: strict RFC 8259 + I-JSON)",
    [
        "{", "}", "[", "]", ":", ",", '"', '""', "{}", "[]", '{"":0}',
        "true", "false", "null", "True", "NULL", "nan", "Infinity",
        "0", "-0", "-", "1", "-1", "01", "1.", ".5", "0.5", "1e5", "1E+5", "1e-5", "-0.0e0",
        "1e400", "-1e400", "1e-400", "4294967295", "4294967296",
        "9007199254740993", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
        "18446744073709551616",
        '\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u", "\\u0000", "\\u001f",
        "\\u0041", "\\u00e9", "\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\ud83d\\ude00",
        "\\ud800\\u0041", "\\ufdd0", "\\ufdef", "\\ufffe", "\\uffff", "\\ud83f\\udffe",
        "\\udbff\\udfff", "\\x41", "\\'", "\\U0041",
        b"\x00", b"\x09", b"\x0a", b"\x0d", b"\x1f", b"\x7f", b" \t\r\n",
        b"\xef\xbb\xbf",  # byte-order mark (rejected)
        b"\xc2\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80",
        b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xf0\x80\x80\x80",
        b"\xed\xa0\x80", b"\xed\xbf\xbf",  # encoded surrogates
        b"\xef\xb7\x90", b"\xef\xb7\xaf", b"\xef\xbf\xbe", b"\xef\xbf\xbf",  # noncharacters
        b"\xf0\x9f\xbf\xbe", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
        b"\x80", b"\xbf", b"\xc2", b"\xe2\x82", b"\xfe", b"\xff",
        "[[[[[[[[[[[[[[[[", "]]]]]]]]]]]]]]]]", '{"a":{"a":{"a":{"a":', "}}}}",
        '{"a":1,"a":2}', '{"a":1,"\\u0061":2}', "[1,]", '{"a":1,}', "/*", "//",
    ],
)

# ---------------------------------------------------------------- deflate (spec/inflate.md)
DEFLATE = section(
    "Raw deflate (spec/inflate.md §2; RFC 1951)",
    [
        b"\x03\x00",  # final fixed block, end of block only
        b"\x01\x00\x00\xff\xff",  # final stored block of length 0
        b"\x00\x00\x00\xff\xff",  # non-final stored block of length 0
        b"\x01\x01\x00\xfe\xff",  # final stored block of length 1
        b"\x01\x00\x00\x00\x00",  # NLEN not the complement
        b"\x01\xff\xff\x00\x00",  # stored, LEN 65535
        b"\x07",  # block type 3 (reserved)
        b"\x05", b"\x04",  # dynamic block headers (final / not)
        b"\xfd\xff", b"\xff\x0f",  # HLIT / HDIST at their maxima
        b"K\x04\x00",  # "a"
        b"KL\x04\x00",  # "aa"
        b"KL\x04\x02\x00",  # "aaaaa" through a match
        b"\x63\x00\x00",  # one zero byte
        b"\x00" * 16,
    ],
)

FRAME = section(
    "The .deflate test frame (spec/inflate.md §6: u64 LE size, u32 LE CRC-32, stream)",
    [
        u64(0), u64(1), u64(0x8000), u64(0x10000), u64(1 << 20), u64((1 << 20) + 1),
        u64(1 << 63), u64((1 << 64) - 1),
        u32(0), u32(0xE8B7BE43),  # CRC-32 of "a"
        u32(0xD202EF8D),  # CRC-32 of one zero byte
        u32(0xFFFFFFFF),
        u64(1) + u32(0xE8B7BE43) + b"K\x04\x00",  # a whole valid frame for "a"
    ],
)

GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
EMPTY_MEMBER = GZIP_HEADER + b"\x03\x00" + u32(0) + u32(0)
GZIP = section(
    "gzip (spec/inflate.md §5; RFC 1952)",
    [
        b"\x1f\x8b", b"\x1f\x8b\x08", b"\x1f\x8b\x07", b"\x1f\x9d", b"\x78\x9c",  # zlib header
        GZIP_HEADER,  # the writer's fixed header (§5.13)
        EMPTY_MEMBER,  # a whole valid empty member
        GZIP_HEADER + b"K\x04\x00" + u32(0xE8B7BE43) + u32(1),  # member holding "a"
        b"\x01", b"\x02", b"\x04", b"\x08", b"\x10", b"\x20", b"\x40", b"\x80", b"\x1e",  # FLG bits
        b"\x00\x02\x03", b"\x00\x04\x0d", b"\x00\x00\xff", b"\x00\x01\x0e", b"\x00\x00\xfe",  # XFL, OS
        u16(0), u16(4), u16(6), b"AP\x02\x00", b"AP\x00\x00", b"\x00\x00\x00\x00",  # FEXTRA
        b"name\x00", b"comment\x00",  # FNAME / FCOMMENT
        u32(0xE8B7BE43) + u32(1), u32(0) + u32(0), u32(0xFFFFFFFF),  # trailers
        b"\x00" * 8,  # zero padding after the last member
    ],
)

# ---------------------------------------------------------------- ZIP (spec/mlbundle.md §2)
ZIP = section(
    "ZIP records and field values (spec/mlbundle.md §2)",
    [
        b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07", b"PK\x07\x08",
        b"PK\x05\x05", b"PK\x06\x08", b"PK00",
        b"\x01\x00",  # ZIP64 extended information extra field id
        b"\x01\x00\x08\x00", b"\x01\x00\x10\x00", b"\x01\x00\x18\x00", b"\x01\x00\x1c\x00",
        b"\x55\x54\x05\x00", b"\x75\x78\x0b\x00",  # other extra ids (UT, ux): rejected
        b"\xff\xff", b"\xff\xff\xff\xff", u64((1 << 64) - 1),  # sentinels
        u16(10), u16(20), u16(45), u16(63), u16(0x0314),  # version needed / made by
        u16(0), u16(8), u16(12), u16(14), u16(99),  # methods: stored, deflated, bzip2, lzma, AES
        u16(0x0008), u16(0x0800), u16(0x0808), u16(0x0001), u16(0x0006), u16(0x0040),  # flags
        u16(0x0000) + u16(0x0021),  # time 0, date 1980-01-01 (the writer's)
        u32(0o100600 << 16), u32(0o100644 << 16), u32(0o120777 << 16), u32(0o040755 << 16),
        u32(0o020644 << 16), u32(0o010644 << 16), u32(0x10),  # attributes (§2.9)
        u64(44), u32(1), u32(0), u16(1),  # ZIP64 record size, locator disks, counts
        b"PK\x05\x06" + b"\x00" * 18,  # empty end record
        b"PK\x06\x07" + u32(0) + u64(0) + u32(1),  # ZIP64 locator
        b"PK\x07\x08" + u32(0) + u32(0) + u32(0),  # data descriptor
    ],
)

MLBUNDLE = section(
    "mlbundle member names and manifest (spec/mlbundle.md §1, §5, §8)",
    [
        "manifest.json", "model.onnx", "model.skops", "model.ubj", "model.cbm",
        "structure.json", "schema.json", "samples.json",
        "Manifest.json", "./model.onnx", "model.onnx/", "../model.onnx", "model.onnx.",
        *jstr("format", "format_version", "writer_version", "recipe", "kind", "members",
              "schema", "structure", "samples", "integrity", "sha256", "size",
              "inputs", "outputs", "name", "dtype", "rows"),
        '"mlbundle"', '"1"', '"2"', '"0.1.0"', '"1.0.0-rc.1"', '"01.0.0"',
        '"standalone"', '"composite"',
        '{"format":"mlbundle","format_version":"1",',
        '"recipe":{"kind":"standalone","members":["model.onnx"]}',
        '{"kind":"composite","members":["model.skops","model.ubj"]}',
        '"float32"', '"float64"', '"int32"', '"int64"', '"bool"', '"string"', '"category"',
        "0" * 64,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ],
)

# ---------------------------------------------------------------- tar (spec/mpk.md §1)


def pax(key, value):
    body = " %s=%s\n" % (key, value)
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n += 1
    rec = "%d%s" % (n, body)
    assert len(rec) == n
    return rec


TAR = section(
    "tar headers, typeflags, numbers, PAX and GNU records (spec/mpk.md §1)",
    [
        b"ustar\x0000", b"ustar  \x00", b"ustar\x00", b"ustar ", b"ustar\x00  ", b"ustar  ",
        b"0", b"\x00", b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"x", b"g", b"L", b"K", b"S",
        b"D", b"M", b"N", b"V", b"A", b"X",  # typeflags (§1.1.6)
        b"0000644\x00", b"0000755\x00", b"0000000\x00", b"0000777 ", b"000644 \x00",  # mode, uid
        b"00000000000\x00", b"00000001000\x00", b"00000000001\x00", b"77777777777\x00",
        b"77777777777", b"14536461200\x00", b"00000000000 ", b"   0\x00",  # size, mtime
        b"\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00",  # base-256 size
        b"\x80\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",  # base-256 overflow
        b"\xff\xff\xff\xff\xff\xff\xff\xff", b"\x80", b"\xff", b"8", b"9",  # negative, bad digits
        b"        ", b"011452\x00 ", b"0011452\x00", b"\x00 ",  # checksum forms (§1.1.3)
        b"././@LongLink", b"././@PaxHeader", b"pax_global_header",
        pax("path", "a"), pax("path", "../a"), pax("linkpath", "target"), pax("size", "0"),
        pax("size", "1"), pax("size", "512"), pax("size", "01"), pax("size", "-1"),
        pax("size", "18446744073709551616"), pax("mtime", "1700000000.5"),
        pax("comment", "git"), pax("GNU.sparse.major", "1"), pax("uid", "0"),
        "path=", "linkpath=", "size=", "mtime=", "atime=", "ctime=", "uid=", "gid=",
        "uname=", "gname=", "comment=", "charset=", "hdrcharset=", "GNU.sparse.",
        "GNU.sparse.size=", "GNU.sparse.map=", "SCHILY.xattr.", "LIBARCHIVE.xattr.",
        "0 =\n", "5 a=\n", "6 a=b\n", "99999 ", b"=\x00",
        b"\x00" * 64,
    ],
)

PATHS = section(
    "Archive paths (spec/mpk.md §2)",
    [
        "/", "//", "./", "../", "..", ".", "...", ". .", ".. ", "a/", "a//b", "a/./b", "a/../b",
        "/etc/passwd", "\\", "..\\", "C:", "C:\\", "c:/", "a:b", "a.", "a ", "A", "a/b/c/d",
        b"\x00", b"\x01", b"\x1b", b"\x1f", b"\x7f", b"\xc3\x28", b"\xff",
        # slash and backslash confusables (§2.4)
        *[chr(c) for c in (0x2044, 0x2215, 0x2216, 0x2571, 0x2572, 0x29F5, 0x29F8, 0x29F9,
                           0x3033, 0xFE68, 0xFF0F, 0xFF3C, 0x1735, 0x27CB, 0x27CD)],
        # dot confusables (§2.5)
        *[chr(c) for c in (0x2024, 0x2025, 0x2026, 0xFE52, 0xFF0E, 0x3002, 0xFF61, 0x0701,
                           0x0702, 0xA60E, 0x10A50, 0x1D16D)],
        # default-ignorable code points (§2.5)
        *[chr(c) for c in (0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B,
                           0x180F, 0x200B, 0x200D, 0x200F, 0x202A, 0x202E, 0x2060, 0x206F,
                           0x3164, 0xFE00, 0xFE0F, 0xFEFF, 0xFFA0)],
        "." + chr(0x200B) + ".", chr(0x2024) + chr(0x2024), "\u00c5", "\u212b", "\u0130",
        "a" * 64,
    ],
)

MPK = section(
    "MPK packages (spec/mpk.md §3, §3.6, §3.7)",
    [
        "mpk.json", "_mpk.json", "model_mpk.json", "pipeline_sequence.json", "run.json",
        ".json", ".yaml", ".yml", ".so", ".elf", ".so.1", ".JSON", "etc/", "lib/", "share/",
        "./", "models/", "m.elf", "libpost.so", ".tar.gz", ".tgz", ".mpk",
        *jstr("name", "model_path", "model_sdk_version", "input_nodes", "output_nodes",
              "plugins", "sequence", "processor", "type", "config_params", "kernel", "params",
              "desired_batch_size", "actual_batch_size", "resources", "executable",
              "pipelines", "sequence_id", "pluginId", "configPath", "input"),
        '"decoder"', '"2.0.0"', '"sgpProcess"', '"EV74"', '"MLA"', '"A65"', '"CVU"',
        '"infer"', '"mla"', '"preproc"', '"quanttess"', '"detessdequant"', '"boxdecode"',
        '"processtvm"', '"slice"', '"pass_through"', '"cast_transform"', '"cast"',
        '"quantization_transform"', '"tessellation_transform"', '"pack_transform"',
        '"unpack_transform"', '"batch_flatten_transform"', '"detessellation_transform"',
        '"dequantization_transform"', '"sequence_id":9223372036854775807', '"input":["decoder"]',
        '"sequence":1', '"plugins":[]',
    ],
)

MVB = section(
    "mvb bundles: marker, manifest, layout (spec/mvb.md §1-§4)",
    [
        ".mvb.json", "manifest.json", "darsay-verify.py", "exports.json", "hydration.json",
        "transfer.json", "transfer.lock", ".DS_Store", "model/", "data/", ".mvb.tar",
        "org--model@0123456789ab/", "org--model@0123456789ab/.mvb.json",
        "org--model@0123456789ab/manifest.json", "org--model@0123456789ab/model/",
        *jstr("schema_version", "kind", "artifact_type", "bundle_id", "inventory", "layout",
              "payload_root", "files", "path", "size", "sha256", "bundle_hash", "algorithm",
              "value", "covers", "archive", "date_archived", "mvb_format_version",
              "payload_file_count", "payload_size_bytes", "written_by", "tool", "location",
              "host", "imported"),
        '"darsay.bundle"', '"darsay"', '"model"', '"dataset"', '"1.0.0"', '"2.0.0"', '"1.2"',
        '"2.0"', '"01.2"', '"sha256-of-sorted-sha256-lines"',
        " payload only; bundle-root metadata files", " are mutable and excluded",
        '"2024-05-06T07:08:09Z"', '"2025-06-01T12:00:00.5Z"', '"2024-02-30T00:00:00Z"',
        '"1969-12-31T23:59:59Z"', '"2024-05-06T07:08:60Z"', '"2024-05-06 07:08:09+00:00"',
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ],
)

# ---------------------------------------------------------------- OneModel (spec/onemodel.md)
MAGIC = b"\x8fONEMODL"
ONEMODEL_HEADER = section(
    "OneModel header (spec/onemodel.md §1.1)",
    [
        MAGIC, MAGIC + u64(1), b"ONEMODL", b"\x8f",
        u64(0), u64(1), u64(2), u64(64), u64(128), u64(2), u64((1 << 63) - 1), u64(1 << 63),
        u64((1 << 64) - 1), b"\x00" * 16, b"\x00" * 64,
    ],
)

ONEMODEL_KEYS = section(
    "OneModel manifest members and values (spec/onemodel.md §2)",
    [
        *jstr("ir_version", "opsets", "producer_name", "producer_version", "domain",
              "model_version", "doc", "metadata", "graph", "functions", "version", "key",
              "value", "name", "initializers", "sparse_initializers", "inputs", "outputs",
              "value_info", "nodes", "type", "op", "overload", "attributes", "ref", "dtype",
              "dims", "data", "offset", "length", "strings", "values", "indices", "kind",
              "denotation", "elem_type", "shape", "elem", "key_type", "param",
              "attribute_names", "attribute_defaults"),
        '"tensor"', '"sparse_tensor"', '"sequence"', '"map"', '"optional"', '"opaque"',
        '"ai.onnx"', '"ai.onnx.ml"', '"com.microsoft"', '""',
        '"Add"', '"Relu"', '"Conv"', '"MatMul"', '"Identity"', '"Constant"', '"If"', '"Loop"',
        '"AA=="', '"AAE="', '"AAEC"', '"AB=="', '"AA"', '"A-_="', '"===="',
        "1065353216", "2143289344", "2139095040", "4294967295", "4294967296", "2147483648",
        "1152921504606846976",
        '{"ir_version":8,"opsets":[{"version":17}],"graph":{}}',
        '"data":{"offset":0,"length":4}', '"dims":[]', '"dims":[-1]', '"shape":[{}]',
        '{"kind":"tensor","elem_type":1}', '{"name":"x","type":1,"value":0}',
    ],
)


def key(field, wire):
    v = (field << 3) | wire
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


# (message, field number, wire type) from onnx.proto, as spec/onemodel.md §2 and §6 name them
ONNX_FIELDS = [
    ("ModelProto.ir_version", 1, 0), ("producer_name", 2, 2), ("producer_version", 3, 2),
    ("domain", 4, 2), ("model_version", 5, 0), ("doc_string", 6, 2), ("graph", 7, 2),
    ("opset_import", 8, 2), ("metadata_props", 14, 2), ("training_info", 20, 2),
    ("functions", 25, 2),
    ("GraphProto.node", 1, 2), ("initializer", 5, 2), ("doc_string", 10, 2), ("input", 11, 2),
    ("output", 12, 2), ("value_info", 13, 2), ("quantization_annotation", 14, 2),
    ("sparse_initializer", 15, 2), ("metadata_props", 16, 2),
    ("NodeProto.op_type", 4, 2), ("attribute", 5, 2), ("domain", 7, 2), ("overload", 8, 2),
    ("metadata_props", 9, 2), ("device_configurations", 10, 2),
    ("AttributeProto.f", 2, 5), ("i", 3, 0), ("s", 4, 2), ("t", 5, 2), ("g", 6, 2),
    ("floats", 7, 5), ("floats packed", 7, 2), ("ints", 8, 0), ("ints packed", 8, 2),
    ("strings", 9, 2), ("tensors", 10, 2), ("graphs", 11, 2), ("doc_string", 13, 2),
    ("tp", 14, 2), ("type_protos", 15, 2), ("type", 20, 0), ("ref_attr_name", 21, 2),
    ("sparse_tensor", 22, 2), ("sparse_tensors", 23, 2),
    ("TensorProto.dims", 1, 0), ("dims packed", 1, 2), ("data_type", 2, 0), ("segment", 3, 2),
    ("float_data", 4, 5), ("float_data packed", 4, 2), ("int32_data", 5, 0),
    ("int32_data packed", 5, 2), ("string_data", 6, 2), ("int64_data", 7, 0),
    ("int64_data packed", 7, 2), ("name", 8, 2), ("raw_data", 9, 2), ("double_data", 10, 1),
    ("double_data packed", 10, 2), ("uint64_data", 11, 0), ("uint64_data packed", 11, 2),
    ("doc_string", 12, 2), ("external_data", 13, 2), ("data_location", 14, 0),
    ("metadata_props", 16, 2),
    ("ValueInfoProto.type", 2, 2), ("TypeProto.tensor_type", 1, 2), ("sequence_type", 4, 2),
    ("map_type", 5, 2), ("denotation", 6, 2), ("opaque_type", 7, 2),
    ("sparse_tensor_type", 8, 2), ("optional_type", 9, 2),
    ("elem_type / dim_value / version", 1, 0), ("shape / value_type", 2, 2),
    ("dim_param / value", 2, 2), ("OperatorSetIdProto.version", 2, 0),
    ("FunctionProto.input", 4, 2), ("output", 5, 2), ("attribute", 6, 2), ("node", 7, 2),
    ("opset_import", 9, 2), ("domain", 10, 2), ("attribute_proto", 11, 2),
    ("value_info", 12, 2), ("overload", 13, 2),
    ("any field, wire type 3 (group)", 1, 3), ("wire type 4", 1, 4), ("wire type 6", 1, 6),
    ("wire type 7", 1, 7), ("field 2^29-1", (1 << 29) - 1, 0), ("field 0", 0, 0),
]

ONNX = section(
    "ONNX protobuf (spec/onemodel.md §6): field keys of onnx.proto, varints, values",
    sorted({key(f, w) for _, f, w in ONNX_FIELDS})
    + [
        b"\x08\x07", b"\x08\x08", b"\x08\x09", b"\x08\x0a",  # ir_version 7..10
        b"\x42\x02\x10\x11", b"\x42\x0b\x0a\x07ai.onnx\x10\x11",  # opset_import
        b"\x0a\x00", b"\x12\x00",
        b"\x80\x01", b"\xff\x01", b"\xff\xff\xff\xff\x0f", b"\xff\xff\xff\xff\x07",
        b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # 10-byte varint (-1)
        b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02",  # tenth byte above 1
        b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",  # 11 bytes
        b"\x80", b"\x00\x00\x80\x3f", b"\x00\x00\xc0\x7f", b"\x00\x00\x00\x00\x00\x00\xf0\x3f",
        b"Add", b"Relu", b"Conv", b"MatMul", b"Identity", b"Constant", b"If", b"Loop", b"Scan",
        b"ai.onnx", b"ai.onnx.ml", b"com.microsoft", b"location", b"offset", b"length",
        b"pytorch", b"x", b"y",
        MAGIC,  # a OneModel file is never ONNX (wire type 7)
    ],
)


def write(target, sections):
    lines = [
        "# libFuzzer dictionary for the fuzz target `%s`." % target,
        "# Generated by fuzz/dicts/make-dicts.py; edit that script, not this file.",
    ]
    seen = set()
    n = 0
    for title, entries in sections:
        lines.append("")
        lines.append("# " + title)
        for e in entries:
            if e in seen:
                continue
            if not e or len(e) > MAX_WORD:
                sys.exit("%s: entry of %d bytes: %r" % (target, len(e), e))
            seen.add(e)
            n += 1
            lines.append('kw%d="%s"' % (n, esc(e)))
    with open(os.path.join(HERE, target + ".dict"), "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return n


TARGETS = {
    "json": [JSON],
    "inflate": [FRAME, DEFLATE],
    "gzip": [GZIP, DEFLATE],
    "zip_container": [ZIP, DEFLATE, MLBUNDLE],
    "mlbundle": [ZIP, MLBUNDLE, DEFLATE, JSON],
    "mlbundle_roundtrip": [MLBUNDLE, DEFLATE, JSON],
    "mlbundle_contract": [MLBUNDLE, JSON],
    "tar": [TAR, PATHS],
    "archive_path": [PATHS],
    "mpk": [GZIP, TAR, MPK, PATHS, JSON],
    "mvb_import": [TAR, MVB, PATHS, JSON],
    "onemodel": [ONEMODEL_HEADER, ONEMODEL_KEYS, JSON],
    "onnx": [ONNX],
    "onnx_roundtrip": [ONNX],
}

if __name__ == "__main__":
    for t, s in TARGETS.items():
        print("%-20s %4d entries" % (t, write(t, s)))
