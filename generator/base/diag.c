/* diag.c - the table of finding codes and the findings list.
 * SPDX-License-Identifier: MIT
 *
 * Codes are stable: once released, a code keeps its meaning, and a retired
 * code is never reused.  Each code has a "## CODE" section in
 * docs/diagnostics.md; tests/check_report.c fails when the two drift apart.
 * Summaries say what is wrong, fixes say what to do, both on one line and
 * without a final period, so they read well after "error CTK-...: ".
 */
#include <ctkconf.h>

#include "diag.h"
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E CTK_SEV_ERROR
#define W CTK_SEV_WARNING
#define N CTK_SEV_NOTE

const ctk_diag_t ctk_diags[] = {
    /* ---- the artifact itself ------------------------------------------ */
    { "CTK-MOD-001", E, "the artifact could not be evaluated or loaded by its client",
      "read the quoted error; regenerate the file, or fix the template that wrote it" },
    { "CTK-MOD-002", E, "the artifact is missing from the output tree",
      "run 'ctkgen generate' again for this output directory" },
    { "CTK-MOD-003", W,
      "the module declares no family or conflict, so two toolkits can be loaded at once",
      "add family(\"cuda\") (Lua) or 'conflict cudatoolkit' (Tcl); ctkgen's templates do" },
    { "CTK-MOD-004", E,
      "the Lua modulefile calls what the sandbox forbids (commands, files, code loading); not run",
      "set variables with Lmod functions only; work out values when the module is written, not loaded" },
    { "CTK-MOD-005", E,
      "the Lua modulefile hit the sandbox's memory, instruction or stack limit and was stopped",
      "remove the loop, recursion or string growth; a modulefile only sets variables" },
    { "CTK-MOD-007", W,
      "the Lua modulefile runs a program when loaded (execute, capture, subprocess, source_sh, os.execute); "
      "lint did not run it, so whatever depends on its output was not checked",
      "compute the value when the module is written and set it with setenv or prepend_path" },
    { "CTK-MOD-008", N,
      "a module this one loads or requires (load, depends_on, prereq, ...) was not evaluated with it, "
      "so what it sets was not checked",
      "lint the module tree that holds the dependency too, or check that the dependency exists" },
    { "CTK-MOD-006", E,
      "the artifact, or a directory or .modulerc on its way, is a symlink or not a regular file; not followed",
      "remove it and run 'ctkgen generate' again; the output tree holds ctkgen's own regular files" },

    { "CTK-READ-001", E,
      "not a regular file (a FIFO, a device, a socket, or a link to one or into /proc or /sys): not read",
      "remove it, or put the regular file it stands for in its place; a module system that opens it "
      "waits forever or reads kernel state" },

    /* ---- the environment it produces ------------------------------------ */
    { "CTK-ENV-001", E, "the Lua and Tcl modulefiles produce different environments",
      "make both modulefiles set the named variables to the same values" },
    { "CTK-ENV-002", E, "real Lmod and ctkgen's sandbox disagree on the Lua module's environment",
      "report it with both environments; meanwhile trust real Lmod's result" },
    { "CTK-ENV-003", E, "the module sets LDFLAGS, CFLAGS or CXXFLAGS, which overrides users' builds",
      "remove that setting; use CPATH, LIBRARY_PATH and the .pc file instead" },

    /* ---- PATH, CPATH, library paths ------------------------------------- */
    { "CTK-PATH-001", E, "the nvcc found on the module's PATH is not this toolkit's",
      "prepend this toolkit's bin directory to PATH" },
    { "CTK-CPATH-001", E,
      "CPATH (or the .pc's Cflags) misses the directory holding this toolkit's cuda_runtime.h",
      "prepend the toolkit's include directory to CPATH, or add -I<dir> to Cflags" },
    { "CTK-CPATH-002", W,
      "CPATH (or Cflags) misses an include directory of math_libs, CUPTI or NVVM",
      "add the named include directory to CPATH and to Cflags" },
    { "CTK-LDLIB-001", E, "the driver stubs directory is on LD_LIBRARY_PATH",
      "remove lib/stubs from LD_LIBRARY_PATH; stubs are for linking only (LIBRARY_PATH)" },
    { "CTK-LDLIB-002", E,
      "another toolkit's lib directory comes before this toolkit's on LD_LIBRARY_PATH",
      "put this toolkit's lib directory first, or unload the other toolkit's module" },
    { "CTK-LDLIB-003", W,
      "LD_LIBRARY_PATH, LIBRARY_PATH (or Libs) miss a lib directory of the toolkit",
      "add the named lib directory (math_libs, CUPTI or NVVM) to both variables and to Libs" },

    /* ---- pkg-config ------------------------------------------------------ */
    { "CTK-PC-001", E, "nvcc rejects the .pc's Libs",
      "write Libs as plain -L, -l and -Xlinker -rpath=<dir> words that nvcc and cc both accept" },
    { "CTK-PC-002", E, "the .pc's Version disagrees with the toolkit",
      "regenerate the .pc, or correct the SDK's version in the site config" },
    { "CTK-PC-003", W, "a .pc variable is defined but neither Cflags nor Libs use it",
      "add the directory it names to Cflags (-I) or Libs (-L), or drop the variable" },
    { "CTK-PC-004", E,
      "no PKG_CONFIG_PATH directory holds a .pc the module names (PE_PKGCONFIG_LIBS)",
      "prepend the directory holding <name>.pc to PKG_CONFIG_PATH, or fix the name" },
    { "CTK-PC-005", E,
      "resolving the .pc hit a bound (size, entries, files, depth, visits or time) and was stopped",
      "flatten the Requires (each package once, no deep chains), keep .pc files small; pkg-config itself "
      "would take hours or gigabytes on this one" },
    { "CTK-PC-006", E, "the .pc's Requires lead back to a package on the way (a cycle)",
      "remove the Requires that closes the cycle; a package never needs itself" },

    /* ---- building the probes --------------------------------------------- */
    { "CTK-BUILD-001", E, "host compile failed: cuda_runtime.h not found",
      "prepend the toolkit's include directory to CPATH" },
    { "CTK-BUILD-002", E, "compiling the probe failed",
      "read the quoted compiler error; check the flags and the host compiler" },
    { "CTK-BUILD-003", E, "linking failed: libcudart not found (-lcudart)",
      "prepend the toolkit's lib directory to LIBRARY_PATH, or add -L<dir> to Libs" },
    { "CTK-BUILD-004", E, "linking the probe failed",
      "read the quoted linker error; check LIBRARY_PATH and the .pc's Libs" },
    { "CTK-LINK-001", E,
      "the linker took a library the probe links (-l) from outside this toolkit's lib dirs",
      "put the toolkit's lib dirs first on LIBRARY_PATH and in Libs (-L); for a toolkit that ships "
      "only versioned libraries (libcudart.so.13), regenerate: ctkgen's link dir (OUT/lib) provides "
      "the unversioned names" },
    { "CTK-HOSTCC-001", E, "nvcc refuses the host compiler: its version is outside this CUDA's range",
      "load a supported compiler (host_compiler.module) or set host_compiler.ccbin; when that is set "
      "already, the message says whether the artifact hands it to nvcc" },
    { "CTK-HOSTCC-002", W,
      "the host compiler is newer than this CUDA release supports, though nvcc accepted it",
      "use a compiler in the supported range for production builds" },
    { "CTK-HOSTCC-003", W,
      "the module names a host compiler in a variable this nvcc ignores: nvcc runs another one",
      "name it in NVCC_PREPEND_FLAGS (-ccbin=PATH), which nvcc 11.8, 12.4 and 13.0 all read (ctkgen "
      "generate writes that from host_compiler.ccbin); nvcc 11.8 and 12.4 ignore NVCC_CCBIN" },

    /* ---- running the probes ---------------------------------------------- */
    { "CTK-RUN-001", E, "the probe did not run to completion",
      "read the quoted exit status and output; run the probe by hand to see more" },
    { "CTK-RUN-002", E, "the probe loaded a libcudart from outside this toolkit",
      "put this toolkit's lib directory first on LD_LIBRARY_PATH, or give Libs an rpath" },
    { "CTK-RUN-003", E, "libcudart was not found at run time",
      "add the toolkit's lib directory to LD_LIBRARY_PATH, or -Wl,-rpath,<dir> to Libs" },
    { "CTK-VER-001", E, "versions disagree between module name, .pc, nvcc, header and runtime",
      "point the SDK at one toolkit and regenerate; the message names the odd one out" },

    /* ---- the GPU ---------------------------------------------------------- */
    { "CTK-GPU-001", E, "the kernel ran but its result was wrong",
      "check the GPU and driver (nvidia-smi, dmesg); rerun before trusting this toolkit" },
    { "CTK-GPU-002", E, "this toolkit has no kernel image for the GPU's architecture",
      "use a toolkit that supports this GPU's compute capability" },
    { "CTK-GPU-003", E, "the NVIDIA driver is too old for this CUDA runtime",
      "update the driver, or install the toolkit's cuda-compat package" },
    { "CTK-GPU-004", E, "a CUDA error occurred while launching the kernel",
      "read the quoted CUDA error; check the GPU is healthy and not exclusive-process busy" },
    { "CTK-GPU-005", E, "--require-launch: the probe could not launch on this machine",
      "run validate on a machine with an NVIDIA driver and GPU, or drop --require-launch" },
    { "CTK-GPU-006", E, "the driver is older than this toolkit: it cannot JIT the toolkit's PTX for this GPU",
      "update the driver to the minimum for this toolkit's release (the message names it), or have users build SASS for the GPU (-arch=sm_XX), which runs under minor-version compatibility" },
    { "CTK-GPU-007", W, "the plain build ran (it holds SASS for this GPU), but the driver cannot JIT this toolkit's PTX",
      "update the driver; until then code built only as PTX (-arch=compute_XX) or for newer GPUs fails on this partition" },

    /* ---- Slurm (validate --launcher slurm) ----------------------------------- */
    { "CTK-SLURM-001", E, "the partition's job was refused by sbatch (account, QOS, GRES, time limit)",
      "fix the partition's entry in the site config's validation section (account, qos, gres, time) or the Slurm association; sbatch's own words are in the message" },
    { "CTK-SLURM-002", E, "the partition's job ended without the probes' results",
      "read the job's output named in the message: the node failed, the time limit was too short, or the stage dir is not visible at the same path on the compute nodes (--stage-dir)" },

    /* ---- which toolkit (lint) ---------------------------------------------- */
    { "CTK-SDK-001", W,
      "no CUDA toolkit found from the paths the file sets; only toolkit-independent checks ran",
      "point CUDA_HOME, PATH (bin/nvcc) or CPATH at a complete toolkit, or ignore a non-CUDA file" },

    /* ---- programs another user controls (trust.h) ------------------------- */
    { "CTK-TRUST-001", W,
      "lint did not run a program another user can change, so the check that needed it did not run",
      "use programs only root can change (root-owned, no group or other write up to /), or lint as their owner" },
    { "CTK-TRUST-002", W, "validate runs a program another user can change (the SDK's nvcc, its ccbin)",
      "install the toolkit and compiler where only root can write (root-owned, no group or other write, up to /)" },

    /* ---- parts that could not run here ----------------------------------- */
    { "CTK-SKIP-001", N, "not launched: no NVIDIA driver on this machine",
      "run validate on a GPU node to launch the probes" },
    { "CTK-SKIP-002", N, "not launched: no CUDA-capable GPU is visible",
      "run validate on a GPU node; check CUDA_VISIBLE_DEVICES and device permissions" },
    { "CTK-SKIP-003", N, "Tcl modulefile not checked: Environment Modules not found (lint: nor Lmod's tcl2lua)",
      "install Environment Modules and tclsh, or name modulecmd.tcl with --modulecmd (lint also reads Tcl through Lmod's tcl2lua)" },
    { "CTK-SKIP-005", N, "not launched on a partition: its job stayed pending past the queue timeout, or ctkgen cancelled it",
      "raise --queue-timeout, or run when the partition has free GPUs; the pending reason says what Slurm waits for" },
    { "CTK-SKIP-004", N, "Tcl modulefile not checked: it cannot be evaluated here without root's rights",
      "make it and its directories readable by nobody (files 0644, directories 0755), or use --trust-tcl for a file only root can change" },
    { "CTK-SKIP-006", N,
      "not checked: the module requires another (host_compiler.module) that validate could not find or load",
      "give validate the site's MODULEPATH: --modulepath DIRS, the site config's validation.modulepath, or --inherit-modulepath" },

    { NULL, N, NULL, NULL }
};

