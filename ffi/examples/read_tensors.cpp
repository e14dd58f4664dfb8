// read_tensors: open a OneModel file through modelgate's C ABI and list its tensors.
//
//   read_tensors [--buffer] FILE.onemodel
//
// By default the library opens the file itself (mg_onemodel_open_file: read, or mapped
// once mg_allow_mapping was called). With --buffer the program reads the file into its own
// memory and hands the bytes over (mg_onemodel_open): the handle borrows them, so they must
// outlive it. Either way the file is checked whole before any tensor is shown, and each
// tensor's data points into the file's bytes, never a copy.
//
// Prints one line per tensor: NAME DTYPE [DIMS] N bytes fnv1a HEX (or N strings), then
// `N tensors`. Exit 1 when the file is rejected, 2 for usage or I/O errors.

#include "modelgate.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Free {
    void operator()(mg_onemodel *m) const { mg_onemodel_free(m); }
};
using Model = std::unique_ptr<mg_onemodel, Free>;

// FNV-1a over the tensor's bytes: shows the bytes were read, cheaply.
std::uint64_t fnv1a(const std::uint8_t *p, std::size_t n) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int list(const mg_onemodel *model) {
    const std::size_t count = mg_onemodel_tensor_count(model);
    for (std::size_t i = 0; i < count; i++) {
        mg_tensor t{};
        if (mg_onemodel_tensor(model, i, &t) != MG_OK) {
            std::fprintf(stderr, "tensor %zu: not readable\n", i);
            return 2;
        }
        const char *dtype = mg_dtype_name(t.dtype);
        std::string line = "\"" + std::string(t.name, t.name_len) + "\" " + (dtype ? dtype : "?") + " [";
        for (std::size_t d = 0; d < t.rank; d++) line += (d ? ", " : "") + std::to_string(t.dims[d]);
        line += "]";
        if (t.dtype == MG_DTYPE_STRING) {
            std::size_t bytes = 0;
            for (std::size_t e = 0; e < t.string_count; e++) {
                const std::uint8_t *s = nullptr;
                std::size_t n = 0;
                if (mg_onemodel_tensor_string(model, i, e, &s, &n) != MG_OK) return 2;
                bytes += n;
            }
            line += " " + std::to_string(t.string_count) + " strings, " + std::to_string(bytes) + " bytes";
        } else {
            char hash[17];
            std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(t.data, t.data_len)));
            line += " " + std::to_string(t.data_len) + " bytes fnv1a " + hash;
        }
        std::printf("%s\n", line.c_str());
    }
    std::printf("%zu tensors\n", count);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    const bool buffer = argc == 3 && std::string(argv[1]) == "--buffer";
    if (argc != 2 && !buffer) {
        std::fprintf(stderr, "usage: read_tensors [--buffer] FILE.onemodel\n");
        return 2;
    }
    const char *path = argv[argc - 1];

    char text[512];
    mg_result result{};
    result.message = text;
    result.message_capacity = sizeof text;
    mg_limits limits = mg_limits_default();
    limits.onemodel.max_tensor_bytes = 64u << 20;  // a loader's own bound: 64 MiB a tensor

    std::vector<std::uint8_t> bytes;  // declared before the handle: outlives it
    Model model;
    if (buffer) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "%s: cannot open\n", path);
            return 2;
        }
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        model.reset(mg_onemodel_open(bytes.data(), bytes.size(), &limits, &result));
    } else {
        mg_allow_mapping();  // this program's files are not written while it runs
        model.reset(mg_onemodel_open_file(path, &limits, &result));
    }
    if (!model) {
        const char *kind = mg_kind_name(result.kind);
        std::fprintf(stderr, "%s: %s (%s)\n", path, text, kind ? kind : "no verdict");
        return result.kind != MG_KIND_NONE ? 1 : 2;
    }
    return list(model.get());
}
