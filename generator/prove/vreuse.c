/* vreuse.c - when one build of the probes may stand for another's.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "vreuse.h"

#include "env.h"
#include "error.h"
#include "proc.h"
#include "util.h"
#include "verdict.h"
#include "vjob.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- one compile for several artifacts ------------------------------------------- */
/* The .pc's `nvcc -c probe.cu $(Cflags)` stands for a module's own nvcc
 * run when nothing nvcc or the programs it runs read differs between the
 * two, so the module's `nvcc -E` would only repeat it.  Decided
 * conservatively: any difference not named below keeps the module's own
 * run.
 *
 *   argv       the .pc passed no -ccbin, and every Cflag is an -I
 *   nvcc       the module's PATH finds the same file as the .pc's
 *   PATH       the module only puts nvcc's own dir in front: nvcc.profile
 *              puts that dir first on the PATH of every program it runs
 *   CPATH      names the .pc's -I dirs in their order, the first being
 *              nvcc's $(TOP)/include, which nvcc passes after a command
 *              line's -I and before CPATH's: the compiler searches the
 *              same dirs in the same order either way
 *   LD_LIBRARY_PATH  the module only adds dirs whose shared libraries
 *              are all CUDA's (never_loaded_by_compilers)
 *   LIBRARY_PATH  read when linking only; `nvcc -c` links nothing
 *   others     module bookkeeping and build-system hints no compiler
 *              reads (not_read_by_compilers); every other variable, NVCC_*,
 *              C_INCLUDE_PATH, CPLUS_INCLUDE_PATH, TMPDIR... must be equal */

