#!/usr/bin/env python3
"""darsay-verify.py: verify a darsay bundle without darsay (spec/mvb.md section 7.2).

Usage:
    python3 darsay-verify.py BUNDLE_DIR
    python3 darsay-verify.py BUNDLE_ID.mvb.tar     (read as a stream, never unpacked)

Re-hashes every payload file (inventory.layout.payload_root) against manifest.json
(inventory.files[].sha256 and .size), reports missing, extra and mismatched files, and
recomputes the bundle hash: SHA-256 of the lines "<sha256>  <path>\\n" sorted by path
(inventory.bundle_hash, algorithm sha256-of-sorted-sha256-lines). For an .mvb.tar the
.mvb.json marker must be the first entry and agree with the manifest.

Exit status: 0 pass, 1 fail (mismatch, missing, extra, bundle hash), 2 usage or format
error. Python 3 standard library only. It writes nothing but its report on stdout.
"""

import hashlib
import json
import os
import re
import stat
import sys
import tarfile

ALGORITHM = "sha256-of-sorted-sha256-lines"
DECIMAL = r"(0|[1-9][0-9]*)"
FORMAT_VERSION = re.compile(rf"{DECIMAL}\.{DECIMAL}")
SCHEMA_VERSION = re.compile(rf"{DECIMAL}\.{DECIMAL}\.{DECIMAL}")
CHUNK = 1 << 20


class FormatError(Exception):
    """The input is not a bundle this tool understands (exit 2)."""


def strict_json(data, what):
    def pairs(items):
        seen = {}
        for key, value in items:
            if key in seen:
                raise FormatError(f"{what}: duplicate member {key!r}")
            seen[key] = value
        return seen

    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=pairs)
    except (UnicodeDecodeError, ValueError) as e:
        raise FormatError(f"{what}: not valid JSON ({e})") from None


def field(obj, *names):
    cur = obj
    for name in names:
        if not isinstance(cur, dict) or name not in cur:
            raise FormatError("manifest.json: missing " + ".".join(names))
        cur = cur[name]
    return cur


def check_schema_version(version, what):
    if not isinstance(version, str) or not SCHEMA_VERSION.fullmatch(version):
        raise FormatError(f"{what}: schema_version is not MAJOR.MINOR.PATCH")
    if version.split(".")[0] != "1":
        raise FormatError(f"{what}: unsupported schema_version {version!r}")


def check_marker(marker):
    if not isinstance(marker, dict):
        raise FormatError(".mvb.json: not a JSON object")
    version = marker.get("mvb_format_version")
    if not isinstance(version, str) or not FORMAT_VERSION.fullmatch(version):
        raise FormatError(".mvb.json: mvb_format_version is not MAJOR.MINOR")
    if version.split(".")[0] != "1":
        raise FormatError(f"unsupported mvb_format_version {version!r}")
    check_schema_version(marker.get("schema_version"), ".mvb.json")
    bh = marker.get("bundle_hash")
    if not isinstance(bh, dict) or bh.get("algorithm") != ALGORITHM:
        raise FormatError(".mvb.json: unknown bundle_hash algorithm")


def read_manifest(data):
    m = strict_json(data, "manifest.json")
    check_schema_version(field(m, "schema_version"), "manifest.json")
    if field(m, "kind") != "darsay.bundle":
        raise FormatError("manifest.json: kind is not darsay.bundle")
    root = field(m, "inventory", "layout", "payload_root")
    if not isinstance(root, str) or not root.strip("/") or "/" in root.rstrip("/"):
        raise FormatError("manifest.json: bad inventory.layout.payload_root")
    root = root.rstrip("/")
    files = field(m, "inventory", "files")
    if not isinstance(files, list):
        raise FormatError("manifest.json: inventory.files is not an array")
    inventory = {}
    for i, f in enumerate(files):
        if not isinstance(f, dict):
            raise FormatError(f"manifest.json: bad inventory.files[{i}]")
        path, size, sha = f.get("path"), f.get("size"), f.get("sha256")
        if not isinstance(path, str) or not isinstance(size, int) or not isinstance(sha, str):
            raise FormatError(f"manifest.json: bad inventory.files[{i}]")
        if path in inventory:
            raise FormatError(f"manifest.json: duplicate inventory path {path!r}")
        inventory[path] = (size, sha)
    bh = field(m, "inventory", "bundle_hash")
    if field(m, "inventory", "bundle_hash", "algorithm") != ALGORITHM:
        raise FormatError("manifest.json: unknown bundle_hash algorithm")
    return m, root, inventory, bh.get("value")


def bundle_hash(hashes):
    h = hashlib.sha256()
    for path in sorted(hashes, key=lambda p: p.encode("utf-8")):
        h.update(f"{hashes[path]}  {path}\n".encode("utf-8"))
    return h.hexdigest()


