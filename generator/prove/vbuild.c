/* vbuild.c - build the probes through each artifact: the .pc's, then each module's.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "vbuild.h"

#include "env.h"
#include "facts.h"
#include "proc.h"
#include "sdk.h"
#include "util.h"
#include "verdict.h"
#include "vjob.h"
#include "vload.h"
#include "vreuse.h"
#include "vrun.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The host compiler NVCC_PREPEND_FLAGS names: its last "-ccbin=X",
 * "-ccbin X", "--compiler-bindir=X" or "--compiler-bindir X" (nvcc takes
 * the last), or NULL; caller frees. */
static char *prepend_ccbin(const char *flags)
{
    char *copy = flags ? ctk_strdup(flags, NULL) : NULL, *w, *save = NULL, *got = NULL;
    bool want = false;

    for (w = copy ? strtok_r(copy, " \t", &save) : NULL; w; w = strtok_r(NULL, " \t", &save)) {
        const char *v = NULL;

        if (want)
            v = w;
        else if (strncmp(w, "-ccbin=", 7) == 0)
            v = w + 7;
        else if (strncmp(w, "--compiler-bindir=", 18) == 0)
            v = w + 18;
        want = strcmp(w, "-ccbin") == 0 || strcmp(w, "--compiler-bindir") == 0;
        if (v) {
            free(got);
            got = ctk_strdup(v, NULL);
        }
    }
    free(copy);
    return got;
}

/* The host compiler that nvcc runs in env, from `nvcc -dryrun`: the
 * program of its first host preprocessing step ("#$ \"/usr/bin\"/g++-11
 * ... -E -x c++ ..."), searched on env's PATH when bare; NULL when it
 * cannot say (caller frees). */
static char *nvcc_host_compiler(vjob_t *j, const char *nvcc, ctk_env_t *env)
{
    const char *argv[] = {nvcc, "-dryrun", "-c", "probe.cu", "-o", "probe_dry.o", NULL};
    ctk_proc_result_t r;
    char *got = NULL;

    ctk_proc_result_init(&r);
    if (ctk_vjob_run_step(j, argv, env, &r) && ctk_proc_ok(&r)) {
        const char *text = r.err && strstr(r.err, "#$ ") ? r.err : r.out;

        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            const char *end = strchr(l, '\n');
            size_t n = end ? (size_t)(end - l) : strlen(l);
            char word[PATH_MAX], *line;
            size_t k = 0;

            if (strncmp(l, "#$ ", 3) != 0 || !(line = ctk_strndup(l, n, NULL)))
                continue;
            if (strstr(line, " -E -x c++ ")) {
                for (const char *p = line + 3; *p && *p != ' ' && k + 1 < sizeof word; p++)
                    if (*p != '"')
                        word[k++] = *p;
                word[k] = '\0';
                got = strchr(word, '/') ? ctk_strdup(word, NULL) : ctk_env_which(env, word, NULL);
            }
            free(line);
            if (got)
                break;
        }
    }
    ctk_proc_result_fini(&r);
    return got;
}

/* CTK-HOSTCC-001's advice when the site config names the host compiler
 * (ccbin): whether the artifact hands it to nvcc, and how. */
static void ccbin_hint(vjob_t *j, const ctk_vart_t *a, const char *ccbin, int gmax, char *hint, size_t size)
{
    char older[64] = "an older one";
    const ctk_env_t *menv = a->kind == CTK_ART_LMOD ? &j->menv[0] : a->kind == CTK_ART_TCL ? &j->menv[1] : NULL;
    char *named = NULL;
    bool handed;

    if (gmax > 0)
        snprintf(older, sizeof older, "GCC %d or older", gmax);
    if (a->kind == CTK_ART_PC)
        handed = j->pc.ccbin && ctk_same_file(j->pc.ccbin, ccbin);
    else
        handed = menv && (named = prepend_ccbin(ctk_env_get(menv, "NVCC_PREPEND_FLAGS"))) &&
                 ctk_same_file(named, ccbin);
    free(named);
    if (handed)
        snprintf(hint, size, "nvcc ran %s, the compiler host_compiler.ccbin names, and refuses it: "
                 "name %s in host_compiler.ccbin", ccbin, older);
    else if (a->kind == CTK_ART_PC)
        snprintf(hint, size, "the .pc has no ccbin variable naming host_compiler.ccbin %s, so nvcc ran its "
                 "default; run ctkgen generate (it writes ccbin=%s)", ccbin, ccbin);
    else
        snprintf(hint, size, "the module does not hand host_compiler.ccbin %s to nvcc, which ran its default "
                 "(nvcc 11.8 and 12.4 ignore NVCC_CCBIN; every release reads NVCC_PREPEND_FLAGS=-ccbin=%s); "
                 "run ctkgen generate", ccbin, ccbin);
}