#undef E
#undef W
#undef N

const ctk_diag_t *ctk_diag_find(const char *code)
{
    const ctk_diag_t *d;

    if (!code)
        return NULL;
    for (d = ctk_diags; d->code; d++)
        if (strcmp(d->code, code) == 0)
            return d;
    return NULL;
}

const char *ctk_severity_name(ctk_severity_t s)
{
    switch (s) {
    case CTK_SEV_NOTE:
        return "note";
    case CTK_SEV_WARNING:
        return "warning";
    case CTK_SEV_ERROR:
        return "error";
    }
    return "unknown";
}

/* ---- findings -------------------------------------------------------------- */

void ctk_findings_init(ctk_findings_t *f)
{
    memset(f, 0, sizeof *f);
}

static void finding_fini(ctk_finding_t *x)
{
    free(x->file);
    free(x->text);
    free(x->reason);
    free(x->rule_at);
    free(x->fix);
}

void ctk_findings_fini(ctk_findings_t *f)
{
    size_t i;

    if (!f)
        return;
    for (i = 0; i < f->len; i++)
        finding_fini(&f->items[i]);
    free(f->items);
    memset(f, 0, sizeof *f);
}

/* Room for `more` further items. */
static bool reserve(ctk_findings_t *f, size_t more, ctk_error_t *err)
{
    size_t cap = f->cap ? f->cap : 4;
    ctk_finding_t *p;

    if (more <= f->cap - f->len)
        return true;
    if (more > SIZE_MAX / sizeof *p - f->len)
        goto nomem;
    while (cap < f->len + more) {
        if (cap > SIZE_MAX / sizeof *p / 2)
            goto nomem;
        cap *= 2;
    }
    p = realloc(f->items, cap * sizeof *p);
    if (!p)
        goto nomem;
    f->items = p;
    f->cap = cap;
    return true;
nomem:
    ctk_error_nomem(err);
    return false;
}