def compare(root, inventory, expected_hash, found, report):
    """found: {bundle path: (size, sha256)} of the payload files present."""
    ok = True
    for path in sorted(set(inventory) | set(found), key=lambda p: p.encode("utf-8")):
        if path not in found:
            report(f"MISSING   {path}")
            ok = False
        elif path not in inventory:
            report(f"EXTRA     {path}")
            ok = False
        elif found[path] != inventory[path]:
            report(f"MISMATCH  {path}")
            ok = False
    computed = bundle_hash({p: s for p, (_, s) in found.items()})
    if computed != expected_hash:
        report(f"BUNDLE-HASH mismatch: computed {computed}, manifest {expected_hash}")
        ok = False
    return ok


def hash_stream(read):
    h, n = hashlib.sha256(), 0
    while True:
        chunk = read(CHUNK)
        if not chunk:
            return n, h.hexdigest()
        h.update(chunk)
        n += len(chunk)


def verify_dir(folder, report):
    with open(os.path.join(folder, "manifest.json"), "rb") as f:
        _, root, inventory, expected = read_manifest(f.read())
    found = {}
    base = os.path.join(folder, root)
    if os.path.isdir(base) and not os.path.islink(base):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                full = os.path.join(dirpath, name)
                st = os.lstat(full)
                rel = os.path.relpath(full, folder).replace(os.sep, "/")
                if stat.S_ISDIR(st.st_mode) or name == ".DS_Store":
                    continue  # .DS_Store is machine-local litter, never payload (spec/mvb.md 2.4)
                if not stat.S_ISREG(st.st_mode):
                    report(f"EXTRA     {rel} (not a regular file)")
                    found[rel] = (None, None)
                    continue
                with open(full, "rb") as f:
                    found[rel] = hash_stream(f.read)
    return compare(root, inventory, expected, found, report)


def verify_tar(path, report):
    found, manifest, marker, bundle_id, last = {}, None, None, None, None
    with tarfile.open(path, mode="r|") as tar:
        for i, member in enumerate(tar):
            name = member.name
            if i == 0:
                if not member.isreg() or not name.endswith("/.mvb.json") or name.count("/") != 1:
                    raise FormatError("the first entry is not the .mvb.json marker")
                bundle_id = name[: -len("/.mvb.json")]
                marker = strict_json(tar.extractfile(member).read(), ".mvb.json")
                check_marker(marker)
                continue
            if not member.isreg():
                raise FormatError(f"{name}: not a regular file")
            if not name.startswith(bundle_id + "/"):
                raise FormatError(f"{name}: outside the bundle folder")
            rel = name[len(bundle_id) + 1 :]
            bad = rel.startswith("/") or ".." in rel.split("/") or rel == ".mvb.json"
            if bad or (last is not None and rel <= last):
                raise FormatError(f"{name}: bad, duplicate or unsorted path")
            last = rel
            f = tar.extractfile(member)
            if rel == "manifest.json":
                data = f.read()
                manifest = data
                found[rel] = (len(data), hashlib.sha256(data).hexdigest())
            else:
                found[rel] = hash_stream(f.read)
    if manifest is None:
        raise FormatError("no manifest.json in the archive")
    m, root, inventory, expected = read_manifest(manifest)
    payload = {p: v for p, v in found.items() if p.startswith(root + "/")}
    ok = compare(root, inventory, expected, payload, report)
    mh = marker.get("bundle_hash") if isinstance(marker, dict) else None
    bh = field(m, "inventory", "bundle_hash")
    # spec/mvb.md 4.4: every fact the marker states about the manifest must agree.
    agrees = (
        isinstance(mh, dict)
        and all(mh.get(k) == bh.get(k) for k in ("algorithm", "value", "covers"))
        and mh.get("value") == expected
        and marker.get("bundle_id") == m.get("bundle_id") == bundle_id
        and marker.get("artifact_type") == m.get("artifact_type")
        and marker.get("schema_version") == m.get("schema_version")
        and marker.get("payload_file_count") == len(inventory)
        and marker.get("payload_size_bytes") == sum(size for size, _ in inventory.values())
    )
    if not agrees:
        report("MARKER disagrees with manifest.json")
        ok = False
    return ok


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    target = argv[1]
    report = print
    try:
        if os.path.isdir(target):
            ok = verify_dir(target, report)
        elif os.path.isfile(target):
            ok = verify_tar(target, report)
        else:
            print(f"darsay-verify: {target}: no such bundle folder or file", file=sys.stderr)
            return 2
    except (FormatError, tarfile.TarError, OSError, KeyError, AttributeError, TypeError) as e:
        print(f"darsay-verify: {target}: {e}", file=sys.stderr)
        return 2
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
