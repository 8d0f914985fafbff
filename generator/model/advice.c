/* advice.c - warnings that do not stop a run (see advice.h).
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "advice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters pkgconf prints as they are: a shell that re-reads its output
 * (a make recipe, eval) expands them. */
#define PC_UNESCAPED "$()"
/* Characters Environment Modules reads as patterns or variables in a
 * module path, so `module use DIR` finds nothing under such a DIR. */
#define MODULEPATH_SPECIAL "[]{}$\\"


/* The first path of the SDK's .pc files holding one of chars; NULL if none. */
static const char *pc_path_with(const ctk_sdk_t *s, const char *chars, char *which)
{
    const ctk_strlist_t *lists[] = {&s->cpath, &s->library_path};
    size_t i, j;

    for (i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (j = 0; j < lists[i]->len; j++) {
            const char *hit = strpbrk(lists[i]->items[j], chars);

            if (hit) {
                *which = *hit;
                return lists[i]->items[j];
            }
        }
    return NULL;
}

/* An NVIDIA HPC SDK keeps cuBLAS beside cuda/, in math_libs/: where base
 * is <release>/cuda/<X.Y> (or <release>/cuda), the math_libs dir it means. */
static char *hpcsdk_math_libs(const char *base, ctk_error_t *err)
{
    const char *last = strrchr(base, '/'), *prev;
    char *cand;

    if (!last || last == base)
        return NULL;
    if (strcmp(last + 1, "cuda") == 0) {
        cand = ctk_printf(err, "%.*s/math_libs", (int)(last - base), base);
    } else {
        for (prev = last - 1; prev > base && *prev != '/'; prev--)
            ;
        if (*prev != '/' || last - prev - 1 != 4 || strncmp(prev + 1, "cuda", 4) != 0)
            return NULL;
        cand = ctk_printf(err, "%.*s/math_libs/%s", (int)(prev - base), base, last + 1);
    }
    if (cand && !ctk_is_dir(cand)) {
        free(cand);
        return NULL;
    }
    return cand;
}

static bool advise_sdk(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t i,
                       ctk_strlist_t *notes, ctk_error_t *err)
{
    const ctk_sdk_t *s = sdks[i];
    const char *name = cfg->module_name, *mv = s->module_version, *p;
    int dpatch = -1;
    char c;

    if (s->version.passed_over[0] &&
        !ctk_strlist_pushf(notes, err, "%s/%s: %s; the version was read from %s instead", name, mv,
              s->version.passed_over, ctk_version_source_name(s->version.source)))
        return false;
    if (s->version.out_of_step[0] &&
        !ctk_strlist_pushf(notes, err, "%s/%s: parts out of step: %s", name, mv, s->version.out_of_step))
        return false;
    if (s->conf->version && ctk_version_parse(s->conf->version, NULL, NULL, &dpatch) &&
        dpatch >= 0 && s->version.patch < 0 &&
        !ctk_strlist_pushf(notes, err,
              "%s/%s: the toolkit at %s does not record its patch level (%s gives %s): "
              "the declared %s is taken on trust",
              name, mv, s->root, ctk_version_source_name(s->version.source), s->version_mm,
              s->conf->version))
        return false;
    if (!s->conf->math_libs && !s->math_libdir) {
        char *ml = hpcsdk_math_libs(s->root, err);
        bool ok;

        if (!ml && ctk_error_is_set(err))
            return false;
        ok = !ml || ctk_strlist_pushf(notes, err,
                         "%s/%s: no cuBLAS under %s; an NVIDIA HPC SDK keeps it in %s: "
                         "add \"math_libs\": \"%s\" to its SDK",
                         name, mv, s->root, ml, ml);
        free(ml);
        if (!ok)
            return false;
    }
    if ((p = pc_path_with(s, PC_UNESCAPED, &c)) &&
        !ctk_strlist_pushf(notes, err,
              "%s/%s: %s holds '%c', which pkgconf prints unescaped: a make recipe or eval "
              "that re-reads `pkg-config --cflags --libs %s-%s` expands it ($(pkg-config ...) "
              "in a shell does not)",
              name, mv, p, c, cfg->pc_prefix, mv))
        return false;
    if ((p = pc_path_with(s, "\"", &c)) &&
        !ctk_strlist_pushf(notes, err,
              "%s/%s: %s holds '\"', which nvcc refuses in any argument: "
              "`nvcc $(pkg-config --cflags %s-%s)` fails; the modulefiles work",
              name, mv, p, cfg->pc_prefix, mv))
        return false;
    return true;
}

bool ctk_advise(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n, const char *outdir,
                ctk_strlist_t *notes, ctk_error_t *err)
{
    const char *hit = strpbrk(outdir, MODULEPATH_SPECIAL);
    size_t i;

    for (i = 0; i < n; i++)
        if (!advise_sdk(cfg, sdks, i, notes, err))
            return false;
    /* the staging workflow: fine, but the modules are only right once the
     * .pc files are copied there */
    if (cfg->pkgconfig_dir && !ctk_is_dir(cfg->pkgconfig_dir) &&
        !ctk_strlist_pushf(notes, err,
              "pkgconfig_dir %s does not exist yet: the modules put it on PKG_CONFIG_PATH, so copy "
              "%s/pkgconfig there before users load them",
              cfg->pkgconfig_dir, outdir))
        return false;
    if (hit)
        return ctk_strlist_pushf(notes, err,
                    "%s/tcl: Environment Modules finds no modulefile under a directory whose "
                    "path holds '%c'; Lmod and pkg-config are not affected",
                    outdir, *hit);
    return true;
}