/* Append a finding for table entry d, taking text (freed on failure). */
static bool add_take(ctk_findings_t *f, const ctk_diag_t *d, const char *file, int line,
                     char *text, ctk_error_t *err)
{
    ctk_finding_t *x;
    char *file_copy = NULL;

    if (file && !(file_copy = ctk_strdup(file, err)))
        goto fail;
    if (!reserve(f, 1, err))
        goto fail;
    x = &f->items[f->len++];
    x->code = d->code;
    x->severity = d->severity;
    x->file = file_copy;
    x->line = line > 0 ? line : 0;
    x->text = text;
    x->waived = false;
    x->reason = NULL;
    x->rule_at = NULL;
    x->fix = NULL;
    return true;
fail:
    free(file_copy);
    free(text);
    return false;
}

bool ctk_findings_add(ctk_findings_t *f, const char *code, const char *file, int line,
                      ctk_error_t *err, const char *fmt, ...)
{
    const ctk_diag_t *d = ctk_diag_find(code);
    va_list ap;
    char *text;
    int n;

    if (!d) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "finding with unknown code \"%s\"",
                      code ? code : "(null)");
        return false;
    }
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "%s: bad message format", code);
        return false;
    }
    text = malloc((size_t)n + 1);
    if (!text) {
        ctk_error_nomem(err);
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return add_take(f, d, file, line, text, err);
}