/* Variables that neither nvcc, the programs it runs, nor GCC read. */
static bool not_read_by_compilers(const char *name)
{
    static const char *const exact[] = {"PKG_CONFIG_PATH", "CMAKE_INCLUDE_PATH", "CMAKE_LIBRARY_PATH",
                                        "CMAKE_PREFIX_PATH", "CMAKE_BUILD_RPATH", "CUDAToolkit_ROOT",
                                        "CUDAHOSTCXX", "CUDA_HOME", "CUDA_PATH", "CUDATOOLKIT_VERSION",
                                        "MANPATH", "INFOPATH", "LOADEDMODULES", "_LMFILES_", "MODULEPATH",
                                        "LIBRARY_PATH", NULL};
    static const char *const prefix[] = {"LMOD_", "MODULES_", "__MODULES_", "__LMOD_", "_ModuleTable", NULL};

    for (int i = 0; exact[i]; i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    for (int i = 0; prefix[i]; i++)
        if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
            return true;
    return false;
}

/* DIR/../sub for the SDK's nvcc DIR/nvcc: nvcc.profile's $(TOP)/sub.
 * NULL when nvcc has no dir or memory ran out. */
static char *nvcc_top(const vjob_t *j, const char *sub)
{
    const char *slash = strrchr(j->sdk->nvcc, '/');

    if (!slash)
        return NULL;
    return ctk_printf(NULL, "%.*s/../%s", (int)(slash - j->sdk->nvcc), j->sdk->nvcc, sub);
}

static bool is_nvcc_dir(const vjob_t *j, const char *dir)
{
    char *here = nvcc_top(j, "bin");
    bool same = here && ctk_same_file(dir, here);

    free(here);
    return same;
}

/* Every shared library in dir is one of CUDA's (libcu*, libnv*, libnpp*,
 * libnccl*, libOpenCL*, ...): none is a library that nvcc, its programs
 * or the GNU toolchain load (libc, libstdc++, libz...).  Subdirs do not
 * count: the loader does not look into them. */
static bool never_loaded_by_compilers(const vjob_t *j, const char *dir)
{
    static const char *const cuda[] = {"libcu", "libnv", "libnpp", "libnccl", "libOpenCL", "libaccinj",
                                       "libcheckpoint", "libpcsamplingutil", NULL};
    static const char *const not_cuda[] = {"libcurl", "libcups", "libnvpair", NULL}; /* spelt alike */
    DIR *d = opendir(dir);
    struct dirent *e;
    bool ok = d != NULL;

    (void)j;
    while (ok && (e = readdir(d))) {
        bool known = false;

        if (!strstr(e->d_name, ".so"))
            continue;
        for (int i = 0; cuda[i] && !known; i++)
            known = strncmp(e->d_name, cuda[i], strlen(cuda[i])) == 0;
        for (int i = 0; not_cuda[i] && known; i++)
            known = strncmp(e->d_name, not_cuda[i], strlen(not_cuda[i])) != 0;
        ok = known;
    }
    if (d)
        closedir(d);
    return ok;
}

/* mod is some dirs, each accepted by keep, then exactly pc (or just the
 * dirs, where pc is unset).  An empty element (the current dir) is never
 * accepted. */
static bool only_adds(const vjob_t *j, const char *mod, const char *pc,
                      bool (*keep)(const vjob_t *, const char *))
{
    size_t pl = pc ? strlen(pc) : 0, ml = mod ? strlen(mod) : 0;
    char *head, *rest, *d;
    bool ok = true;

    if (!mod || (pc && (ml <= pl || mod[ml - pl - 1] != ':' || strcmp(mod + ml - pl, pc) != 0)))
        return false;
    if (!(head = strndup(mod, pc ? ml - pl - 1 : ml)))
        return false;
    for (rest = head; ok && (d = strsep(&rest, ":"));)
        ok = *d && keep(j, d);
    free(head);
    return ok;
}

/* CPATH names exactly the .pc's -I dirs in their order, the first being
 * nvcc's own include dir; an empty element (the current dir) never. */
static bool cpath_is_cflags(const vjob_t *j, const char *cpath)
{
    const ctk_strlist_t *fl = &j->res->art[CTK_ART_PC].cflags;
    char *list = cpath ? ctk_strdup(cpath, NULL) : NULL, *rest = list, *top = nvcc_top(j, "include");
    const char *d = list ? strsep(&rest, ":") : NULL;
    bool ok = list && top && fl->len > 0 && strncmp(fl->items[0], "-I", 2) == 0 &&
              ctk_same_file(fl->items[0] + 2, top);

    for (size_t i = 0; ok && i < fl->len; i++, d = strsep(&rest, ":"))
        ok = strncmp(fl->items[i], "-I", 2) == 0 && d && *d && ctk_same_file(fl->items[i] + 2, d);
    ok = ok && !d;
    free(list);
    free(top);
    return ok;
}

bool ctk_vreuse_same_compile_env(vjob_t *j, const ctk_vart_t *a, const ctk_env_t *menv, bool *same)
{
    ctk_env_t penv;
    ctk_strlist_t diff;
    bool ok;

    *same = false;
    if (!j->probe_o || j->pc.ccbin || !a->nvcc || !ctk_same_file(a->nvcc, j->sdk->nvcc))
        return true;
    ctk_env_init(&penv);
    ctk_strlist_init(&diff);
    ok = ctk_vjob_pc_env(j, &penv) && ctk_env_diff(&penv, menv, &diff, j->err);
    *same = ok;
    for (size_t i = 0; *same && i < diff.len; i++) {
        const char *n = diff.items[i], *pv = ctk_env_get(&penv, n), *mv = ctk_env_get(menv, n);

        if (strcmp(n, "PATH") == 0)
            *same = only_adds(j, mv, pv, is_nvcc_dir);
        else if (strcmp(n, "LD_LIBRARY_PATH") == 0)
            *same = only_adds(j, mv, pv, never_loaded_by_compilers);
        else if (strcmp(n, "CPATH") == 0)
            *same = !pv && cpath_is_cflags(j, mv);
        else
            *same = not_read_by_compilers(n);
    }
    ctk_strlist_fini(&diff);
    ctk_env_fini(&penv);
    return ok;
}

/* ---- one link for several artifacts ---------------------------------------------- */
/* The .pc's `c++ probe.o $(Libs)` stands for a module's own
 * `c++ probe.o -lcudart`, and the program it made, run in the module's
 * environment, for the module's program, when the module's link would
 * take the same files and its program would load the same libraries: the
 * two programs then differ in the .pc's rpath alone.  Decided
 * conservatively: any difference not named below keeps the module's own
 * link.
 *
 *   the .pc    its link passed and took its libraries from the toolkit (no
 *              CTK-LINK-001); Libs are -L<dir>..., -lcudart and rpaths
 *              (-Xlinker -rpath=<dirs>, -Wl,-rpath,<dir>, -Wl,-rpath=<dirs>)
 *              of absolute dirs that are -L dirs too, and every -L dir holds
 *              no shared library but CUDA's (never_loaded_by_compilers)
 *   the files  each file that link took (its --trace) is found first in the
 *              same file by the module's: the compiler's own search list
 *              (`c++ -print-search-dirs`, LIBRARY_PATH in it, wherever the
 *              compiler puts it) is searched as ld does, a dir's libX.so
 *              before its libX.a, after the -L dirs for the .pc; every dir
 *              the module's list has and the .pc's has not holds no shared
 *              library but CUDA's, so what ld looks up for a library's
 *              DT_NEEDED comes from the same place too
 *   PATH       the module only adds dirs without the programs a link runs
 *              by name (ld, collect2 ...: link_tools)
 *   LD_LIBRARY_PATH  the module only adds dirs of CUDA libraries, and each
 *              shared library in the rpath dirs is found first through it in
 *              the same dir as through the rpath: the loader searches
 *              LD_LIBRARY_PATH after an RPATH and before a RUNPATH, so either
 *              way both programs load the same files; no dir has subdirs
 *              the loader would search first (glibc-hwcaps, tls ...)
 *   others     header search variables (CPATH ...: a link of objects reads
 *              none), NVCC_* (nvcc's alone), and those no compiler reads
 *              (not_read_by_compilers); every other variable must be equal
 *   staging    probes staged for a launcher to run elsewhere (--launcher
 *              slurm) link their own: the loader there sees that machine's
 *              files
 *
 * The model of ld's search is checked against the .pc's own link: it must
 * find each traced file where that link took it.  Where compile and link
 * both stand, and `cc` in the module's environment searches the list c++
 * does, the host probe's C link would take the same files too: it is
 * parsed, not built.
 */

/* Programs a link runs by their name on PATH when the compiler's own
 * dirs lack them, and compilers a wrapper (ccache, distcc) may look up
 * there: the compilers' own names are checked too. */
static const char *const link_tools[] = {"ld",     "ld.bfd",  "ld.gold", "ld.lld",  "ld.mold", "collect2",
                                         "real-ld", "collect-ld", "lto-wrapper", "as", "cc", "c++",
                                         "gcc",    "g++",     "clang",   "clang++", NULL};

static bool absent_from(const char *dir, const char *name)
{
    char *p = ctk_path_join(dir, name, NULL);
    bool absent = p && access(p, F_OK) != 0 && errno == ENOENT;

    free(p);
    return absent;
}

static bool no_link_tools(const vjob_t *j, const char *dir)
{
    const char *own[] = {strrchr(j->c->rep->cxx, '/'), strrchr(j->c->rep->cc, '/')};
    bool ok = true;

    for (int i = 0; ok && link_tools[i]; i++)
        ok = absent_from(dir, link_tools[i]);
    for (int i = 0; ok && i < 2; i++)
        ok = !own[i] || absent_from(dir, own[i] + 1);
    return ok;
}

/* Push each element of a ':' list of absolute dirs without '$' (no
 * $ORIGIN); false when one is not. */
static bool push_dirs(ctk_strlist_t *l, const char *list, ctk_error_t *err, bool *nomem)
{
    char *copy = ctk_strdup(list, err), *rest = copy, *d;
    bool ok = copy != NULL;

    *nomem = !copy;
    while (ok && (d = strsep(&rest, ":")))
        if (!(ok = d[0] == '/' && !strchr(d, '$')))
            ;
        else if (!(ok = ctk_strlist_push(l, d, err)))
            *nomem = true;
    free(copy);
    return ok;
}

/* Libs is -L<dir>..., -lcudart and rpaths of those dirs (see above):
 * *ldirs and *rpath get the dirs.  *plain false: it is not. */
static bool plain_libs(vjob_t *j, const ctk_strlist_t *libs, ctk_strlist_t *ldirs, ctk_strlist_t *rpath,
                       bool *plain)
{
    bool cudart = false, nomem = false;

    *plain = true;
    for (size_t i = 0; *plain && i < libs->len; i++) {
        const char *w = libs->items[i];

        if (strncmp(w, "-L", 2) == 0)
            *plain = push_dirs(ldirs, w + 2, j->err, &nomem) && !strchr(w, ':');
        else if (strcmp(w, "-lcudart") == 0)
            cudart = true;
        else if (strcmp(w, "-Xlinker") == 0 && i + 1 < libs->len && strncmp(libs->items[i + 1], "-rpath=", 7) == 0)
            *plain = push_dirs(rpath, libs->items[++i] + 7, j->err, &nomem);
        else if ((strncmp(w, "-Wl,-rpath,", 11) == 0 || strncmp(w, "-Wl,-rpath=", 11) == 0) && !strchr(w + 11, ','))
            *plain = push_dirs(rpath, w + 11, j->err, &nomem);
        else
            *plain = false;
    }
    if (nomem)
        return false;
    *plain = *plain && cudart && ldirs->len > 0;
    for (size_t i = 0; *plain && i < ldirs->len; i++)
        *plain = never_loaded_by_compilers(j, ldirs->items[i]);
    for (size_t i = 0; *plain && i < rpath->len; i++) {
        bool named = false;

        for (size_t k = 0; !named && k < ldirs->len; k++)
            named = ctk_same_file(rpath->items[i], ldirs->items[k]);
        *plain = named;
    }
    return true;
}

/* The library search list of the compiler cc in env, in order
 * (`cc -print-search-dirs`: "libraries: =a:b:..."); *got false when it
 * would not say, or named a dir that is not absolute. */
static bool search_dirs(vjob_t *j, const char *cc, ctk_env_t *env, ctk_strlist_t *dirs, bool *got)
{
    const char *argv[] = {cc, "-print-search-dirs", NULL};
    ctk_proc_result_t r;
    const char *p;
    bool ok, nomem = false;

    *got = false;
    ctk_proc_result_init(&r);
    if (!(ok = ctk_vjob_run_step(j, argv, env, &r)))
        goto out;
    for (p = r.out; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
        if (strncmp(p, "libraries: =", 12) == 0) {
            char *line = ctk_strndup(p + 12, strcspn(p + 12, "\n"), j->err), *rest = line, *d;

            if (!(ok = line != NULL))
                goto out;
            *got = true;
            while (!nomem && (d = strsep(&rest, ":"))) {
                *got &= !*d || *d == '/';
                nomem = *d && !ctk_strlist_push(dirs, d, j->err);
            }
            free(line);
            ok = !nomem;
            *got = *got && ok && ctk_proc_ok(&r) && !r.truncated && dirs->len > 0;
            break;
        }
out:
    ctk_proc_result_fini(&r);
    return ok;
}

/* search_dirs() in the .pc's environment: asked once per run where
 * that is the base environment, as it is unless the SDK's host compiler
 * comes from a module. */
static bool pc_search_dirs(vjob_t *j, ctk_env_t *penv, ctk_strlist_t *dirs, bool *got)
{
    vctx_t *c = j->c;
    bool ok = true;

    if (j->pre[0] && !j->sdk->conf->host_compiler_ccbin)
        return search_dirs(j, j->c->rep->cxx, penv, dirs, got);
    pthread_mutex_lock(&c->nvcc_lock);
    if (!c->base_dirs.len && (ok = search_dirs(j, j->c->rep->cxx, penv, &c->base_dirs, got)) && !*got) {
        ctk_strlist_fini(&c->base_dirs); /* it would not say: nothing kept */
        ctk_strlist_init(&c->base_dirs);
    }
    for (size_t i = 0; ok && i < c->base_dirs.len; i++)
        ok = ctk_strlist_push(dirs, c->base_dirs.items[i], j->err);
    *got = ok && dirs->len > 0;
    pthread_mutex_unlock(&c->nvcc_lock);
    return ok;
}

/* The file a link searching a then b (either may be NULL) takes for the
 * name base: libX.so or libX.a as ld takes -lX (a dir's .so before its
 * .a), any other name as itself.  NULL: none holds it (or no memory). */
static char *first_holder(const ctk_strlist_t *a, const ctk_strlist_t *b, const char *base)
{
    size_t n = strlen(base);
    bool lib = strncmp(base, "lib", 3) == 0 &&
               ((n > 6 && strcmp(base + n - 3, ".so") == 0) || (n > 5 && strcmp(base + n - 2, ".a") == 0));
    size_t stem = lib ? (base[n - 1] == 'o' ? n - 3 : n - 2) : n;
    const ctk_strlist_t *lists[] = {a, b};

    for (int l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && i < lists[l]->len; i++) {
            const char *suf[] = {lib ? ".so" : "", lib ? ".a" : NULL};

            for (int s = 0; s < 2 && suf[s]; s++) {
                char *p = ctk_printf(NULL, "%s/%.*s%s", lists[l]->items[i], (int)stem, base, suf[s]);

                if (p && ctk_is_file(p))
                    return p;
                free(p);
            }
        }
    return NULL;
}

/* Every file the .pc's link took is the one the module's link takes:
 * the .pc searches its -L dirs, then the compiler's list g; the module
 * the compiler's list m.  A file the model finds elsewhere than the
 * .pc's link did is a difference; one neither list holds was named by
 * its path (an ld script's /lib/.../libc.so.6), the same in both. */
static bool takes_same_files(const char *trace, const ctk_strlist_t *ldirs, const ctk_strlist_t *g,
                             const ctk_strlist_t *m)
{
    const char *line;
    bool same = true;

    for (line = trace; same && *line; line += strcspn(line, "\n"), line += *line == '\n') {
        char file[4096], *pc, *mod;
        const char *base;

        ctk_vjob_trace_file(line, strcspn(line, "\n"), file, sizeof file);
        if (!file[0] || !(base = strrchr(file, '/')) || !*++base)
            continue; /* probe.o, given by its name */
        pc = first_holder(ldirs, g, base);
        mod = first_holder(m, NULL, base);
        /* the model must find what the .pc's link took, where it searched */
        same = pc ? ctk_same_file(pc, file) && mod && ctk_same_file(mod, file) : !mod;
        free(pc);
        free(mod);
    }
    return same;
}

/* dir may hold what the loader searches before dir itself. */
static bool has_loader_subdirs(const char *dir)
{
    static const char *const sub[] = {"glibc-hwcaps", "tls", "haswell", "x86_64", "avx512_1", NULL};
    bool has = false;

    for (int i = 0; !has && sub[i]; i++) {
        char *p = ctk_path_join(dir, sub[i], NULL);

        has = !p || ctk_is_dir(p);
        free(p);
    }
    return has;
}

/* Which of dirs first holds name: its index, or -1. */
static long first_dir_with(const ctk_strlist_t *dirs, const char *name)
{
    for (size_t i = 0; i < dirs->len; i++) {
        char *p = ctk_path_join(dirs->items[i], name, NULL);
        bool here = p && access(p, F_OK) == 0;

        free(p);
        if (here)
            return (long)i;
    }
    return -1;
}

/* Each shared library in the rpath dirs is found first through ldlp in
 * the dir it is found first through the rpath. */
static bool loads_same(const ctk_strlist_t *rpath, const char *ldlp)
{
    ctk_strlist_t lp;
    bool nomem = false, same;

    ctk_strlist_init(&lp);
    /* glibc splits LD_LIBRARY_PATH at ';' too: one is refused */
    same = ldlp && !strchr(ldlp, ';') && push_dirs(&lp, ldlp, NULL, &nomem);
    for (size_t i = 0; same && i < lp.len; i++)
        same = !has_loader_subdirs(lp.items[i]);
    for (size_t i = 0; same && i < rpath->len; i++) {
        DIR *d = opendir(rpath->items[i]);
        struct dirent *e;

        same = d && !has_loader_subdirs(rpath->items[i]);
        while (same && (e = readdir(d))) {
            long r, l;

            if (!strstr(e->d_name, ".so"))
                continue;
            r = first_dir_with(rpath, e->d_name);
            l = first_dir_with(&lp, e->d_name);
            same = r >= 0 && l >= 0 && ctk_same_file(rpath->items[r], lp.items[l]);
        }
        if (d)
            closedir(d);
    }
    ctk_strlist_fini(&lp);
    return same;
}

/* Would the module's link, in menv, take what the .pc's took?  Its
 * variables, for a link (see above). */
static bool same_link_vars(vjob_t *j, const ctk_env_t *penv, const ctk_env_t *menv, bool *same)
{
    static const char *const headers[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
                                          NULL};
    ctk_strlist_t diff;
    bool ok;

    ctk_strlist_init(&diff);
    ok = ctk_env_diff(penv, menv, &diff, j->err);
    *same = ok;
    for (size_t i = 0; *same && i < diff.len; i++) {
        const char *n = diff.items[i], *pv = ctk_env_get(penv, n), *mv = ctk_env_get(menv, n);
        bool header = false;

        for (int k = 0; headers[k] && !header; k++)
            header = strcmp(n, headers[k]) == 0;
        if (strcmp(n, "PATH") == 0)
            *same = only_adds(j, mv, pv, no_link_tools);
        else if (strcmp(n, "LD_LIBRARY_PATH") == 0)
            *same = only_adds(j, mv, pv, never_loaded_by_compilers);
        else
            *same = header || strncmp(n, "NVCC_", 5) == 0 || not_read_by_compilers(n);
    }
    ctk_strlist_fini(&diff);
    return ok;
}

/* Dirs of m that g lacks hold no shared library but CUDA's (a dir that
 * does not exist holds none). */
static bool added_dirs_cuda_only(vjob_t *j, const ctk_strlist_t *m, const ctk_strlist_t *g)
{
    for (size_t i = 0; i < m->len; i++) {
        bool shared = false;

        for (size_t k = 0; !shared && k < g->len; k++)
            shared = strcmp(m->items[i], g->items[k]) == 0;
        if (!shared && ctk_is_dir(m->items[i]) && !never_loaded_by_compilers(j, m->items[i]))
            return false;
    }
    return true;
}

bool ctk_vreuse_same_link(vjob_t *j, ctk_env_t *menv, bool *same, bool *cc_too)
{
    ctk_env_t penv;
    ctk_strlist_t ldirs, rpath, g, m, mc;
    bool ok, got;

    *same = *cc_too = false;
    if (!j->pc_exe || !j->pc_trace || j->c->o->stage_dir)
        return true;
    ctk_env_init(&penv);
    ctk_strlist_init(&ldirs);
    ctk_strlist_init(&rpath);
    ctk_strlist_init(&g);
    ctk_strlist_init(&m);
    ctk_strlist_init(&mc);
    ok = plain_libs(j, &j->res->art[CTK_ART_PC].libs, &ldirs, &rpath, same);
    if (ok && *same)
        ok = ctk_vjob_pc_env(j, &penv) && same_link_vars(j, &penv, menv, same);
    if (ok && *same)
        *same = loads_same(&rpath, ctk_env_get(menv, "LD_LIBRARY_PATH"));
    if (ok && *same && (ok = pc_search_dirs(j, &penv, &g, &got)) && (*same = got))
        ok = search_dirs(j, j->c->rep->cxx, menv, &m, same);
    if (ok && *same)
        *same = added_dirs_cuda_only(j, &m, &g) && takes_same_files(j->pc_trace, &ldirs, &g, &m);
    if (ok && *same && (ok = search_dirs(j, j->c->rep->cc, menv, &mc, &got)) && got) {
        *cc_too = mc.len == m.len;
        for (size_t i = 0; *cc_too && i < m.len; i++)
            *cc_too = strcmp(mc.items[i], m.items[i]) == 0;
    }
    ctk_strlist_fini(&mc);
    ctk_strlist_fini(&m);
    ctk_strlist_fini(&g);
    ctk_strlist_fini(&rpath);
    ctk_strlist_fini(&ldirs);
    ctk_env_fini(&penv);
    return ok;
}
