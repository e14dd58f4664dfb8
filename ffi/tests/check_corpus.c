/*
 * check_corpus: every file of the hostile corpus through the C ABI's buffer checks.
 *
 *   check_corpus CORPUS_DIR
 *
 * Walks CORPUS_DIR/<format>/..., reads each regular file into memory and calls the buffer
 * check of its folder's format (mg_check_json, mg_check_mlbundle, mg_check_onemodel, or
 * mg_check_onnx for a .onnx file under onemodel/, mg_check_mpk after
 * mg_check_mpk_file_name, mg_check_mvb, mg_check_gzip, mg_check_deflate). Prints one line
 * per file, sorted by path:
 *
 *   PATH KIND
 *
 * KIND is "valid" when accepted, the kind's exact name (mg_kind_name) when rejected, or
 * "error:STATUS" when no verdict was reached. ffi/tests/compare.py holds each line to the
 * outcome the file's name asks for, as corpus-check does.
 *
 * Before the walk it checks the ABI's argument handling and message truncation, and exits
 * 1 on the first surprise. Exit 2 for usage or I/O errors.
 */
#define _XOPEN_SOURCE 700
#include "modelgate.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef mg_status (*check_fn)(const uint8_t *, size_t, const mg_limits *, mg_result *);

static char **paths;
static size_t npaths, cap;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (type != FTW_F) return 0;
    if (npaths == cap) {
        cap = cap ? cap * 2 : 1024;
        char **more = realloc(paths, cap * sizeof *paths);
        if (!more) return 1;
        paths = more;
    }
    paths[npaths] = strdup(path);
    if (!paths[npaths]) return 1;
    npaths++;
    return 0;
}