/* A failed compile or link: the finding that says why. */
static bool build_failure(vjob_t *j, ctk_vart_t *a, const char *what, const ctk_proc_result_t *r)
{
    char line[512], desc[256];
    const char *text = r->err && r->err[0] ? r->err : r->out;

    ctk_vjob_first_error_line(text, line, sizeof line);
    if (r->spawn_errno || r->timed_out || r->term_signal) {
        ctk_proc_describe(r, j->c->timeout, desc, sizeof desc);
        return ctk_vart_addf(a, "CTK-BUILD-002", 0, j->err, "%s: %s", what, desc);
    }
    if (text && (strstr(text, "unsupported GNU version") || strstr(text, "unsupported clang version") ||
                 strstr(text, "-allow-unsupported-compiler"))) {
        int gmax = ctk_facts_gcc_max(j->sdk->version.major, j->sdk->version.minor);
        const char *ccbin = j->sdk->conf->host_compiler_ccbin;
        char hint[768] = "";

        if (ccbin)
            ccbin_hint(j, a, ccbin, gmax, hint, sizeof hint);
        else if (gmax > 0) {
            char name[32];
            int v;

            snprintf(hint, sizeof hint, "use GCC %d or older (set host_compiler.ccbin in the site config)",
                     gmax);
            for (v = gmax; v >= 5; v--) {
                char *found;

                snprintf(name, sizeof name, "g++-%d", v);
                if ((found = ctk_env_which(&j->c->base, name, NULL))) {
                    snprintf(hint, sizeof hint,
                             "use %s, the newest accepted compiler here (host_compiler.ccbin)", found);
                    free(found);
                    break;
                }
            }
        }
        return ctk_vart_addf(a, "CTK-HOSTCC-001", 0, j->err, "%s: nvcc refuses the host compiler: %s; %s", what,
                             line, hint);
    }
    if (text && strstr(text, "cuda_runtime.h") &&
        (strstr(text, "No such file") || strstr(text, "cannot open source file")))
        return ctk_vart_addf(a, "CTK-BUILD-001", 0, j->err, "%s: cuda_runtime.h not found: %s", what, line);
    if (text && (strstr(text, "cannot find -lcudart") || strstr(text, "unable to find library -lcudart")))
        return ctk_vart_addf(a, "CTK-BUILD-003", 0, j->err, "%s: libcudart not found: %s", what, line);
    if (text && strstr(text, "nvcc fatal") && strstr(text, "Unknown option"))
        return ctk_vart_addf(a, "CTK-PC-001", ctk_vjob_var_line(j, a, "Libs:"), j->err,
                             "%s: nvcc rejects the Libs: %s", what, line);
    if (text && (strstr(text, "ld returned") || strstr(text, "undefined reference") ||
                 strstr(text, "cannot find -l")))
        return ctk_vart_addf(a, "CTK-BUILD-004", 0, j->err, "%s: %s", what, line);
    return ctk_vart_addf(a, "CTK-BUILD-002", 0, j->err, "%s: %s", what, line[0] ? line : "failed");
}

/* ---- builds ---------------------------------------------------------------------------- */

/* argv = prefix..., then each flag of list, then suffix...; caller frees the array. */
static const char **make_argv(const char *const *pre, const ctk_strlist_t *list, const char *const *post,
                              ctk_error_t *err)
{
    size_t n = 0, k = 0, i;
    const char **v;

    for (i = 0; pre[i]; i++)
        n++;
    for (i = 0; post[i]; i++)
        n++;
    n += list ? list->len : 0;
    if (!(v = calloc(n + 1, sizeof *v))) {
        ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
        return NULL;
    }
    for (i = 0; pre[i]; i++)
        v[k++] = pre[i];
    for (i = 0; list && i < list->len; i++)
        v[k++] = list->items[i];
    for (i = 0; post[i]; i++)
        v[k++] = post[i];
    return v;
}

static bool run_argv(vjob_t *j, const char *const *pre, const ctk_strlist_t *list,
                     const char *const *post, ctk_env_t *env, ctk_proc_result_t *r)
{
    const char **argv = make_argv(pre, list, post, j->err);
    bool ok;

    if (!argv)
        return false;
    ok = ctk_vjob_run_step(j, argv, env, r);
    free(argv);
    return ok;
}

/* nvcc accepted its host compiler; is that compiler within what this
 * release supports (facts.h)?  Only for nvcc's default, gcc on PATH: a
 * ccbin or a compiler module from the site config is the admin's
 * explicit choice. */
