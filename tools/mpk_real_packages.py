#!/usr/bin/env python3
"""Checks modelgate against MPK packages written the way the real MPK loader's ecosystem
writes them (SiMa.ai `sima-neat/core`, `src/model/ModelArchiveLoader.cpp`, and its fixture
generator), plus GNU-tar-style packages and packages made by the real `tar` binary.

Each package is written to a temporary folder, `modelgate check --format mpk --json` is run
on it and its outcome (`ok`, or the error `kind`) compared with the expected one; then
`modelgate mpk extract` is run and, for accepted packages, the set of regular files under
the destination (and their bytes) compared with the expected set; for rejected packages the
destination must not exist and the printed line must carry the same kind.

    python3 tools/mpk_real_packages.py target/debug/modelgate

Exit 0 when every case matches, 1 on any mismatch (each one described), 2 on usage errors.
Stdlib only.
"""
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile

ELF = b"\x7fELF\x02\x01\x01\x00fixture_elf_payload"
SO = b"\x7fELF\x02\x01\x01\x00fixture_so_payload"

BASE_SET = [
    "etc/0_preproc.json",
    "etc/0_process_mla.json",
    "etc/model_mpk.json",
    "etc/pipeline_sequence.json",
    "lib/model.so",
    "share/model.elf",
]


def dumps(obj):
    """JSON as the real generator writes it."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


# ---------------------------------------------------------------------------------------
# Documents


def plugin_preproc(name="preproc_0", seq=1, inp="input", kernel="preproc"):
    return {
        "name": name,
        "sequence": seq,
        "processor": "EV74",
        "type": "sgpProcess",
        "config_params": {
            "kernel": kernel,
            "params": {"input_shapes": [[1, 48, 64, 3]], "output_shapes": [[1, 48, 64, 3]]},
        },
        "input_nodes": [{"name": inp, "size": 9216}],
        "output_nodes": [{"name": name, "type": "buffer", "size": 9216}],
    }


def plugin_mla(name="MLA_0", seq=2, inp="preproc_0", executable="model.elf"):
    return {
        "name": name,
        "sequence": seq,
        "processor": "MLA",
        "type": "sgpProcess",
        "config_params": {
            "desired_batch_size": 1,
            "actual_batch_size": 1,
            "number_of_quads_to_user": 4,
        },
        "input_nodes": [{"name": inp, "size": 9216}],
        "output_nodes": [{"name": name, "type": "buffer", "size": 1000}],
        "resources": {"executable": executable},
    }


def plugin_a65(name="boxdecode_0", seq=3, inp="MLA_0", executable="boxdecode.so",
               kernel="boxdecode"):
    p = {
        "name": name,
        "sequence": seq,
        "processor": "A65",
        "type": "sgpProcess",
        "config_params": {"kernel": kernel} if kernel else {},
        "input_nodes": [{"name": inp, "size": 1000}],
        "output_nodes": [{"name": name, "type": "buffer", "size": 400}],
        "resources": {"executable": executable},
    }
    return p


def contract(plugins=None):
    return {
        "name": "model",
        "model_sdk_version": "2.0.0",
        "input_nodes": [{"name": "input", "type": "buffer", "size": 9216}],
        "plugins": plugins if plugins is not None else [plugin_preproc(), plugin_mla()],
    }


def stage(sid, name, plugin, config, processor, kernel, inp):
    return {
        "sequence_id": sid,
        "name": name,
        "pluginId": plugin,
        "configPath": config,
        "processor": processor,
        "kernel": kernel,
        "input": inp,
    }


def stage_preproc(sid=1, name="preproc_0", config="0_preproc.json", inp="decoder"):
    return stage(sid, name, "processcvu", config, "CVU", "preproc", inp)


def stage_mla(sid=2, name="mla_0", config="0_process_mla.json", inp="preproc_0", kernel="infer"):
    return stage(sid, name, "processmla", config, "MLA", kernel, inp)


def pipeline(stages=None):
    return {"pipelines": [{"sequence": stages if stages is not None
                           else [stage_preproc(), stage_mla()]}]}


PREPROC_CFG = {"kernel": "preproc", "input_width": 64, "input_height": 48, "channels": 3}
MLA_CFG = {"batch_size": 1, "numInputTensors": 1, "numOutputTensors": 1}


def base_files():
    """The real generator's base package: {archive path: bytes}, in insertion order."""
    return {
        "etc/model_mpk.json": dumps(contract()),
        "etc/pipeline_sequence.json": dumps(pipeline()),
        "etc/0_preproc.json": dumps(PREPROC_CFG),
        "etc/0_process_mla.json": dumps(MLA_CFG),
        "share/model.elf": ELF,
        "lib/model.so": SO,
    }


