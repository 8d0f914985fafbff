/* vjob.h - the state validate's parts share, and their small steps.
 * SPDX-License-Identifier: MIT
 *
 * validate.c runs each SDK in one worker (vjob_t) over the run's shared
 * context (vctx_t).  Its parts, each below the one that calls it:
 *   vload.c   load each artifact as its users will (sandbox, Environment
 *             Modules, libpkgconf) and check what it sets;
 *   vbuild.c  build the probes through each artifact and run them;
 *   vreuse.c  decide when the .pc's build stands for a module's;
 *   vrun.c    run a built probe, here or staged elsewhere, and judge it;
 *   vjob.c    the small steps all of them take.
 * None of this is ctkgen's interface: validate.h is.
 */
#ifndef CTK_VJOB_H
#define CTK_VJOB_H

#include "config.h"
#include "env.h"
#include "error.h"
#include "modenv.h"
#include "pc.h"
#include "proc.h"
#include "sandbox.h"
#include "sdk.h"
#include "tcl2lua.h"
#include "util.h"
#include "verdict.h"
#include "vopts.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* The run: what every worker shares, read-only once they start but for
 * what its locks guard. */
typedef struct {
    const ctk_config_t *cfg;
    ctk_sdk_t *const *sdks;
    const ctk_vopts_t *o;
    ctk_vreport_t *rep;
    double timeout;
    char *tmproot;            /* private: mkdtemp, 0700 */
    char *cache_dir;          /* NULL: no cache */
    ctk_env_t base;           /* read-only once workers start */
    const char *const *base_envp; /* base as an envp, made once before the workers start */
    bool have_tcl, have_lmod;
    ctk_modsys_info_t tcl, lmod;
    ctk_sandbox_t sb;         /* who runs the modulefiles when ctkgen is root */
    char *tcl_user_why;       /* sb drops root, and Environment Modules cannot run as its user: why */
    char *tcl_why;            /* why Tcl is skipped */
    char *lmod_why;
    bool have_t2l;            /* Lmod's tcl2lua, for a prerequisite written in Tcl */
    ctk_tcl2lua_t t2l;
    char *t2l_why;            /* why not, when an SDK has a prerequisite */
    char global_key[33];      /* hash of everything shared by all SDKs */
    int gcc_major;            /* `gcc -dumpversion` on the base PATH: nvcc's default host compiler; 0: none */
    pthread_mutex_t lock;     /* next, progress, pc_lock use */
    pthread_mutex_t pc_lock;  /* libpkgconf is not documented thread-safe */
    size_t next;
    pthread_mutex_t nvcc_lock; /* held while an nvcc is asked its release */
    ctk_strlist_t nvcc_seen;  /* "FILE-IDENTITY\tRELEASE" of each nvcc asked (nvcc_lock) */
    ctk_strlist_t base_dirs;  /* `c++ -print-search-dirs` in the base environment,
                               * asked once (nvcc_lock); empty: not yet */
    bool failed;              /* a worker hit an internal error */
    ctk_error_t err;          /* the first such error */
} vctx_t;

/* What judging a probe's run needs, wherever it ran. */
typedef struct {
    const ctk_sdk_t *sdk;
    ctk_error_t *err;
    double timeout;           /* the run's limit, for messages */
    bool require_launch;
    const char *where;        /* "on this machine", "on node gpu-a100-1" */
} vjudge_t;

/* One SDK's way through validate, in one worker thread. */
typedef struct {
    vctx_t *c;
    const ctk_sdk_t *sdk;
    vjudge_t jd;
    ctk_vsdk_t *res;
    char *dir;                /* private build dir of this SDK */
    char *full_name;          /* "cudatoolkit/13.0" */
    ctk_env_t menv[2];        /* lmod, tcl: base + the module's changes */
    bool have_env[2];
    bool same_env;            /* lmod and tcl environments agree for every user-visible variable */
    ctk_pc_result_t pc;
    bool have_pc;
    char *probe_o;            /* path of probe.o when the pc compile worked */
    char *pc_exe;             /* path of probe_pc when the pc link took every
                               * library from where it should (no CTK-LINK) */
    char *pc_trace;           /* that link's -Wl,--trace output */
    char *lmod_cuda;          /* the CUDA program lmod's check ran (its own or
                               * probe_pc), for a Tcl module with the same environment */
    char *nvcc_release;       /* of sdk->nvcc */
    char *text[CTK_ART__COUNT]; /* each artifact's bytes as ctk_vload_check_tree() read them; NULL: none */
    size_t text_len[CTK_ART__COUNT];
    bool refused[CTK_ART__COUNT]; /* ctk_vload_check_tree() refused it (CTK-MOD-006): not evaluated */
    /* the module the SDK's module requires (host_compiler.module), loaded
     * first as its users must; pre[0] NULL: none */
    const char *pre[2];
    ctk_env_t pre_env[2];     /* lmod, tcl: base + what loading it changed */
    bool have_pre[2];
    char *pre_why[2];         /* it could not be loaded that way: why (CTK-SKIP-006) */
    ctk_strlist_t pre_kv;     /* the sandbox's state after it (Lmod's bookkeeping included) */
    ctk_error_t *err;
} vjob_t;

/* data, len bytes, as the file dir/name, created or emptied first. */
bool ctk_vjob_write_text(const char *dir, const char *name, const char *data, size_t len,
                         ctk_error_t *err);

/* The first line of compiler output that says what went wrong, copied
 * into buf (trimmed); "" when none. */
const char *ctk_vjob_first_error_line(const char *text, char *buf, size_t bufsz);

/* Line of a module's operation on `name` (Lua: from modeval; others: text
 * search in the bytes ctk_vload_check_tree() read; 0 without them). */
int ctk_vjob_var_line(const vjob_t *j, const ctk_vart_t *a, const char *name);

/* Is the library file `lib` one that the directory `dir` provides?  Either
 * it resolves into dir, or dir holds an entry of the same name that is the
 * same file: a toolkit assembled from symlinks or hard links into another
 * tree (a view, a fixture on another filesystem) loads its libraries by
 * paths that resolve elsewhere. */
bool ctk_vjob_lib_in_dir(const char *lib, const char *dir);

/* stdout of a tool run in the base environment, when it exits 0; caller
 * frees.  For version queries (nvcc --version, cc -dumpversion). */
char *ctk_vjob_tool_output(const vctx_t *c, const char *const *argv, const char *cwd);

/* Run argv in env, in the job's dir.  false only for internal errors. */
bool ctk_vjob_run_step(vjob_t *j, const char *const *argv, ctk_env_t *env, ctk_proc_result_t *r);

/* The environment the .pc steps run in: the base, no CPATH/LIBRARY_PATH/
 * LD_LIBRARY_PATH (the base has none).  The host compiler comes from the
 * .pc's ccbin variable, on nvcc's command line, as a .pc user passes it;
 * without one, from the module the site names (host_compiler.module),
 * which its users load: the base after loading it. */
bool ctk_vjob_pc_env(vjob_t *j, ctk_env_t *env);

/* The file a --trace line names: "/x/libfoo.so", "(/x/libfoo.a)member.o"
 * or "-lfoo (/x/libfoo.so)"; copied into buf, "" when none. */
void ctk_vjob_trace_file(const char *line, size_t len, char *buf, size_t size);

#endif