static bool check_host_compiler(vjob_t *j, ctk_vart_t *a)
{
    int gmax = ctk_facts_gcc_max(j->sdk->version.major, j->sdk->version.minor);

    if (j->sdk->conf->host_compiler_ccbin || j->sdk->conf->host_compiler_module || !j->c->gcc_major || !gmax ||
        j->c->gcc_major <= gmax)
        return true;
    return ctk_vart_addf(a, "CTK-HOSTCC-002", 0, j->err,
                         "nvcc built with GCC %d, newer than the GCC %d that CUDA %d.%d supports; name a supported "
                         "compiler in host_compiler.ccbin",
                         j->c->gcc_major, gmax, j->sdk->version.major, j->sdk->version.minor);
}

/* The architectures this nvcc builds for ("sm_75 sm_80 ..."), from
 * --list-gpu-code; NULL when it cannot say. */
static char *gpu_codes(vjob_t *j)
{
    const char *argv[] = {j->sdk->nvcc, "--list-gpu-code", NULL};
    char *out = ctk_vjob_tool_output(j->c, argv, j->dir);

    if (out && strncmp(out, "sm_", 3) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Build and run one variant of probe.cu: -gencode for each sm_XX of codes
 * (SASS alone), or for the oldest one's compute_XX alone (PTX alone). */
static bool arch_probe(vjob_t *j, ctk_vart_t *a, const char *codes, bool sass, ctk_env_t *env)
{
    const char *argv[64];
    char gencode[32][48], *exe = NULL, *copy = ctk_strdup(codes, j->err), *save = NULL;
    const char *name = sass ? "probe_sass" : "probe_ptx";
    ctk_proc_result_t r;
    size_t n = 0, g = 0;
    bool ok = false;

    if (!copy)
        return false;
    argv[n++] = j->sdk->nvcc;
    for (char *c = strtok_r(copy, " \t\n", &save); c && g < 32; c = strtok_r(NULL, " \t\n", &save)) {
        const char *num = c + 3;

        if (sass)
            snprintf(gencode[g], sizeof gencode[g], "arch=compute_%s,code=sm_%s", num, num);
        else
            snprintf(gencode[g], sizeof gencode[g], "arch=compute_%s,code=compute_%s", num, num);
        argv[n++] = "-gencode";
        argv[n++] = gencode[g++];
        if (!sass)
            break;
    }
    argv[n++] = "probe.cu";
    argv[n++] = "-o";
    argv[n++] = name;
    argv[n] = NULL;
    ctk_proc_result_init(&r);
    if (!ctk_vjob_run_step(j, argv, env, &r))
        goto out;
    if (!ctk_proc_ok(&r)) {
        ok = true; /* nothing learnt: the plain build says what matters */
        goto out;
    }
    ok = (exe = ctk_path_join(j->dir, name, j->err)) && ctk_vrun_launch(j, a, exe, env, sass ? &a->sass : &a->ptx);
out:
    ctk_proc_result_fini(&r);
    free(exe);
    free(copy);
    return ok;
}

/* Where a GPU may run them (a launcher elsewhere, or a driver here), the
 * SASS-only and PTX-only variants tell a driver too old for this toolkit's
 * PTX and a GPU outside its architectures from other failures. */
static bool arch_probes(vjob_t *j, ctk_vart_t *a, ctk_env_t *env)
{
    char *codes;
    bool ok;

    if (!j->c->o->stage_dir && !j->c->rep->driver)
        return true;
    if (!(codes = gpu_codes(j)))
        return true;
    ok = arch_probe(j, a, codes, true, env) && arch_probe(j, a, codes, false, env);
    free(codes);
    return ok && (j->c->o->stage_dir || ctk_vrun_judge_arch(&j->jd, a));
}

/* ---- where the linker found each library ------------------------------------------ */
/* A GNU ld input script (ctkgen's OUT/lib/<pc>-<version>/lib<name>.so):
 * neither an ELF file nor an archive.  ld traces the files it names next. */
static bool is_ld_script(const char *path)
{
    char head[8] = "";
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return false;
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n >= 4 && memcmp(head, "\177ELF", 4) != 0 && (n < 7 || memcmp(head, "!<arch>", 7) != 0);
}

/* path is in one of the toolkit's own lib dirs (stubs included) */
static bool in_toolkit_libdirs(const ctk_sdk_t *s, const char *path)
{
    const char *dirs[] = {s->libdir, s->stubsdir, s->math_libdir, s->cupti_libdir,
                          s->nvvm_libdir, s->nccl_libdir, s->nvshmem_libdir};
    size_t i;

    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i] && ctk_vjob_lib_in_dir(path, dirs[i]))
            return true;
    return false;
}

/* lib<name>.so, lib<name>.so.* or lib<name>.a is in one of the
 * toolkit's lib dirs: -l<name> is one of its libraries (-lrt, -ldl and
 * the like are the system's, wherever the linker takes them) */