BASE_DIRS = ("etc", "lib", "share")

# ---------------------------------------------------------------------------------------
# Writing packages


class E:
    """One tar entry: a file (data), a directory, a symbolic or hard link."""

    def __init__(self, name, type=tarfile.REGTYPE, data=b"", linkname=""):
        self.name, self.type, self.data, self.linkname = name, type, data, linkname


def entries_of(files, dirs=BASE_DIRS, prefix=""):
    out = [E(prefix + d + "/", tarfile.DIRTYPE) for d in dirs]
    out += [E(prefix + p, data=d) for p, d in files.items()]
    return out


def write_entries(tf, entries, sort=True):
    """Adds the entries, each TarInfo set as the real generator sets it."""
    if sort:
        entries = sorted(entries, key=lambda e: (e.name, e.type))
    for e in entries:
        ti = tarfile.TarInfo(e.name)
        ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, "", ""
        ti.type = e.type
        if e.type == tarfile.DIRTYPE:
            ti.mode, ti.size = 0o755, 0
            tf.addfile(ti)
        elif e.type in (tarfile.SYMTYPE, tarfile.LNKTYPE):
            ti.mode, ti.size, ti.linkname = 0o644, 0, e.linkname
            tf.addfile(ti)
        else:
            ti.mode, ti.size = 0o644, len(e.data)
            tf.addfile(ti, io.BytesIO(e.data))


def tar_bytes(entries, fmt=tarfile.PAX_FORMAT, sort=True):
    """The uncompressed tar stream (for the cases that patch or split it)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt) as tf:
        write_entries(tf, entries, sort)
    return raw.getvalue()


def gz(data):
    """One gzip member, as the generator's GzipFile(mtime=0) writes it."""
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as g:
        g.write(data)
    return raw.getvalue()


def package(entries, fmt=tarfile.PAX_FORMAT, sort=True):
    """The real generator's way: tarfile writing straight into a GzipFile (mtime 0)."""
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as g:
        with tarfile.open(fileobj=g, mode="w", format=fmt) as tf:
            write_entries(tf, entries, sort)
    return raw.getvalue()


def files_package(files, dirs=BASE_DIRS):
    return package(entries_of(files, dirs))


def gnu_style(files, dirs=BASE_DIRS):
    """GNU tar style: a `./` root entry, `./`-prefixed names, GNU headers."""
    return package([E("./", tarfile.DIRTYPE)] + entries_of(files, dirs, prefix="./"),
                   fmt=tarfile.GNU_FORMAT)


def header_offset(tar, name):
    """Offset of the header block whose name field starts with `name`."""
    needle = name.encode() + b"\0"
    for off in range(0, len(tar), 512):
        if tar[off:off + len(needle)] == needle:
            return off
    raise SystemExit(f"internal error: no header named {name!r}")


def ustar_checksum(header):
    h = bytearray(header)
    h[148:156] = b" " * 8
    return b"%06o\0 " % sum(h)


def patch_name(tar, name, old, new, fix_checksum=True):
    """Replaces byte `old` of the header named `name` with `new` (same length)."""
    off = header_offset(tar, name)
    t = bytearray(tar)
    i = off + name.encode().index(old)
    t[i:i + len(old)] = new
    if fix_checksum:
        t[off + 148:off + 156] = ustar_checksum(t[off:off + 512])
    return bytes(t)


def destination(path):
    """modelgate's flattening: <class folder>/<basename>."""
    base = path.rsplit("/", 1)[-1]
    ext = base.rsplit(".", 1)[-1]
    folder = {"json": "etc", "yaml": "etc", "yml": "etc", "so": "lib", "elf": "share"}[ext]
    return folder + "/" + base


