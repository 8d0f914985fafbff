/* testutil.c - temp dirs, fixtures and small file helpers for Check tests.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "testutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *tmp_root(void)
{
    const char *t = getenv("TMPDIR");
    return (t && *t) ? t : "/tmp";
}

char *tu_mkdtemp(void)
{
    char *p = NULL;

    if (asprintf(&p, "%s/ctkgen-test-XXXXXX", tmp_root()) < 0)
        return NULL;
    if (!mkdtemp(p)) {
        free(p);
        return NULL;
    }
    return p;
}

char *tu_scratch(void)
{
    char *dir = tu_mkdtemp();

    ck_assert_ptr_nonnull(dir);
    return dir;
}

void tu_scratch_end(char **dir)
{
    tu_free_kept();
    if (*dir)
        tu_rmtree(*dir);
    free(*dir);
    *dir = NULL;
}

void tu_rmtree(const char *dir)
{
    if (!dir || (strncmp(dir, tmp_root(), strlen(tmp_root())) != 0 && strncmp(dir, "/tmp/", 5) != 0))
        return;
    tu_sh("chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
}

static void mkdirs(const char *path)
{
    char *p = strdup(path), *s;

    for (s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    }
    mkdir(p, 0755);
    free(p);
}

char *tu_mkdirs(const char *dir, const char *rel)
{
    char *p = NULL;

    if (asprintf(&p, "%s/%s", dir, rel) < 0)
        return NULL;
    mkdirs(p);
    return p;
}

char *tu_write(const char *dir, const char *rel, const char *text)
{
    char *p = NULL, *slash;
    FILE *f;

    if (asprintf(&p, "%s/%s", dir, rel) < 0)
        return NULL;
    slash = strrchr(p, '/');
    *slash = '\0';
    mkdirs(p);
    *slash = '/';
    f = fopen(p, "w");
    ck_assert_msg(f != NULL, "cannot write %s: %s", p, strerror(errno));
    fputs(text, f);
    fclose(f);
    return p;
}

/* tu_write() of the text fmt formats, made executable when exe. */
static void fake_file(const char *dir, const char *rel, bool exe, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fake_file(const char *dir, const char *rel, bool exe, const char *fmt, ...)
{
    va_list ap;
    char *text = NULL, *p;

    va_start(ap, fmt);
    ck_assert_int_ge(vasprintf(&text, fmt, ap), 0);
    va_end(ap);
    p = tu_write(dir, rel, text);
    ck_assert_ptr_nonnull(p);
    if (exe)
        ck_assert_int_eq(chmod(p, 0755), 0);
    free(p);
    free(text);
}

char *tu_fake_toolkit(const char *dir, const char *rel, const char *json, int cudart)
{
    int ma = cudart / 1000, mi = cudart % 1000 / 10;
    char *root = NULL, *f = NULL, *so = NULL;

    ck_assert_int_ge(asprintf(&root, "%s/%s", dir, rel), 0);
    ck_assert_int_ge(asprintf(&f, "%s/bin/nvcc", rel), 0);
    fake_file(dir, f, true,
              "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
              "echo 'Cuda compilation tools, release %d.%d, V%d.%d.99'\n", ma, mi, ma, mi);
    free(f);
    ck_assert_int_ge(asprintf(&f, "%s/include/cuda_runtime.h", rel), 0);
    fake_file(dir, f, false, "#include \"cuda_runtime_api.h\"\n");
    free(f);
    ck_assert_int_ge(asprintf(&f, "%s/include/cuda_runtime_api.h", rel), 0);
    fake_file(dir, f, false, "/* fake */\n#if !defined(__CUDA_RUNTIME_API_H__)\n#define CUDART_VERSION  %d\n#endif\n",
              cudart);
    free(f);
    ck_assert_int_ge(asprintf(&f, "%s/lib64/libcudart.so.%d", rel, ma), 0);
    fake_file(dir, f, false, "%s", "");
    free(f);
    ck_assert_int_ge(asprintf(&so, "libcudart.so.%d", ma), 0);
    ck_assert_int_ge(asprintf(&f, "%s/lib64/libcudart.so", root), 0);
    ck_assert_msg(symlink(so, f) == 0, "symlink %s: %s", f, strerror(errno));
    free(f);
    free(so);
    if (json) {
        ck_assert_int_ge(asprintf(&f, "%s/version.json", rel), 0);
        fake_file(dir, f, false,
                  "{\n  \"cuda\" : { \"name\" : \"CUDA SDK\", \"version\" : \"%s\" },\n"
                  "  \"cuda_nvcc\" : { \"name\" : \"CUDA NVCC\", \"version\" : \"%s\" }\n}\n",
                  json, json);
        free(f);
    }
    return root;
}

char *tu_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (!f)
        return NULL;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap + 1);
        }
        n = fread(buf + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

int tu_sh(const char *fmt, ...)
{
    va_list ap;
    char *cmd = NULL;
    int rc;

    va_start(ap, fmt);
    if (vasprintf(&cmd, fmt, ap) < 0) {
        va_end(ap);
        return -1;
    }
    va_end(ap);
    rc = system(cmd);
    free(cmd);
    if (rc == -1 || !WIFEXITED(rc))
        return -1;
    return WEXITSTATUS(rc);
}

const char *tu_cuda_root(void)
{
    const char *c = getenv("CTK_TEST_CUDA");
    return (c && *c) ? c : NULL;
}

const char *tu_fixtures(void)
{
    static char *dir;
    char *script;

    if (dir)
        return dir;
    if (!tu_cuda_root())
        return NULL;
    if (asprintf(&dir, "%s/ctkgen-fixtures-%d", tmp_root(), (int)getuid()) < 0)
        return NULL;
    script = tu_srcpath("tests/fixtures.sh");
    /* fixtures.sh is idempotent and takes a lock: cheap when already built */
    ck_assert_msg(tu_sh("sh '%s' '%s' '%s' >/dev/null", script, tu_cuda_root(), dir) == 0,
                  "tests/fixtures.sh failed");
    free(script);
    return dir;
}

char *tu_srcpath(const char *rel)
{
    const char *top = getenv("top_srcdir");
    char *p = NULL;

    if (asprintf(&p, "%s/%s", (top && *top) ? top : ".", rel) < 0)
        return NULL;
    return p;
}

int tu_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static char *kept[512];
static size_t n_kept;

char *tu_keep(char *s)
{
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_lt(n_kept, sizeof kept / sizeof kept[0]);
    kept[n_kept++] = s;
    return s;
}

char *tu_str(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
    va_end(ap);
    return tu_keep(s);
}

void tu_free_kept(void)
{
    while (n_kept > 0)
        free(kept[--n_kept]);
}