static bool toolkit_has(const ctk_sdk_t *s, const char *name)
{
    const char *dirs[] = {s->libdir, s->stubsdir, s->math_libdir, s->cupti_libdir,
                          s->nvvm_libdir, s->nccl_libdir, s->nvshmem_libdir};
    size_t i, nl = strlen(name);
    bool found = false;

    for (i = 0; i < sizeof dirs / sizeof dirs[0] && !found; i++) {
        DIR *d = dirs[i] ? opendir(dirs[i]) : NULL;
        struct dirent *e;

        if (!d)
            continue;
        while (!found && (e = readdir(d))) {
            const char *suf;

            if (strncmp(e->d_name, "lib", 3) != 0 || strncmp(e->d_name + 3, name, nl) != 0)
                continue;
            suf = e->d_name + 3 + nl;
            found = strcmp(suf, ".so") == 0 || strncmp(suf, ".so.", 4) == 0 || strcmp(suf, ".a") == 0;
        }
        closedir(d);
    }
    return found;
}

/* The link of a probe ran with -Wl,--trace (trace: its stdout): for each
 * -l<name> of words that names a library of the toolkit (toolkit_has), the
 * library file the linker took (the last traced
 * lib<name>.so* or lib<name>.a that is not an ld script: a script of
 * ctkgen's link dir is followed by the toolkit file it names) must be in
 * the toolkit's own lib dirs.  At run time the loader may find the right
 * copy through LD_LIBRARY_PATH even so; what was linked is what a build
 * elsewhere, or a static link, gets. */
static bool check_link_trace(vjob_t *j, ctk_vart_t *a, const char *what, const char *const *words,
                             size_t n_words, const char *trace)
{
    size_t w;

    for (w = 0; w < n_words && trace; w++) {
        const char *name = words[w], *line;
        char took[4096] = "", file[4096];
        size_t nl;
        bool dup = false;

        if (!name || strncmp(name, "-l", 2) != 0 || !name[2] || name[2] == ':')
            continue;
        name += 2;
        for (size_t k = 0; k < w; k++)
            if (words[k] && strcmp(words[k], words[w]) == 0)
                dup = true;
        if (dup || !toolkit_has(j->sdk, name))
            continue;
        nl = strlen(name);
        for (line = trace; *line; line += strcspn(line, "\n"), line += *line == '\n') {
            size_t len = strcspn(line, "\n");
            const char *base, *suf;

            ctk_vjob_trace_file(line, len, file, sizeof file);
            if (!file[0] || !(base = strrchr(file, '/')))
                continue;
            base++;
            if (strncmp(base, "lib", 3) != 0 || strncmp(base + 3, name, nl) != 0)
                continue;
            suf = base + 3 + nl;
            if (strcmp(suf, ".so") != 0 && strncmp(suf, ".so.", 4) != 0 && strcmp(suf, ".a") != 0)
                continue;
            if (is_ld_script(file))
                continue;
            snprintf(took, sizeof took, "%s", file);
        }
        if (took[0] && !in_toolkit_libdirs(j->sdk, took)) {
            char *real = ctk_realpath(took);
            bool show = real && strcmp(real, took) != 0;

            if (!ctk_vart_addf(a, "CTK-LINK-001", 0, j->err,
                               "%s: the linker took -l%s from %s%s%s%s, not from this toolkit's lib dirs (%s)",
                               what, name, took, show ? " (" : "", show ? real : "", show ? ")" : "",
                               j->sdk->libdir)) {
                free(real);
                return false;
            }
            free(real);
        }
    }
    return true;
}

/* Every word of libs is one nvcc and the compiler only link with: -L<dir>,
 * -l<name>, or -Xlinker and the word it passes on.  nvcc's own options
 * spelt like -l<name> (-lineinfo, -ldir, -lto, -lib, -link) are not. */
static bool link_words_only(const ctk_strlist_t *libs)
{
    static const char *const nvcc_opts[] = {"-lineinfo", "-ldir", "-lto", "-lib", "-link", NULL};

    for (size_t i = 0; i < libs->len; i++) {
        const char *w = libs->items[i];

        if (strcmp(w, "-Xlinker") == 0 && i + 1 < libs->len) {
            i++;
            continue;
        }
        if ((strncmp(w, "-L", 2) != 0 && strncmp(w, "-l", 2) != 0) || !w[2])
            return false;
        for (int k = 0; nvcc_opts[k]; k++)
            if (strcmp(w, nvcc_opts[k]) == 0)
                return false;
    }
    return libs->len > 0;
}