static int by_path(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The check for a file in folder `format` (the first folder under the corpus root). */
static check_fn check_for(const char *format, const char *path) {
    if (strcmp(format, "json") == 0) return mg_check_json;
    if (strcmp(format, "mlbundle") == 0) return mg_check_mlbundle;
    if (strcmp(format, "onemodel") == 0) return ends_with(path, ".onnx") ? mg_check_onnx : mg_check_onemodel;
    if (strcmp(format, "mpk") == 0) return mg_check_mpk;
    if (strcmp(format, "mvb") == 0) return mg_check_mvb;
    if (strcmp(format, "gzip") == 0) return mg_check_gzip;
    if (strcmp(format, "deflate") == 0) return mg_check_deflate;
    return NULL;
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t size = 0, room = 4096;
    uint8_t *buf = malloc(room);
    while (buf) {
        size_t n = fread(buf + size, 1, room - size, f);
        size += n;
        if (size < room) break;
        room *= 2;
        uint8_t *more = realloc(buf, room);
        if (!more) {
            free(buf);
            buf = NULL;
        }
        buf = more;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return NULL;
    }
    *len = size;
    return buf;
}

#define EXPECT(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "check_corpus: %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* The ABI's promises that need no corpus: statuses for bad arguments, truncation at a
 * UTF-8 boundary with a NUL, limits checked, names of kinds and formats. */
static void self_test(void) {
    static const uint8_t dup[] = "{\"a\":1,\"a\":2}";
    char text[256];
    mg_result r;
    memset(&r, 0, sizeof r);
    r.message = text;
    r.message_capacity = sizeof text;

    EXPECT(mg_check_json(dup, sizeof dup - 1, NULL, &r) == MG_REJECTED);
    EXPECT(r.format == MG_FORMAT_JSON && r.kind == MG_JSON_INVALID_JSON);
    EXPECT(r.has_offset && r.offset == 7);
    EXPECT(strcmp(text, "InvalidJSON: duplicate object member name (byte 7)") == 0);
    EXPECT(r.message_len == strlen(text) && !r.truncated);
    EXPECT(strcmp(mg_kind_name(r.kind), "InvalidJSON") == 0);
    EXPECT(strcmp(mg_format_name(r.format), "json") == 0);

    /* Cut with room for the NUL: 8 bytes hold 7 characters. */
    memset(text, 'x', sizeof text);
    r.message_capacity = 8;
    EXPECT(mg_check_json(dup, sizeof dup - 1, NULL, &r) == MG_REJECTED);
    EXPECT(r.truncated && r.message_len == 7 && strcmp(text, "Invalid") == 0 && text[8] == 'x');
    /* No buffer: status and kind still come back. */
    r.message = NULL;
    r.message_capacity = 0;
    EXPECT(mg_check_json(dup, sizeof dup - 1, NULL, &r) == MG_REJECTED && r.kind == MG_JSON_INVALID_JSON);
    EXPECT(r.truncated && r.message_len == 0);
    r.message = text;
    r.message_capacity = sizeof text;

    EXPECT(mg_check_json((const uint8_t *)"[1]", 3, NULL, &r) == MG_OK);
    EXPECT(r.kind == MG_KIND_NONE && !r.has_offset && r.message_len == 0 && text[0] == 0);
    EXPECT(mg_check_json((const uint8_t *)"[1]", 3, NULL, NULL) == MG_OK);
    EXPECT(mg_check_json(NULL, 0, NULL, &r) == MG_REJECTED); /* empty input: not JSON */
    EXPECT(mg_check_json(NULL, 5, NULL, &r) == MG_ERR_NULL);
    EXPECT(r.kind == MG_KIND_NONE && r.format == MG_FORMAT_NONE && r.message_len > 0);
    EXPECT(mg_check_onemodel(dup, SIZE_MAX, NULL, &r) == MG_ERR_LENGTH);

    mg_limits limits = mg_limits_default();
    EXPECT(limits.struct_size == sizeof(mg_limits));
    limits.json.max_depth = 1;
    EXPECT(mg_check_json((const uint8_t *)"[[1]]", 5, &limits, &r) == MG_REJECTED);
    EXPECT(r.kind == MG_JSON_LIMIT_EXCEEDED && strcmp(mg_kind_name(r.kind), "LimitExceeded") == 0);
    limits = mg_limits_default();
    limits.mlbundle.members = 7; /* above the version 1 ceiling of 6 */
    EXPECT(mg_check_mlbundle(dup, sizeof dup - 1, &limits, &r) == MG_ERR_LIMITS);
    limits = mg_limits_default();
    limits.struct_size = 8;
    EXPECT(mg_check_json(dup, sizeof dup - 1, &limits, &r) == MG_ERR_LIMITS);

    EXPECT(mg_check_mpk_file_name("model.tgz", &r) == MG_REJECTED && r.kind == MG_MPK_INVALID_ARCHIVE);
    EXPECT(mg_check_mpk_file_name("model.tar.gz", &r) == MG_OK);
    EXPECT(mg_check_mpk_file_name(NULL, &r) == MG_ERR_NULL);

    EXPECT(mg_kind_name(MG_KIND_NONE) == NULL && mg_kind_name(12345) == NULL);
    EXPECT(strcmp(mg_kind_name(MG_MPK_SIZE_LIMIT_EXCEEDED), "size_limit_exceeded") == 0);
    EXPECT(strcmp(mg_dtype_name(MG_DTYPE_FLOAT), "float") == 0 && mg_dtype_name(0) == NULL);
    EXPECT(mg_onemodel_open(dup, sizeof dup - 1, NULL, &r) == NULL);
    EXPECT(r.kind == MG_ONEMODEL_MALFORMED);
    EXPECT(mg_onemodel_tensor_count(NULL) == 0);
    mg_onemodel_free(NULL);
    EXPECT(strlen(mg_version()) > 0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: check_corpus CORPUS_DIR\n");
        return 2;
    }
    self_test();
    const char *root = argv[1];
    size_t root_len = strlen(root);
    while (root_len > 1 && root[root_len - 1] == '/') root_len--;
    if (nftw(root, collect, 16, FTW_PHYS) != 0) {
        perror(root);
        return 2;
    }
    qsort(paths, npaths, sizeof *paths, by_path);

    char text[512];
    mg_result r;
    size_t checked = 0;
    for (size_t i = 0; i < npaths; i++) {
        const char *path = paths[i];
        /* PATH is ROOT/FORMAT/...: the folder right under the root names the format. */
        const char *rel = path + root_len;
        while (*rel == '/') rel++;
        const char *slash = strchr(rel, '/');
        if (!slash) continue; /* a file at the root (SHA256SUMS) */
        char format[32];
        size_t n = (size_t)(slash - rel);
        if (n >= sizeof format) continue;
        memcpy(format, rel, n);
        format[n] = 0;
        check_fn check = check_for(format, path);
        if (!check) continue;

        size_t len = 0;
        uint8_t *data = read_file(path, &len);
        if (!data) {
            perror(path);
            return 2;
        }
        memset(&r, 0, sizeof r);
        r.message = text;
        r.message_capacity = sizeof text;
        mg_status status = MG_OK;
        if (strcmp(format, "mpk") == 0) {
            const char *name = strrchr(path, '/');
            status = mg_check_mpk_file_name(name ? name + 1 : path, &r);
        }
        if (status == MG_OK) status = check(data, len, NULL, &r);
        free(data);

        if (status == MG_OK) {
            printf("%s valid\n", path);
        } else if (status == MG_REJECTED) {
            const char *kind = mg_kind_name(r.kind);
            printf("%s %s\n", path, kind ? kind : "unknown-kind");
            /* The text starts with the kind's name and ends with a NUL inside the buffer. */
            if (kind && strncmp(text, kind, strlen(kind)) != 0) {
                fprintf(stderr, "%s: message does not start with %s: %s\n", path, kind, text);
                return 1;
            }
        } else {
            printf("%s error:%d\n", path, (int)status);
            fprintf(stderr, "%s: %s\n", path, text);
        }
        checked++;
    }
    for (size_t i = 0; i < npaths; i++) free(paths[i]);
    free(paths);
    fprintf(stderr, "check_corpus: %zu files checked through the C ABI\n", checked);
    return 0;
}