/* All or nothing: on failure dst is as it was. */
bool ctk_findings_extend(ctk_findings_t *dst, const ctk_findings_t *src, ctk_error_t *err)
{
    size_t i, old_len = dst->len;

    if (!src || src->len == 0)
        return true;
    if (dst == src) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "findings extended with themselves");
        return false;
    }
    if (!reserve(dst, src->len, err))
        return false;
    for (i = 0; i < src->len; i++) {
        const ctk_finding_t *s = &src->items[i];
        ctk_finding_t *x = &dst->items[dst->len];

        x->code = s->code;
        x->severity = s->severity;
        x->line = s->line;
        x->file = NULL;
        x->waived = s->waived;
        x->reason = NULL;
        x->rule_at = NULL;
        x->fix = NULL;
        x->text = ctk_strdup(s->text ? s->text : "", err);
        if (!x->text || (s->file && !(x->file = ctk_strdup(s->file, err))) ||
            (s->reason && !(x->reason = ctk_strdup(s->reason, err))) ||
            (s->rule_at && !(x->rule_at = ctk_strdup(s->rule_at, err))) ||
            (s->fix && !(x->fix = ctk_strdup(s->fix, err)))) {
            finding_fini(x);
            goto fail;
        }
        dst->len++;
    }
    return true;