/* The .pc's `nvcc -c probe.cu $(Cflags)`.  Where every Libs word is a
 * link word (link_words_only), the Libs ride along, as in a Makefile's
 * `nvcc -c $(pkg-config --cflags --libs)`: nvcc reads every option of
 * its command line before it runs anything and sets link options aside
 * in a compile, so a compile that passes is also nvcc accepting the Libs
 * verbatim (*libs_read), which then needs no run of its own.  A compile
 * that fails so is run again with the Cflags alone, so that its finding
 * is the compile's.  false only for internal errors. */
static bool compile_pc(vjob_t *j, const ctk_vart_t *a, const char *const *pre, const char *const *post,
                       ctk_env_t *env, ctk_proc_result_t *r, bool *libs_read)
{
    const char **with = NULL;
    size_t n = 0, k = 0;

    *libs_read = false;
    if (link_words_only(&a->libs)) {
        while (post[n])
            n++;
        if (!(with = calloc(a->libs.len + n + 1, sizeof *with))) {
            ctk_error_nomem(j->err);
            return false;
        }
        for (size_t i = 0; i < a->libs.len; i++)
            with[k++] = a->libs.items[i];
        for (size_t i = 0; i < n; i++)
            with[k++] = post[i];
        if (!run_argv(j, pre, &a->cflags, with, env, r)) {
            free(with);
            return false;
        }
        free(with);
        if ((*libs_read = ctk_proc_ok(r)))
            return true;
        ctk_proc_result_fini(r);
        ctk_proc_result_init(r);
    }
    return run_argv(j, pre, &a->cflags, post, env, r);
}

/* `nvcc -c probe.cu $(cflags)` (the Libs too where they are link words
 * alone: *libs_read) into probe.o, and the host compiler nvcc used.  1
 * built, 0 not (a finding says why), -1 error. */
static int pc_compile(vjob_t *j, ctk_vart_t *a, ctk_env_t *env, bool *libs_read)
{
    const char *pre[] = {j->sdk->nvcc, "-c", "probe.cu", NULL, NULL, NULL};
    const char *post[] = {"-o", "probe.o", NULL};
    ctk_proc_result_t r;
    int got = -1;

    if (j->pc.ccbin) {
        pre[3] = "-ccbin";
        pre[4] = j->pc.ccbin;
    }
    ctk_proc_result_init(&r);
    if (!compile_pc(j, a, pre, post, env, &r, libs_read))
        goto out;
    if (!ctk_proc_ok(&r)) {
        got = build_failure(j, a,
                            j->pc.ccbin ? "nvcc -ccbin $(pkg-config --variable=ccbin) -c probe.cu $(pkg-config --cflags)"
                                        : "nvcc -c probe.cu $(pkg-config --cflags)",
                            &r) ? 0 : -1;
        goto out;
    }
    if ((j->probe_o = ctk_path_join(j->dir, "probe.o", j->err)) && check_host_compiler(j, a))
        got = 1;
out:
    ctk_proc_result_fini(&r);
    return got;
}

/* `c++ probe.o $(libs)`, traced: *linked when it linked; the link kept
 * (pc_exe, pc_trace) for the modules, whose link this one may stand for,
 * when its trace raised no finding. */
static bool pc_link(vjob_t *j, ctk_vart_t *a, ctk_env_t *env, bool *linked)
{
    const char *pre[] = {j->c->rep->cxx, "probe.o", NULL};
    const char *post[] = {"-Wl,--trace", "-o", "probe_pc", NULL};
    ctk_proc_result_t r;
    size_t n_found;
    bool ok = false;

    ctk_proc_result_init(&r);
    if (!run_argv(j, pre, &a->libs, post, env, &r))
        goto out;
    if (!(*linked = ctk_proc_ok(&r))) {
        ok = build_failure(j, a, "c++ probe.o $(pkg-config --libs)", &r);
        goto out;
    }
    n_found = a->findings.len;
    if (!check_link_trace(j, a, "c++ probe.o $(pkg-config --libs)", (const char *const *)a->libs.items,
                          a->libs.len, r.out))
        goto out;
    if (a->findings.len == n_found && !r.truncated) {
        if (!(j->pc_exe = ctk_path_join(j->dir, "probe_pc", j->err)))
            goto out;
        j->pc_trace = r.out;
        r.out = NULL;
    }
    ok = true;
out:
    ctk_proc_result_fini(&r);
    return ok;
}

/* The same Libs, verbatim, for nvcc: a -Wl,a,b list works for c++ and
 * makes nvcc stop with "Unknown option".  nvcc checks its options before
 * it runs anything, so a dry run answers that in 10 ms; the link itself is
 * proven by the c++ link (linked).  CTK-PC-001 when nvcc refuses them. */
