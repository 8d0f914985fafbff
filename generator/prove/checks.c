/* checks.c - static checks of module environments and .pc flags against a toolkit.
 * SPDX-License-Identifier: MIT
 *
 * One implementation for validate (ctkgen's own artifacts) and lint
 * (anybody's).  Directories are compared after resolving symlinks, so
 * /usr/local/cuda/lib64 and /usr/local/cuda-13.0/targets/x86_64-linux/lib
 * are the same entry.
 */
#include <ctkconf.h>

#include "checks.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ctk_check_line_of(const char *text, const char *needle)
{
    const char *hit;
    int line = 1;

    if (!text || !needle || !(hit = strstr(text, needle)))
        return 0;
    for (const char *p = text; p < hit; p++)
        if (*p == '\n')
            line++;
    return line;
}

static bool name_char(char c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Line of the first mention of the variable name as a word of its own
 * (LIBRARY_PATH is not found in LD_LIBRARY_PATH); 0 if none. */
static int name_line(const char *text, const char *name)
{
    size_t n = strlen(name);
    const char *hit;

    for (hit = text ? strstr(text, name) : NULL; hit; hit = strstr(hit + 1, name))
        if ((hit == text || !name_char(hit[-1])) && !name_char(hit[n])) {
            int line = 1;

            for (const char *p = text; p < hit; p++)
                line += *p == '\n';
            return line;
        }
    return 0;
}

/* Line of the module's first operation on variable name (Lua: in the file
 * itself, not a dependency it loaded; none if it has none, since a search
 * of the text would land on a comment or another variable), else of the
 * first mention of name in the text. */
int ctk_check_var_line(const ctk_check_src_t *src, const char *name)
{
    if (src->ev) {
        for (size_t i = 0; i < src->ev->n_ops; i++)
            if (!src->ev->ops[i].file && src->ev->ops[i].name && strcmp(src->ev->ops[i].name, name) == 0 &&
                src->ev->ops[i].line > 0)
                return src->ev->ops[i].line;
        return 0;
    }
    return name_line(src->text, name);
}

/* Line of the first operation whose value mentions needle (Lua, as
 * var_line()), else of the first mention of needle in the text. */
static int value_line(const ctk_check_src_t *src, const char *needle)
{
    if (src->ev) {
        for (size_t i = 0; i < src->ev->n_ops; i++)
            if (!src->ev->ops[i].file && src->ev->ops[i].value && strstr(src->ev->ops[i].value, needle) &&
                src->ev->ops[i].line > 0)
                return src->ev->ops[i].line;
        return 0;
    }
    return ctk_check_line_of(src->text, needle);
}

/* Line for a finding about a whole list: only where the evaluation says
 * (validate's findings of this kind carry no line). */
static int list_line(const ctk_check_src_t *src, const char *name)
{
    return src->ev ? ctk_check_var_line(src, name) : 0;
}

long ctk_check_list_find_dir(const char *list, const char *dir)
{
    char *want, *copy, *tok, *save = NULL;
    long i = 0, found = -1;

    if (!list || !dir || !(want = ctk_realpath(dir)))
        return -1;
    if (!(copy = strdup(list))) {
        free(want);
        return -1;
    }
    for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save), i++) {
        char *r = ctk_realpath(tok);
        bool same = r && strcmp(r, want) == 0;

        free(r);
        if (same) {
            found = i;
            break;
        }
    }
    free(copy);
    free(want);
    return found;
}