fail:
    while (dst->len > old_len)
        finding_fini(&dst->items[--dst->len]);
    return false;
}

void ctk_findings_drop(ctk_findings_t *f, const char *code)
{
    size_t i, k = 0;

    for (i = 0; f && code && i < f->len; i++) {
        if (strcmp(f->items[i].code, code) == 0)
            finding_fini(&f->items[i]);
        else
            f->items[k++] = f->items[i];
    }
    if (f && code)
        f->len = k;
}

/* A printf into fresh memory (caller frees); NULL with err set. */
static char *vformat(ctk_error_t *err, const char *fmt, va_list ap)
{
    va_list again;
    char *text;
    int n;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    if (n < 0) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "bad message format");
        return NULL;
    }
    if (!(text = malloc((size_t)n + 1))) {
        ctk_error_nomem(err);
        return NULL;
    }
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    return text;
}

bool ctk_findings_set_fix(ctk_findings_t *f, size_t i, ctk_error_t *err, const char *fmt, ...)
{
    va_list ap;
    char *fix;

    if (!f || i >= f->len) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "a fix for finding %zu of %zu", i, f ? f->len : 0);
        return false;
    }
    va_start(ap, fmt);
    fix = vformat(err, fmt, ap);
    va_end(ap);
    if (!fix)
        return false;
    free(f->items[i].fix);
    f->items[i].fix = fix;
    return true;
}

const char *ctk_finding_fix(const ctk_finding_t *x)
{
    const ctk_diag_t *d;

    if (x->fix)
        return x->fix;
    d = ctk_diag_find(x->code);
    return d ? d->fix : "";
}

bool ctk_findings_has(const ctk_findings_t *f, const char *code)
{
    size_t i;

    for (i = 0; f && code && i < f->len; i++)
        if (strcmp(f->items[i].code, code) == 0)
            return true;
    return false;
}

size_t ctk_findings_count(const ctk_findings_t *f, ctk_severity_t sev)
{
    size_t i, n = 0;

    for (i = 0; f && i < f->len; i++)
        if (f->items[i].severity == sev && !f->items[i].waived)
            n++;
    return n;
}

size_t ctk_findings_count_waived(const ctk_findings_t *f)
{
    size_t i, n = 0;

    for (i = 0; f && i < f->len; i++)
        if (f->items[i].waived)
            n++;
    return n;
}