static bool pc_libs_for_nvcc(vjob_t *j, ctk_vart_t *a, ctk_env_t *env, bool linked)
{
    const char *pre[] = {j->sdk->nvcc, "-dryrun", "probe.o", NULL, NULL, NULL};
    const char *post[] = {"-o", "probe_pc_nvcc", NULL};
    ctk_proc_result_t r;
    char line[512];
    bool ok = false;

    if (j->pc.ccbin) {
        pre[3] = "-ccbin";
        pre[4] = j->pc.ccbin;
    }
    ctk_proc_result_init(&r);
    if (run_argv(j, pre, &a->libs, post, env, &r)) {
        const char *text = r.err[0] ? r.err : r.out;

        ok = true;
        if (!ctk_proc_ok(&r)) {
            ctk_vjob_first_error_line(text, line, sizeof line);
            if (strstr(text, "nvcc fatal") || linked)
                ok = ctk_vart_addf(a, "CTK-PC-001", ctk_vjob_var_line(j, a, "Libs:"), j->err, "nvcc probe.o $(pkg-config --libs): %s",
                                   line);
        }
    }
    ctk_proc_result_fini(&r);
    return ok;
}

/* probe_pc run with nothing but the base environment, its report and
 * launch judged, then the architecture probes. */
static bool pc_run(vjob_t *j, ctk_vart_t *a)
{
    ctk_env_t run_env;
    char *exe = ctk_path_join(j->dir, "probe_pc", j->err);
    bool ok;

    ctk_env_init(&run_env);
    ok = exe && ctk_env_copy(&run_env, &j->c->base, j->err) && ctk_vrun_launch(j, a, exe, &run_env, &a->cuda) &&
         ctk_vrun_judge_report(&j->jd, a, &a->cuda, "probe_pc") && ctk_vrun_judge_launch(&j->jd, a, &a->cuda) &&
         arch_probes(j, a, &run_env);
    ctk_env_fini(&run_env);
    free(exe);
    return ok;
}

bool ctk_vbuild_pc(vjob_t *j, ctk_vart_t *a)
{
    const ctk_sdk_t *s = j->sdk;
    ctk_env_t env;
    bool ok = false, linked = false, libs_read = false;
    int got;

    if (j->pre[0] && !s->conf->host_compiler_ccbin && !j->have_pre[0] && !j->have_pre[1])
        return ctk_vload_skip_prereq(j, a, "not built: the host compiler is in the module's prerequisite",
                                     j->pre_why[0] ? j->pre_why[0] : j->pre_why[1]);
    ctk_env_init(&env);
    if (!ctk_vjob_pc_env(j, &env) || !(a->nvcc = ctk_strdup(s->nvcc, j->err)) ||
        (j->nvcc_release && !(a->nvcc_release = ctk_strdup(j->nvcc_release, j->err))))
        goto out;
    if ((got = pc_compile(j, a, &env, &libs_read)) <= 0) {
        ok = got == 0;
        goto out;
    }
    ok = pc_link(j, a, &env, &linked) && (libs_read || pc_libs_for_nvcc(j, a, &env, linked)) &&
         (!linked || pc_run(j, a));
out:
    ctk_env_fini(&env);
    return ok;
}

/* Which cuda_runtime.h did the host compile read?  A compiler finds one in
 * its default dirs (/usr/local/include, /usr/include) when CPATH misses the
 * toolkit's: that is another toolkit's header, or this one's by luck. */
static bool check_header_origin(vjob_t *j, ctk_vart_t *a, const char *deps_name)
{
    char *deps_path = ctk_path_join(j->dir, deps_name, j->err), *text, *p, *want, *hdr = NULL, *save = NULL;
    bool ok = true;

    if (!deps_path)
        return false;
    text = ctk_file_read(deps_path, 1 << 22, NULL, NULL);
    free(deps_path);
    if (!text)
        return true; /* no record: nothing to say */
    for (p = strtok_r(text, " \t\n\\", &save); p; p = strtok_r(NULL, " \t\n\\", &save)) {
        size_t n = strlen(p);

        if (n >= 15 && strcmp(p + n - 15, "/cuda_runtime.h") == 0) {
            hdr = p;
            break;
        }
    }
    if (hdr && (want = ctk_path_join(j->sdk->incdir, "cuda_runtime.h", j->err))) {
        char *rh = ctk_realpath(hdr);

        if (!ctk_same_file(hdr, want))
            ok = ctk_vart_addf(a, "CTK-BUILD-001", ctk_vjob_var_line(j, a, "CPATH"), j->err,
                               "cc found cuda_runtime.h at %s%s%s%s, not in this toolkit's %s", hdr,
                               rh && strcmp(rh, hdr) ? " (" : "", rh && strcmp(rh, hdr) ? rh : "",
                               rh && strcmp(rh, hdr) ? ")" : "", j->sdk->incdir);
        free(rh);
        free(want);
    } else if (hdr) {
        ok = false;
    }
    free(text);
    return ok;
}