/* The first entry of a ':'-list holding a libcudart.so*; caller frees. */
static char *first_dir_with_cudart(const char *list)
{
    char *copy, *tok, *save = NULL, *hit = NULL;

    if (!list || !(copy = strdup(list)))
        return NULL;
    for (tok = strtok_r(copy, ":", &save); tok && !hit; tok = strtok_r(NULL, ":", &save)) {
        DIR *d = opendir(tok);
        struct dirent *e;

        if (!d)
            continue;
        while ((e = readdir(d)))
            if (strncmp(e->d_name, "libcudart.so", 12) == 0) {
                hit = strdup(tok);
                break;
            }
        closedir(d);
    }
    free(copy);
    return hit;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static bool addf(ctk_findings_t *out, const ctk_check_src_t *src, const char *code, int line,
                 ctk_error_t *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static bool addf(ctk_findings_t *out, const ctk_check_src_t *src, const char *code, int line,
                 ctk_error_t *err, const char *fmt, ...)
{
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return ctk_findings_add(out, code, src->file, line, err, "%s", text);
}

/* The toolkit's own include dir (CTK-CPATH-001's business), or its cccl
 * subdir: nvcc adds that itself, and modules written before CUDA 13 moved
 * Thrust and CUB there lack it without failing anything but host-compiler
 * Thrust code; ctkgen writes it, lint does not demand it. */
static bool own_include(const ctk_sdk_t *s, const char *dir)
{
    return strcmp(dir, s->incdir) == 0 || (s->cccl_incdir && strcmp(dir, s->cccl_incdir) == 0);
}

/* CTK-LDLIB-001 for the toolkit's stubs dir on LD_LIBRARY_PATH (ldp), and
 * for any dir named stubs holding a libcuda.so, whoever's. */
static bool check_ld_stubs(const ctk_sdk_t *s, const char *ldp, const ctk_check_src_t *src, ctk_findings_t *out,
                           ctk_error_t *err)
{
    char *copy, *tok, *save = NULL;
    bool ok = true;

    if (s->stubsdir && ctk_check_list_find_dir(ldp, s->stubsdir) >= 0 &&
        !addf(out, src, "CTK-LDLIB-001", value_line(src, "stubs"), err,
              "LD_LIBRARY_PATH holds the driver stubs dir %s", s->stubsdir))
        return false;
    if (!ldp)
        return true;
    if (!(copy = strdup(ldp))) {
        ctk_error_nomem(err);
        return false;
    }
    for (tok = strtok_r(copy, ":", &save); ok && tok; tok = strtok_r(NULL, ":", &save)) {
        char *lc = ctk_path_join(tok, "libcuda.so", NULL);
        size_t tl = strlen(tok);
        bool stub = lc && tl >= 5 && strcmp(tok + tl - 5, "stubs") == 0 && ctk_is_file(lc) &&
                    !(s->stubsdir && ctk_check_list_find_dir(tok, s->stubsdir) >= 0);

        free(lc);
        if (stub)
            ok = addf(out, src, "CTK-LDLIB-001", value_line(src, "stubs"), err,
                      "LD_LIBRARY_PATH holds a driver stubs dir: %s", tok);
    }
    free(copy);
    return ok;
}

/* CTK-LDLIB-002 when the first libcudart on LD_LIBRARY_PATH is another's;
 * CTK-LDLIB-003 for each of the toolkit's lib dirs LD_LIBRARY_PATH or
 * LIBRARY_PATH (lp) misses. */
static bool check_lib_dirs(const ctk_sdk_t *s, const char *ldp, const char *lp, const ctk_check_src_t *src,
                           ctk_findings_t *out, ctk_error_t *err)
{
    char *first = first_dir_with_cudart(ldp);
    bool ok = true;

    if (first && ctk_check_list_find_dir(first, s->libdir) < 0)
        ok = addf(out, src, "CTK-LDLIB-002", value_line(src, first), err,
                  "LD_LIBRARY_PATH puts %s (another libcudart) before this toolkit's %s", first, s->libdir);
    free(first);
    for (size_t i = 0; ok && i < s->ld_library_path.len; i++) {
        const char *d = s->ld_library_path.items[i];

        if (ctk_check_list_find_dir(ldp, d) < 0 &&
            !addf(out, src, "CTK-LDLIB-003", list_line(src, "LD_LIBRARY_PATH"), err, "LD_LIBRARY_PATH misses %s", d))
            return false;
        if (ctk_check_list_find_dir(lp, d) < 0)
            ok = addf(out, src, "CTK-LDLIB-003", list_line(src, "LIBRARY_PATH"), err, "LIBRARY_PATH misses %s", d);
    }
    return ok;
}

/* CTK-CPATH-001 when CPATH (cp) misses the dir of cuda_runtime.h,
 * CTK-CPATH-002 for each other include dir of the toolkit it misses. */
static bool check_cpath(const ctk_sdk_t *s, const char *cp, const ctk_check_src_t *src, ctk_findings_t *out,
                        ctk_error_t *err)
{
    if (ctk_check_list_find_dir(cp, s->incdir) < 0 &&
        !addf(out, src, "CTK-CPATH-001", ctk_check_var_line(src, "CPATH"), err,
              "CPATH misses %s, which holds cuda_runtime.h", s->incdir))
        return false;
    for (size_t i = 0; i < s->cpath.len; i++)
        if (!own_include(s, s->cpath.items[i]) && ctk_check_list_find_dir(cp, s->cpath.items[i]) < 0 &&
            !addf(out, src, "CTK-CPATH-002", ctk_check_var_line(src, "CPATH"), err, "CPATH misses %s",
                  s->cpath.items[i]))
            return false;
    return true;
}

/* CTK-PATH-001 unless the nvcc on the module's PATH is the toolkit's; that
 * nvcc into *nvcc_out (when asked) where it is. */
static bool check_nvcc_on_path(const ctk_sdk_t *s, const ctk_env_t *menv, const ctk_check_src_t *src,
                               char **nvcc_out, ctk_findings_t *out, ctk_error_t *err)
{
    char *nvcc = ctk_env_which(menv, "nvcc", err);
    bool ok;

    if (!nvcc && err && err->code != CTK_E_OK)
        return false;
    if (!nvcc || !same_file(nvcc, s->nvcc)) {
        ok = addf(out, src, "CTK-PATH-001", ctk_check_var_line(src, "PATH"), err,
                  nvcc ? "nvcc on the module's PATH is %s, not this toolkit's %s"
                       : "no nvcc on the module's PATH%s (this toolkit's is %s)",
                  nvcc ? nvcc : "", s->nvcc);
        free(nvcc);
        return ok;
    }
    if (nvcc_out)
        *nvcc_out = nvcc;
    else
        free(nvcc);
    return true;
}

bool ctk_check_module_env(const ctk_sdk_t *s, const ctk_env_t *menv, const ctk_env_t *set,
                          const ctk_check_src_t *src, char **nvcc_out, ctk_findings_t *out,
                          ctk_error_t *err)
{
    static const char *const banned[] = {"LDFLAGS", "CFLAGS", "CXXFLAGS", "CPPFLAGS", NULL};
    const char *ldp = ctk_env_get(menv, "LD_LIBRARY_PATH");

    if (nvcc_out)
        *nvcc_out = NULL;
    for (size_t i = 0; banned[i]; i++)
        if (ctk_env_get(set, banned[i]) &&
            !addf(out, src, "CTK-ENV-003", ctk_check_var_line(src, banned[i]), err, "the module sets %s=\"%s\"",
                  banned[i], ctk_env_get(set, banned[i])))
            return false;
    return check_ld_stubs(s, ldp, src, out, err) &&
           check_lib_dirs(s, ldp, ctk_env_get(menv, "LIBRARY_PATH"), src, out, err) &&
           check_cpath(s, ctk_env_get(menv, "CPATH"), src, out, err) &&
           check_nvcc_on_path(s, menv, src, nvcc_out, out, err);
}


/* Does the flag list hold <prefix><dir> for this dir (resolved)? */
static bool flags_have_dir(const ctk_strlist_t *flags, const char *prefix, const char *dir)
{
    size_t n = strlen(prefix);

    for (size_t i = 0; i < flags->len; i++)
        if (strncmp(flags->items[i], prefix, n) == 0 && ctk_check_list_find_dir(flags->items[i] + n, dir) == 0)
            return true;
    return false;
}

bool ctk_check_pc(const ctk_sdk_t *s, const ctk_strlist_t *cflags, const ctk_strlist_t *libs,
                  const char *pc_version, const ctk_check_src_t *src, ctk_findings_t *out, ctk_error_t *err)
{
    const char *text = src->text;
    bool ok = true;
    int ma, mi, pa;
    size_t i;

    if (!flags_have_dir(cflags, "-I", s->incdir))
        ok = addf(out, src, "CTK-CPATH-001", ctk_check_line_of(text, "Cflags:"), err,
                  "the Cflags miss -I%s, which holds cuda_runtime.h", s->incdir);
    for (i = 0; ok && i < s->cpath.len; i++)
        if (!own_include(s, s->cpath.items[i]) && !flags_have_dir(cflags, "-I", s->cpath.items[i]))
            ok = addf(out, src, "CTK-CPATH-002", ctk_check_line_of(text, "Cflags:"), err, "the Cflags miss -I%s",
                      s->cpath.items[i]);
    for (i = 0; ok && i < s->library_path.len; i++)
        if (!flags_have_dir(libs, "-L", s->library_path.items[i]))
            ok = addf(out, src, "CTK-LDLIB-003", ctk_check_line_of(text, "Libs:"), err, "the Libs miss -L%s",
                      s->library_path.items[i]);
    if (ok && pc_version) {
        if (!ctk_version_parse(pc_version, &ma, &mi, &pa) || ma != s->version.major ||
            mi != s->version.minor ||
            (pa >= 0 && s->version.patch >= 0 && pa != s->version.patch))
            ok = addf(out, src, "CTK-PC-002", ctk_check_line_of(text, "Version:"), err,
                      "Version: %s, but the toolkit at %s is %s (from %s)", pc_version, s->root,
                      s->version_full ? s->version_full : s->version_mm,
                      ctk_version_source_name(s->version.source));
    }
    return ok;
}