def expected_bytes(files):
    out = {}
    for p, d in files.items():
        dest = destination(p)
        if dest in out:
            raise SystemExit(f"internal error: {p} collides with another file at {dest}")
        out[dest] = d
    return out


# ---------------------------------------------------------------------------------------
# Cases


class Case:
    """One package and its expected outcome: "valid" with the extracted files
    ({destination: bytes}), or an error kind (and, where given, the member it names)."""

    def __init__(self, name, recipe, data, expect, files=None, file_name=None, member=None):
        self.name, self.recipe, self.data, self.expect = name, recipe, data, expect
        self.files, self.file_name, self.member = files, file_name, member


CASES = []


def valid(name, recipe, data, files, expect_set, file_name=None):
    got = expected_bytes(files)
    if sorted(got) != sorted(expect_set):
        raise SystemExit(f"internal error in case {name}: {sorted(got)} != {sorted(expect_set)}")
    CASES.append(Case(name, recipe, data, "valid", files=got, file_name=file_name))


def reject(name, recipe, data, kind, file_name=None, member=None):
    """`member`: the archive path the error's location must name, when the case is about
    one entry (so that a rejection for another reason does not pass)."""
    CASES.append(Case(name, recipe, data, kind, file_name=file_name, member=member))


def with_files(changes):
    """The base files with some replaced or added (value bytes) or removed (value None)."""
    f = base_files()
    for k, v in changes.items():
        if v is None:
            f.pop(k)
        else:
            f[k] = v
    return f