/* The Tcl module's environment is the Lua module's: the same compiler
 * runs on the same files with the same variables, so the probes built for
 * the Lua module are what the Tcl module would build.  Run the programs the
 * Lua module's check ran in the Tcl environment instead of building them
 * again. */
static bool reuse_module_probes(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    const char *lmod_linked = j->res->art[CTK_ART_LMOD].linked_by;
    char *host = ctk_path_join(j->dir, "host_lmod", j->err);
    const char *cuda = j->lmod_cuda, *cuda_base = cuda ? strrchr(cuda, '/') + 1 : NULL;
    bool ok = host && (a->built_by = ctk_strdup(ctk_art_name(CTK_ART_LMOD), j->err)) &&
              (!lmod_linked || (a->linked_by = ctk_strdup(lmod_linked, j->err)));

    if (ok && ctk_is_file(host))
        ok = ctk_vrun_launch(j, a, host, menv, &a->host) && ctk_vrun_judge_report(&j->jd, a, &a->host, "host_lmod");
    if (ok && cuda)
        ok = ctk_vrun_launch(j, a, cuda, menv, &a->cuda) && ctk_vrun_judge_report(&j->jd, a, &a->cuda, cuda_base) &&
             ctk_vrun_judge_launch(&j->jd, a, &a->cuda);
    free(host);
    return ok;
}

/* The module's own nvcc and host compiler, as a user's plain `nvcc` runs
 * them: which compiler `nvcc -dryrun` runs against the one the module
 * names (CTK-HOSTCC-003 when the variable naming it is one this nvcc
 * ignores), and `nvcc -E` (a host preprocessing, ~0.3 s), where nvcc
 * refuses a host compiler outside its range.  The probe object itself
 * comes from the .pc build, compiled with the .pc's flags. */
static bool check_module_nvcc(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    const char *cc_var = ctk_env_get(menv, "NVCC_CCBIN"), *var = "NVCC_PREPEND_FLAGS";
    char *named = prepend_ccbin(ctk_env_get(menv, "NVCC_PREPEND_FLAGS")), *ran = NULL;
    const char *argv[] = {a->nvcc, "-E", "probe.cu", "-o", "probe_mod.ii", NULL};
    ctk_proc_result_t r;
    bool ok = true, same;

    if (!a->nvcc)
        goto out;
    if (!named && cc_var) {
        named = ctk_strdup(cc_var, NULL);
        var = "NVCC_CCBIN";
    }
    if (named && (ran = nvcc_host_compiler(j, a->nvcc, menv)) && !ctk_same_file(named, ran))
        ok = ctk_vart_addf(a, "CTK-HOSTCC-003", ctk_vjob_var_line(j, a, var), j->err,
                           "the module names the host compiler %s in %s, which nvcc%s%s ignores: it runs %s; name it "
                           "in NVCC_PREPEND_FLAGS (-ccbin=%s), which every nvcc reads",
                           named, var, a->nvcc_release ? " " : "", a->nvcc_release ? a->nvcc_release : "", ran, named);
    if (!ok || !j->probe_o)
        goto out; /* without the .pc's object, build_module compiles with this nvcc itself */
    if (!(ok = ctk_vreuse_same_compile_env(j, a, menv, &same)))
        goto out;
    if (same) { /* the .pc's compile ran what this one would */
        ok = (a->built_by = ctk_strdup(ctk_art_name(CTK_ART_PC), j->err)) != NULL;
        goto out;
    }
    ctk_proc_result_init(&r);
    if (!(ok = ctk_vjob_run_step(j, argv, menv, &r)))
        ;
    else if (!ctk_proc_ok(&r))
        ok = build_failure(j, a, "nvcc -E probe.cu (the module's nvcc and host compiler)", &r);
    ctk_proc_result_fini(&r);
out:
    free(named);
    free(ran);
    return ok;
}

/* The host C probe in the module's environment: `cc host_probe.c
 * -lcudart`, run, or, where the .pc's compile and link both stand for the
 * module's (parse_only), `cc -fsyntax-only host_probe.c`: the header
 * lookup through CPATH is then the one thing the .pc's build did not
 * prove, and the link and the run the .pc's program shows.  -MD only
 * records which headers were read; lookup is untouched.  A build that
 * fails is a finding.  false only for internal errors. */