def build_cases():
    # ---- the real generator's valid packages ------------------------------------------
    f = base_files()
    valid("basic", "base package (PAX, sorted, gzip mtime 0)", files_package(f), f, BASE_SET)

    f = base_files()
    f.pop("etc/0_process_mla.json")
    f["etc/model_mpk.json"] = dumps(contract([
        plugin_preproc(),
        plugin_mla(name="MLA_A", seq=2),
        plugin_mla(name="MLA_B", seq=3, inp="MLA_A"),
    ]))
    f["etc/pipeline_sequence.json"] = dumps(pipeline([
        stage_preproc(),
        stage_mla(2, "mla_stage_a", "0_process_mla_a.json", "preproc_0"),
        stage_mla(3, "mla_stage_b", "0_process_mla_b.json", ["mla_stage_a"]),
    ]))
    f["etc/0_process_mla_a.json"] = dumps(dict(MLA_CFG, stage="a"))
    f["etc/0_process_mla_b.json"] = dumps(dict(MLA_CFG, stage="b"))
    valid("multi-stage", "two MLA stages mla_stage_a/mla_stage_b, configs 0_process_mla_a/b.json",
          files_package(f), f,
          ["etc/0_preproc.json", "etc/0_process_mla_a.json", "etc/0_process_mla_b.json",
           "etc/model_mpk.json", "etc/pipeline_sequence.json", "lib/model.so",
           "share/model.elf"])

    f = with_files({"etc/pipeline_sequence.json": None})
    valid("no-pipeline-sequence", "base without etc/pipeline_sequence.json",
          files_package(f), f, [p for p in BASE_SET if p != "etc/pipeline_sequence.json"])

    f = with_files({"etc/manifest.json": dumps({"name": "unsupported", "version": 999})})
    valid("auxiliary-manifest", "base + etc/manifest.json {name:unsupported,version:999}",
          files_package(f), f, BASE_SET + ["etc/manifest.json"])

    f = base_files()
    tar = tar_bytes(entries_of(f))
    cut = len(tar) // 2
    valid("two-gzip-members", "base tar split in two halves, each its own gzip member",
          gz(tar[:cut]) + gz(tar[cut:]), f, BASE_SET)
    valid("zero-padding", "base package + 512 zero bytes after the gzip member",
          files_package(f) + b"\0" * 512, f, BASE_SET)

    # ---- the other writers of the ecosystem -------------------------------------------
    f = base_files()
    valid("gnu-style-dot", "GNU_FORMAT, ./ root entry, ./etc/ ./lib/ ./share/, ./etc/*.json",
          gnu_style(f), f, BASE_SET)
    valid("gnu-style-unsorted", "GNU_FORMAT ./ names, entries in insertion order (files first)",
          package([E("./" + p, data=d) for p, d in f.items()]
                  + [E("./", tarfile.DIRTYPE)], fmt=tarfile.GNU_FORMAT, sort=False),
          f, BASE_SET)
    valid("ustar-format", "USTAR_FORMAT headers, base package",
          package(entries_of(f), fmt=tarfile.USTAR_FORMAT), f, BASE_SET)
    valid("no-directory-entries", "base files without any directory entry",
          files_package(f, dirs=()), f, BASE_SET)

    # ---- modelgate-specific acceptances ------------------------------------------------
    f = {
        "configs/model_mpk.json": dumps(contract()),
        "configs/pipeline_sequence.json": dumps(pipeline()),
        "configs/stages/0_preproc.json": dumps(PREPROC_CFG),
        "configs/stages/0_process_mla.json": dumps(MLA_CFG),
        "models/v1/model.elf": ELF,
        "plugins/model.so": SO,
    }
    valid("flatten-nested", "files in nested folders (configs/stages/, models/v1/, plugins/)",
          files_package(f, dirs=("configs", "configs/stages", "models", "models/v1", "plugins")),
          f, BASE_SET)

    f = base_files()
    f["mpk.json"] = f.pop("etc/model_mpk.json")
    valid("contract-mpk-json-root", "contract named mpk.json at the archive root",
          files_package(f), f,
          [p if p != "etc/model_mpk.json" else "etc/mpk.json" for p in BASE_SET])

    f = with_files({"lib/model.so": None})
    valid("no-shared-library", "base without lib/model.so (only the .elf the MLA plugin names)",
          files_package(f), f, [p for p in BASE_SET if p != "lib/model.so"])

    f = with_files({
        "etc/model_mpk.json": dumps(contract([plugin_preproc(),
                                              plugin_mla(executable="stage1.so")])),
        "lib/stage1.so": SO + b"_stage1",
    })
    valid("mla-executable-so", "MLA resources.executable stage1.so, found at lib/stage1.so",
          files_package(f), f, BASE_SET + ["lib/stage1.so"])

    f = base_files()
    f["etc/model_mpk.json"] = dumps(contract([
        plugin_preproc(),
        plugin_preproc(name="quanttess_0", seq=2, inp="preproc_0", kernel="tessellation_transform"),
        plugin_mla(seq=3, inp="quanttess_0"),
        plugin_preproc(name="detess_0", seq=4, inp="MLA_0", kernel="detessellation_transform"),
        plugin_a65(seq=5, inp="detess_0"),
    ]))
    f["etc/pipeline_sequence.json"] = dumps(pipeline([
        stage_preproc(),
        stage(2, "quanttess_0", "processcvu", "0_quanttess.json", "CVU", "quanttess", "preproc_0"),
        stage_mla(3, "mla_0", "0_process_mla.json", ["quanttess_0"]),
        stage(4, "detessdequant_0", "processcvu", "0_detessdequant.json", "CVU",
              "detessdequant", "mla_0"),
        stage(5, "boxdecode_0", "processcvu", "0_boxdecode.json", "CVU", "boxdecode",
              ["detessdequant_0", "decoder"]),
    ]))
    f["etc/0_quanttess.json"] = dumps({"kernel": "quanttess"})
    f["etc/0_detessdequant.json"] = dumps({"kernel": "detessdequant"})
    f["etc/0_boxdecode.json"] = dumps({"kernel": "boxdecode", "topk": 100})
    f["lib/boxdecode.so"] = SO + b"_boxdecode"
    valid("full-pipeline", "EV74 preproc/tessellation/detessellation, MLA, A65 boxdecode "
          "(lib/boxdecode.so); CVU quanttess, detessdequant, boxdecode stages",
          files_package(f), f,
          BASE_SET + ["etc/0_quanttess.json", "etc/0_detessdequant.json",
                      "etc/0_boxdecode.json", "lib/boxdecode.so"])

    f = base_files()
    deep = dumps({"x": 1})[:-1] + b',"d":' + b"[" * 63 + b"]" * 63 + b"}"
    f["etc/deep.json"] = deep  # the object and 63 arrays: depth 64
    valid("json-depth-64", "etc/deep.json nested 64 deep (object + 63 arrays)",
          files_package(f), f, BASE_SET + ["etc/deep.json"])

    # ---- rejections: the real generator's own failure cases ---------------------------
    f = with_files({"a/collide.json": b"{}", "b/collide.json": b"{}"})
    reject("destination-collision", "a/collide.json and b/collide.json (both flatten to "
           "etc/collide.json)", files_package(f), "invalid_archive", member="b/collide.json")
    f = with_files({"etc/pipeline_sequence.json": b'{"pipelines":[{"sequence":['})
    reject("malformed-pipeline", "etc/pipeline_sequence.json truncated JSON",
           files_package(f), "schema_error", member="etc/pipeline_sequence.json")
    f = with_files({"etc/model_mpk.json": dumps({"plugins": []})})
    reject("placeholder-contract", "contract {\"plugins\":[]} (the generator's placeholder)",
           files_package(f), "schema_error", member="etc/model_mpk.json")

    # ---- rejections: archive layer ------------------------------------------------------
    f = base_files()
    reject("extension-txt", "base + etc/readme.txt",
           files_package(dict(f, **{"etc/readme.txt": b"hello"})), "schema_error",
           member="etc/readme.txt")
    reject("extension-upper", "base + etc/extra.JSON",
           files_package(dict(f, **{"etc/extra.JSON": b"{}"})), "schema_error",
           member="etc/extra.JSON")
    reject("duplicate-path", "etc/x.json twice",
           package(entries_of(f) + [E("etc/x.json", data=b"{}"), E("etc/x.json", data=b"{}")]),
           "invalid_archive")
    reject("duplicate-dot-path", "etc/x.json and ./etc/x.json",
           package(entries_of(f) + [E("etc/x.json", data=b"{}"),
                                    E("./etc/x.json", data=b"{}")]),
           "invalid_archive")
    reject("symlink", "base + etc/link.json -> model_mpk.json (SYMTYPE)",
           package(entries_of(f) + [E("etc/link.json", tarfile.SYMTYPE,
                                      linkname="model_mpk.json")]), "path_traversal",
           member="etc/link.json")
    reject("hardlink", "base + etc/hard.json hard link to etc/model_mpk.json (LNKTYPE)",
           package(entries_of(f) + [E("etc/hard.json", tarfile.LNKTYPE,
                                      linkname="etc/model_mpk.json")]), "path_traversal",
           member="etc/hard.json")
    for name, path in [
        ("absolute", "/etc/x.json"),
        ("dotdot", "../x.json"),
        ("dotdot-inner", "etc/../../x.json"),
        ("drive-prefix", "C:x.json"),
        ("backslash", "etc\\x.json"),
        ("slash-ff0f", "etc\uff0fx.json"),
        ("slash-2215", "etc\u2215x.json"),
        ("backslash-ff3c", "etc\uff3cx.json"),
        ("dot-ff0e", "etc/v1\uff0e0.json"),
        ("dot-2024", "etc/v1\u20240.json"),
        ("dot-fe52", "etc/v1\ufe520.json"),
        ("dot-ff0e-segment", "etc/\uff0e\uff0e/x.json"),
    ]:
        reject("path-" + name, f"base + file {path!r}",
               package(entries_of(f) + [E(path, data=b"{}")]), "path_traversal", member=path)
    tar = tar_bytes(entries_of(f) + [E("etc/abcX.json", data=b"{}")])
    reject("path-non-utf8", "base + etc/abcX.json with X patched to 0xff, ustar checksum fixed",
           gz(patch_name(tar, "etc/abcX.json", b"X", b"\xff")), "invalid_archive")
    reject("tar-checksum", "base + etc/abcX.json with X patched to Y, checksum left stale",
           gz(patch_name(tar, "etc/abcX.json", b"X", b"Y", fix_checksum=False)),
           "invalid_archive")
    good = files_package(f)
    reject("gzip-truncated", "base package cut to its first half", good[:len(good) // 2],
           "invalid_archive")
    reject("gzip-truncated-trailer", "base package without its last 4 bytes (ISIZE)",
           good[:-4], "invalid_archive")
    bad_crc = bytearray(good)
    bad_crc[-8] ^= 0xFF
    reject("gzip-bad-crc", "base package with the member's CRC32 byte 0 flipped",
           bytes(bad_crc), "invalid_archive")
    reject("gzip-trailing-garbage", "base package + b'garbage!'", good + b"garbage!",
           "invalid_archive")
    reject("gzip-zeros-then-garbage", "base package + 512 zero bytes + b'x'",
           good + b"\0" * 512 + b"x", "invalid_archive")
    reject("empty-file", "0 bytes", b"", "invalid_archive")
    reject("not-gzip", "the plain (uncompressed) base tar stream", tar_bytes(entries_of(f)),
           "invalid_archive")
    reject("name-tgz", "base package named .tgz", good, "invalid_archive",
           file_name="name-tgz.tgz")

    # ---- rejections: JSON --------------------------------------------------------------
    reject("json-duplicate-key", "base + etc/dup.json {\"a\":1,\"a\":2}",
           files_package(dict(f, **{"etc/dup.json": b'{"a":1,"a":2}'})), "schema_error",
           member="etc/dup.json")
    deep = dumps({"x": 1})[:-1] + b',"d":' + b"[" * 64 + b"]" * 64 + b"}"
    reject("json-depth-65", "base + etc/deep.json nested 65 deep (object + 64 arrays)",
           files_package(dict(f, **{"etc/deep.json": deep})), "schema_error",
           member="etc/deep.json")
    reject("json-syntax-stage-config", "etc/0_preproc.json with a trailing comma",
           files_package(with_files({"etc/0_preproc.json": b'{"kernel":"preproc",}'})),
           "schema_error", member="etc/0_preproc.json")
    reject("json-duplicate-key-contract", "contract with \"name\" twice",
           files_package(with_files({"etc/model_mpk.json": b'{"name":"a",' +
                                    dumps(contract())[1:]})), "schema_error",
           member="etc/model_mpk.json")

    # ---- rejections: required content ---------------------------------------------------
    reject("no-contract", "base without etc/model_mpk.json",
           files_package(with_files({"etc/model_mpk.json": None})), "schema_error")
    reject("two-contracts", "base + etc/other_mpk.json (a second contract)",
           files_package(with_files({"etc/other_mpk.json": dumps(contract())})),
           "schema_error", member="etc/other_mpk.json")
    reject("no-binaries", "base without share/model.elf and lib/model.so",
           files_package(with_files({"share/model.elf": None, "lib/model.so": None})),
           "invalid_archive")

    # ---- rejections: contract rules ------------------------------------------------------
    def bad_contract(name, recipe, mutate):
        c = contract()
        mutate(c)
        reject("contract-" + name, recipe,
               files_package(with_files({"etc/model_mpk.json": dumps(c)})), "schema_error",
               member="etc/model_mpk.json")

    def set_(path, value):
        def m(c):
            obj = c
            for k in path[:-1]:
                obj = obj[k]
            obj[path[-1]] = value
        return m

    def delete(path):
        def m(c):
            obj = c
            for k in path[:-1]:
                obj = obj[k]
            del obj[path[-1]]
        return m

    bad_contract("missing-executable", "MLA resources.executable missing.elf (not in package)",
                 set_(["plugins", 1, "resources", "executable"], "missing.elf"))
    bad_contract("no-resources", "MLA plugin without resources",
                 delete(["plugins", 1, "resources"]))
    bad_contract("duplicate-plugin", "both plugins named preproc_0",
                 set_(["plugins", 1, "name"], "preproc_0"))
    bad_contract("sequence-gap", "sequences 1 and 3", set_(["plugins", 1, "sequence"], 3))
    bad_contract("sequence-duplicate", "sequences 1 and 1", set_(["plugins", 1, "sequence"], 1))
    bad_contract("sequence-zero-based", "sequences 0 and 1",
                 lambda c: (set_(["plugins", 0, "sequence"], 0)(c),
                            set_(["plugins", 1, "sequence"], 1)(c)))
    bad_contract("sequence-string", "sequence \"2\"", set_(["plugins", 1, "sequence"], "2"))
    bad_contract("processor-unknown", "processor GPU", set_(["plugins", 0, "processor"], "GPU"))
    bad_contract("ev74-no-kernel", "EV74 plugin without config_params.kernel",
                 delete(["plugins", 0, "config_params", "kernel"]))
    bad_contract("ev74-unknown-kernel", "EV74 kernel frobnicate",
                 set_(["plugins", 0, "config_params", "kernel"], "frobnicate"))
    bad_contract("mla-batch-zero", "MLA desired_batch_size 0",
                 set_(["plugins", 1, "config_params", "desired_batch_size"], 0))
    bad_contract("mla-batch-missing", "MLA without actual_batch_size",
                 delete(["plugins", 1, "config_params", "actual_batch_size"]))
    bad_contract("no-config-params", "EV74 plugin without config_params",
                 delete(["plugins", 0, "config_params"]))
    bad_contract("no-output-nodes", "MLA plugin without output_nodes",
                 delete(["plugins", 1, "output_nodes"]))
    bad_contract("input-nodes-object", "EV74 input_nodes an object",
                 set_(["plugins", 0, "input_nodes"], {}))
    bad_contract("a65-no-executable", "A65 plugin (kernel processtvm) without resources",
                 lambda c: c["plugins"].append(
                     {k: v for k, v in plugin_a65(kernel="processtvm").items()
                      if k != "resources"}))

    # ---- rejections: pipeline rules ------------------------------------------------------
    def bad_pipeline(name, recipe, stages, kind="schema_error"):
        reject("pipeline-" + name, recipe,
               files_package(with_files({"etc/pipeline_sequence.json":
                                         dumps(pipeline(stages))})),
               kind, member="etc/pipeline_sequence.json")

    bad_pipeline("unknown-kernel", "CVU stage kernel frobnicate",
                 [stage(1, "preproc_0", "processcvu", "0_preproc.json", "CVU", "frobnicate",
                        "decoder"), stage_mla()])
    bad_pipeline("missing-config", "MLA stage configPath missing.json",
                 [stage_preproc(), stage_mla(config="missing.json")])
    bad_pipeline("config-not-json", "MLA stage configPath model.elf",
                 [stage_preproc(), stage_mla(config="model.elf")])
    bad_pipeline("input-later-stage", "preproc_0 input mla_0 (a later stage)",
                 [stage_preproc(inp="mla_0"), stage_mla()])
    bad_pipeline("input-unknown", "MLA stage input nowhere",
                 [stage_preproc(), stage_mla(inp=["nowhere"])])
    bad_pipeline("empty-sequence", "pipelines[0].sequence []", [])


def build_gnu_tar_cases(tmp):
    """Packages made by the real `tar` binary on a real folder tree."""
    root = os.path.join(tmp, "tree")
    files = dict(base_files())
    files["etc/labels.yaml"] = b"labels:\n  - cat\n  - dog\n"
    files["etc/postproc/nms.yml"] = b"iou: 0.5\nscore: 0.25\n"
    for p, d in files.items():
        path = os.path.join(root, *p.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(d)
    want = BASE_SET + ["etc/labels.yaml", "etc/nms.yml"]
    for name, args in [
        ("gnu-tar-czf", ["tar", "-czf", None, "-C", root, "."]),
        ("gnu-tar-posix", ["tar", "--format=posix", "-czf", None, "-C", root, "."]),
        ("gnu-tar-names", ["tar", "-czf", None, "-C", root, "etc", "lib", "share"]),
    ]:
        out = os.path.join(tmp, name + ".src.tar.gz")
        args[args.index(None)] = out
        r = subprocess.run(args, capture_output=True)
        if r.returncode != 0:
            raise SystemExit(f"tar failed for {name}: {r.stderr.decode(errors='replace')}")
        with open(out, "rb") as fh:
            data = fh.read()
        valid(name, " ".join(args).replace(tmp, "$TMP") +
              " (tree: base files, etc/labels.yaml, etc/postproc/nms.yml)", data, files, want)


# ---------------------------------------------------------------------------------------
# Running


def regular_files(dest):
    out = {}
    for dirpath, dirnames, filenames in os.walk(dest):
        for n in filenames + dirnames:
            full = os.path.join(dirpath, n)
            rel = os.path.relpath(full, dest).replace(os.sep, "/")
            if os.path.islink(full):
                out[rel] = "<symlink>"
            elif n in filenames:
                with open(full, "rb") as fh:
                    out[rel] = fh.read()
    return out


def run_case(binary, tmp, case):
    name, expect, files = case.name, case.expect, case.files
    path = os.path.join(tmp, case.file_name or (name + ".tar.gz"))
    with open(path, "wb") as fh:
        fh.write(case.data)
    problems = []

    r = subprocess.run([binary, "check", "--format", "mpk", "--json", path], capture_output=True)
    lines = [l for l in r.stdout.decode(errors="replace").splitlines() if l.strip()]
    got = None
    if len(lines) != 1:
        problems.append(f"check printed {len(lines)} lines (exit {r.returncode}): "
                        f"{r.stdout!r} {r.stderr!r}")
    else:
        try:
            got = json.loads(lines[0])
        except ValueError as e:
            problems.append(f"check printed non-JSON {lines[0]!r}: {e}")
    if got is not None:
        missing = {"file", "format", "ok", "kind", "message", "location"} - set(got)
        if missing:
            problems.append(f"check JSON lacks {sorted(missing)}: {got}")
        outcome = "valid" if got.get("ok") is True else got.get("kind")
        if outcome != expect:
            problems.append(f"check: expected {expect}, got {outcome} "
                            f"(message {got.get('message')!r}, location {got.get('location')!r})")
        want_rc = 0 if expect == "valid" else 1
        if r.returncode != want_rc:
            problems.append(f"check exit {r.returncode}, expected {want_rc}")
        if got.get("format") != "mpk":
            problems.append(f"check format {got.get('format')!r}, expected 'mpk'")
        if case.member is not None and outcome == expect:
            member = (got.get("location") or {}).get("member")
            if member != case.member:
                problems.append(f"check: {expect} names member {member!r}, expected "
                                f"{case.member!r} (message {got.get('message')!r})")

    dest = os.path.join(tmp, "out-" + name)
    r = subprocess.run([binary, "mpk", "extract", path, dest], capture_output=True)
    text = (r.stdout + r.stderr).decode(errors="replace").strip()
    if expect == "valid":
        if r.returncode != 0:
            problems.append(f"extract exit {r.returncode}, expected 0: {text}")
        elif not os.path.isdir(dest):
            problems.append("extract exit 0 but DEST is not a directory")
        else:
            extracted = regular_files(dest)
            if sorted(extracted) != sorted(files):
                problems.append(f"extracted set differs: unexpected "
                                f"{sorted(set(extracted) - set(files))}, missing "
                                f"{sorted(set(files) - set(extracted))}")
            for p, d in files.items():
                if p in extracted and extracted[p] != d:
                    problems.append(f"extracted {p} differs from the packaged bytes: "
                                    f"{extracted[p][:40]!r} vs {d[:40]!r}")
    else:
        if r.returncode != 1:
            problems.append(f"extract exit {r.returncode}, expected 1: {text}")
        elif f"rejected (mpk) {expect}" not in text:
            problems.append(f"extract message lacks 'rejected (mpk) {expect}': {text}")
        if os.path.lexists(dest):
            problems.append("extract rejected the package but left DEST behind")
        leftovers = [n for n in os.listdir(tmp) if n.endswith(".mpk-tmp")]
        if leftovers:
            problems.append(f"extract left temporary roots behind: {leftovers}")
    return problems


def main(argv):
    if len(argv) != 2:
        print("usage: python3 tools/mpk_real_packages.py PATH/TO/modelgate", file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    if not os.access(binary, os.X_OK):
        print(f"mpk real packages: {argv[1]} is not an executable", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mpk-real-") as tmp:
        build_cases()
        build_gnu_tar_cases(tmp)
        names = [c.name for c in CASES]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SystemExit(f"internal error: duplicate case names {sorted(dup)}")
        passed, failed = 0, []
        for case in CASES:
            problems = run_case(binary, tmp, case)
            if problems:
                failed.append((case, problems))
            else:
                passed += 1
    for case, problems in failed:
        print(f"FAIL {case.name} (expected {case.expect}; package: {case.recipe})")
        for p in problems:
            print(f"    {p}")
    if failed:
        print(f"mpk real packages: {passed} passed, {len(failed)} failed")
        return 1
    print(f"mpk real packages: {passed} passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