static bool module_host_probe(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv, bool parse_only)
{
    char exe[64], deps[80], *path = NULL;
    const char *link[] = {j->c->rep->cc, "-MD", "-MF", deps, "host_probe.c", "-lcudart", "-Wl,--trace",
                          "-o", exe, NULL};
    const char *parse[] = {j->c->rep->cc, "-fsyntax-only", "-MD", "-MF", deps, "host_probe.c", NULL};
    const char *const *argv = parse_only ? parse : link;
    ctk_proc_result_t r;
    bool ok = false;

    snprintf(exe, sizeof exe, "host_%s", ctk_art_name(a->kind));
    snprintf(deps, sizeof deps, "%s.d", exe);
    ctk_proc_result_init(&r);
    if (!ctk_vjob_run_step(j, argv, menv, &r))
        goto out;
    if (!ctk_proc_ok(&r)) {
        ok = build_failure(j, a, parse_only ? "cc -fsyntax-only host_probe.c" : "cc host_probe.c -lcudart", &r);
        goto out;
    }
    if (parse_only) { /* a compiler that wrote no deps file proves no lookup: build */
        if (!(path = ctk_path_join(j->dir, deps, j->err)))
            goto out;
        if (!ctk_is_file(path)) {
            ok = module_host_probe(j, a, menv, false);
            goto out;
        }
        free(path);
        path = NULL;
    }
    if ((!parse_only && !check_link_trace(j, a, "cc host_probe.c -lcudart", link + 5, 1, r.out)) ||
        !check_header_origin(j, a, deps))
        goto out;
    ok = parse_only || ((path = ctk_path_join(j->dir, exe, j->err)) && ctk_vrun_launch(j, a, path, menv, &a->host) &&
                        ctk_vrun_judge_report(&j->jd, a, &a->host, exe));
out:
    free(path);
    ctk_proc_result_fini(&r);
    return ok;
}

/* The CUDA probe in the module's environment: probe.o (the .pc's, else
 * compiled by the module's nvcc) linked by `c++ probe.o -lcudart`, or,
 * where the .pc's link stands for that (linked), the .pc's program; run.
 * *exe gets the program's path.  false only for internal errors. */
static bool module_cuda_probe(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv, bool linked, char **exe)
{
    char name[64];
    const char *object = j->probe_o ? "probe.o" : "probe_mod.o";
    const char *compile[] = {a->nvcc, "-c", "probe.cu", "-o", "probe_mod.o", NULL};
    const char *link[] = {j->c->rep->cxx, object, "-lcudart", "-Wl,--trace", "-o", name, NULL};
    ctk_proc_result_t r;
    bool ok = false;

    snprintf(name, sizeof name, "probe_%s", ctk_art_name(a->kind));
    ctk_proc_result_init(&r);
    if (linked) {
        if (!(*exe = ctk_strdup(j->pc_exe, j->err)))
            goto out;
        snprintf(name, sizeof name, "probe_pc");
        goto run;
    }
    if (!j->probe_o) { /* the .pc build failed: compile the object with the module's nvcc */
        if (!a->nvcc) {
            ok = true; /* CTK-PATH-001 already says why */
            goto out;
        }
        if (!ctk_vjob_run_step(j, compile, menv, &r))
            goto out;
        if (!ctk_proc_ok(&r)) {
            ok = build_failure(j, a, "nvcc -c probe.cu", &r);
            goto out;
        }
        ctk_proc_result_fini(&r);
        ctk_proc_result_init(&r);
    }
    if (!ctk_vjob_run_step(j, link, menv, &r))
        goto out;
    if (!ctk_proc_ok(&r)) {
        ok = build_failure(j, a, "c++ probe.o -lcudart", &r);
        goto out;
    }
    if (!check_link_trace(j, a, "c++ probe.o -lcudart", link + 2, 1, r.out) ||
        !(*exe = ctk_path_join(j->dir, name, j->err)))
        goto out;
run:
    ok = ctk_vrun_launch(j, a, *exe, menv, &a->cuda) && ctk_vrun_judge_report(&j->jd, a, &a->cuda, name) &&
         ctk_vrun_judge_launch(&j->jd, a, &a->cuda);
out:
    ctk_proc_result_fini(&r);
    return ok;
}

bool ctk_vbuild_module(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    char *exe = NULL;
    bool linked, cc_too, ok;

    if (a->kind == CTK_ART_TCL && j->same_env && !j->res->art[CTK_ART_LMOD].findings.len)
        return reuse_module_probes(j, a, menv);
    if (!check_module_nvcc(j, a, menv) || !ctk_vreuse_same_link(j, menv, &linked, &cc_too))
        return false;
    if (linked && !(a->linked_by = ctk_strdup(ctk_art_name(CTK_ART_PC), j->err)))
        return false;
    if (!module_host_probe(j, a, menv, linked && cc_too && a->built_by))
        return false;
    ok = module_cuda_probe(j, a, menv, linked, &exe);
    if (ok && exe && a->kind == CTK_ART_LMOD) {
        j->lmod_cuda = exe;
        exe = NULL;
    }
    free(exe);
    return ok;
}
