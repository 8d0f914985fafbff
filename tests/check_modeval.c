/* check_modeval.c - Lua modulefiles evaluated as Lmod loads them.
 * SPDX-License-Identifier: MIT
 *
 * Where the real Lmod is installed, every case that loads is also loaded by
 * it (`lmod bash load`), and the whole environment it would export must
 * equal ours, Lmod's own bookkeeping variables aside.  Without Lmod those
 * comparisons are skipped and say so on stderr; the fixed expectations
 * still run.
 */
#include <ctkconf.h>

#include "modeval.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LMOD "/usr/share/lmod/lmod/libexec/lmod"

static ctk_modeval_t *eval(const char *src, const char *full, const char *const *env,
                           ctk_error_t *err)
{
    ctk_strlist_t l;
    ctk_modeval_t *ev;

    ctk_error_init(err);
    ctk_strlist_init(&l);
    for (; env && *env; env++)
        ck_assert(ctk_strlist_push(&l, *env, NULL));
    ev = ctk_modeval_lua("m.lua", src, strlen(src), full, env ? &l : NULL, err);
    ctk_strlist_fini(&l);
    return ev;
}

static const char *get(const ctk_modeval_t *ev, const char *name)
{
    const char *v = NULL;

    ck_assert_msg(ctk_modeval_get(ev, name, &v), "%s not touched", name);
    return v;
}

/* ---- the real Lmod ------------------------------------------------------------ */
static bool have_lmod(void)
{
    static int warned;

    if (access(LMOD, X_OK) == 0)
        return true;
    if (!warned++)
        fprintf(stderr, "SKIP: %s not installed; comparisons with the real Lmod skipped\n", LMOD);
    return false;
}

/* Lmod's internal state, not the module's doing. */
static bool lmod_internal(const char *name)
{
    return strncmp(name, "__LMOD_", 7) == 0 || strncmp(name, "_ModuleTable", 12) == 0 ||
           strcmp(name, "_LMFILES_") == 0 || strcmp(name, "LOADEDMODULES") == 0 ||
           strcmp(name, "MODULEPATH") == 0;
}

/* Load full (after empty modules standing in for its dependencies) with the
 * real Lmod in an environment of exactly env; parse the `NAME=value;` and
 * `unset NAME;` lines it prints into "NAME=value" / "NAME" entries. */
static void lmod_load(const char *src, const char *full, const char *const *env,
                      const ctk_modeval_t *ev, ctk_strlist_t *out)
{
    char *dir = tu_mkdtemp(), *rel = NULL, *path, *text, *line, *save = NULL, *envs = NULL;
    char *deps = NULL, *tmp;
    size_t i, envlen = 0, depslen = 0;
    FILE *f;

    ck_assert_ptr_nonnull(dir);
    ck_assert(asprintf(&rel, "mf/%s.lua", full) > 0);
    free(tu_write(dir, rel, src));
    free(rel);
    f = open_memstream(&deps, &depslen);
    for (i = 0; i < ev->prereqs.len + ev->loads.len; i++) {
        const char *d = i < ev->prereqs.len ? ev->prereqs.items[i]
                                            : ev->loads.items[i - ev->prereqs.len];

        ck_assert(asprintf(&rel, "mf/%s.lua", d) > 0);
        free(tu_write(dir, rel, "-- stand-in\n"));
        free(rel);
        if (i < ev->prereqs.len)
            fprintf(f, "%s ", d); /* a prereq must be loaded first */
    }
    fclose(f);
    f = open_memstream(&envs, &envlen);
    for (; env && *env; env++)
        fprintf(f, "'%s' ", *env);
    fclose(f);
    ck_assert_int_eq(tu_sh("cd '%s' && env -i %s MODULEPATH='%s/mf' %s bash load %s%s "
                           ">out 2>err",
                           dir, envs, dir, LMOD, deps, full),
                     0);
    ck_assert(asprintf(&path, "%s/out", dir) > 0);
    text = tu_read(path);
    ck_assert_ptr_nonnull(text);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        char *eq, *r, *w;

        if (n && line[n - 1] == ';')
            line[--n] = '\0';
        if (strncmp(line, "export ", 7) == 0)
            continue;
        if (strncmp(line, "unset ", 6) == 0) {
            if (!lmod_internal(line + 6))
                ck_assert(ctk_strlist_push(out, line + 6, NULL));
            continue;
        }
        eq = strchr(line, '=');
        ck_assert_msg(eq != NULL, "unexpected Lmod output: %s", line);
        *eq = '\0';
        if (lmod_internal(line))
            continue;
        *eq = '=';
        for (r = w = eq + 1; *r; r++) { /* undo bash quoting: \x -> x */
            if (*r == '\\' && r[1])
                r++;
            *w++ = *r;
        }
        *w = '\0';
        ck_assert(ctk_strlist_push(out, line, NULL));
    }
    free(text);
    free(path);
    free(envs);
    free(deps);
    tmp = dir;
    tu_rmtree(tmp);
    free(dir);
}

/* Our result must be exactly what Lmod exports: same variables, same values. */
static void assert_same_as_lmod(const char *src, const char *full, const char *const *env,
                                const ctk_modeval_t *ev)
{
    ctk_strlist_t lm;
    size_t i, j;

    if (!have_lmod())
        return;
    ctk_strlist_init(&lm);
    lmod_load(src, full, env, ev, &lm);
    ck_assert_msg(lm.len > 0, "%s: Lmod exported nothing", full);
    for (i = 0; i < lm.len; i++) {
        const char *e = lm.items[i], *eq = strchr(e, '='), *ours = NULL;
        char *name = eq ? strndup(e, (size_t)(eq - e)) : strdup(e);

        ck_assert_msg(ctk_modeval_get(ev, name, &ours), "%s: Lmod sets %s, we do not touch it",
                      full, e);
        if (eq)
            ck_assert_msg(ours && strcmp(ours, eq + 1) == 0, "%s: %s: Lmod '%s', ours '%s'", full,
                          name, eq + 1, ours ? ours : "(unset)");
        else
            ck_assert_msg(ours == NULL, "%s: Lmod unsets %s, ours '%s'", full, name, ours);
        free(name);
    }
    for (j = 0; j < ev->n_vars; j++) {
        size_t n = strlen(ev->vars[j].name);
        bool found = false;

        for (i = 0; i < lm.len; i++)
            if (strncmp(lm.items[i], ev->vars[j].name, n) == 0 &&
                (lm.items[i][n] == '=' || lm.items[i][n] == '\0'))
                found = true;
        ck_assert_msg(found, "%s: we report %s, Lmod does not export it", full, ev->vars[j].name);
    }
    ctk_strlist_fini(&lm);
}

/* ---- generated modulefiles ------------------------------------------------------- */
static const struct {
    const char *file, *full, *root, *first_cpath;
} generated[] = {
    { "tests/data/render/standalone/expected/lmod/cudatoolkit/12.4.lua", "cudatoolkit/12.4",
      "/usr/local/cuda-12.4", "/usr/local/cuda-12.4/include" },
    { "tests/data/render/hpcsdk/expected/lmod/cuda/11.6-nvhpc22.3.lua", "cuda/11.6-nvhpc22.3",
      "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6",
      "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/targets/x86_64-linux/include" },
};

START_TEST(test_modeval_generated_module_matches_lmod)
{
    const char *env[] = { "HOME=/home/u", "PATH=/usr/bin:/bin", NULL };
    char *path = tu_srcpath(generated[_i].file), *src = tu_read(path), *bin = NULL;
    ctk_modeval_t *ev;
    ctk_error_t err;

    ck_assert_msg(src != NULL, "cannot read %s", path);
    ev = eval(src, generated[_i].full, env, &err);
    ck_assert_msg(ev != NULL, "%s:%d: %s", err.source, err.line, err.text);
    ck_assert(asprintf(&bin, "%s/bin:/usr/bin:/bin", generated[_i].root) > 0);
    ck_assert_str_eq(get(ev, "PATH"), bin);
    ck_assert_str_eq(get(ev, "CUDA_HOME"), generated[_i].root);
    ck_assert(ctk_str_has_prefix(get(ev, "CPATH"), generated[_i].first_cpath));
    ck_assert_str_eq(get(ev, "PKG_CONFIG_PATH"), "/apps/modules/cuda/pkgconfig");
    ck_assert_ptr_nonnull(get(ev, "LD_LIBRARY_PATH"));
    ck_assert_ptr_nonnull(get(ev, "LIBRARY_PATH"));
    ck_assert_str_eq(ev->family, "cuda");
    ck_assert_uint_eq(ev->whatis.len, 3);
    ck_assert_ptr_nonnull(ev->help);
    ck_assert_ptr_nonnull(strstr(ev->help, "pkg-config --cflags --libs ctk-"));
    /* PATH, CPATH, LD_LIBRARY_PATH, LIBRARY_PATH, PKG_CONFIG_PATH, CUDA_HOME
     * and everything else: what Lmod says */
    assert_same_as_lmod(src, generated[_i].full, env, ev);
    free(bin);
    free(src);
    free(path);
    ctk_modeval_free(ev);
}
END_TEST

/* ---- a hand-written vendor-style module ----------------------------------------- */
static const char vendor[] =
    "-- vendor module, written by hand\n"                                   /* 1 */
    "local root = \"/opt/nvidia/hpc_sdk/Linux_x86_64/24.7\"\n"               /* 2 */
    "cuda = pathJoin(root, \"cuda/\", myModuleVersion())   -- a global\n"    /* 3 */
    "whatis(\"Name: \" .. myModuleName())\n"                                /* 4 */
    "depends_on(\"gcc/12\")\n"                                              /* 5 */
    "conflict(\"cudatoolkit\", \"cuda\")\n"                                 /* 6 */
    "prepend_path{\"PATH\", pathJoin(cuda, \"bin\"), priority=100}\n"       /* 7 */
    "prepend_path(\"PATH\", root .. \"/compilers/bin\")\n"                  /* 8 */
    "prepend_path{\"CPATH\", root .. \"/math_libs/include\", delim=\":\"}\n" /* 9 */
    "append_path(\"LD_LIBRARY_PATH\", cuda .. \"//lib64/\")\n"              /* 10 */
    "pushenv(\"CC\", \"nvc\")\n"                                            /* 11 */
    "setenv(\"LDFLAGS\", \"-L\" .. cuda .. \"/lib64\")\n"                   /* 12 */
    "if os.getenv(\"CTK_SECRET\") == nil and not isloaded(\"x\") and mode() == \"load\" then\n"
    "  LmodMessage(\"loaded \", myModuleFullName())\n"                      /* 14 */
    "end\n";

START_TEST(test_modeval_vendor_module_ops_and_lines)
{
    const char *env[] = { "HOME=/home/u", "PATH=/usr/bin:/bin", "CC=gcc", NULL };
    static const struct {
        ctk_modop_kind_t kind;
        const char *name, *value, *delim;
        long prio;
        int line;
    } want[] = {
        { CTK_MODOP_WHATIS, NULL, "Name: nvhpc-cuda", NULL, 0, 4 },
        { CTK_MODOP_DEPENDS_ON, "gcc/12", NULL, NULL, 0, 5 },
        { CTK_MODOP_CONFLICT, "cudatoolkit", NULL, NULL, 0, 6 },
        { CTK_MODOP_CONFLICT, "cuda", NULL, NULL, 0, 6 },
        { CTK_MODOP_PREPEND_PATH, "PATH", "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/cuda/12.5/bin", ":", 100, 7 },
        { CTK_MODOP_PREPEND_PATH, "PATH", "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/compilers/bin", ":", 0, 8 },
        { CTK_MODOP_PREPEND_PATH, "CPATH", "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/math_libs/include", ":", 0, 9 },
        { CTK_MODOP_APPEND_PATH, "LD_LIBRARY_PATH", "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/cuda/12.5//lib64/", ":", 0, 10 },
        { CTK_MODOP_PUSHENV, "CC", "nvc", NULL, 0, 11 },
        { CTK_MODOP_SETENV, "LDFLAGS", "-L/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/cuda/12.5/lib64", NULL, 0, 12 },
        { CTK_MODOP_MESSAGE, NULL, "loaded nvhpc-cuda/12.5", NULL, 0, 14 },
    };
    ctk_modeval_t *ev;
    ctk_error_t err;
    size_t i;

    setenv("CTK_SECRET", "the real environment must not leak in", 1);
    ev = eval(vendor, "nvhpc-cuda/12.5", env, &err);
    ck_assert_msg(ev != NULL, "%s:%d: %s", err.source, err.line, err.text);
    ck_assert_uint_eq(ev->n_ops, sizeof want / sizeof want[0]);
    for (i = 0; i < ev->n_ops; i++) {
        const ctk_modop_t *op = &ev->ops[i];

        ck_assert_msg(op->kind == want[i].kind, "op %zu is %s", i, ctk_modop_kind_name(op->kind));
        ck_assert_pstr_eq(op->name, want[i].name);
        ck_assert_pstr_eq(op->value, want[i].value);
        ck_assert_pstr_eq(op->delim, want[i].delim);
        ck_assert_int_eq(op->priority, want[i].prio);
        ck_assert_int_eq(op->line, want[i].line);
    }
    /* priority 100 keeps cuda/bin ahead of the later prepend */
    ck_assert_str_eq(get(ev, "PATH"), "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/cuda/12.5/bin:"
                                      "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/compilers/bin:"
                                      "/usr/bin:/bin");
    ck_assert_str_eq(get(ev, "LD_LIBRARY_PATH"), "/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/cuda/12.5/lib64");
    ck_assert_str_eq(get(ev, "CC"), "nvc");
    ck_assert_str_eq(get(ev, "LDFLAGS"), "-L/opt/nvidia/hpc_sdk/Linux_x86_64/24.7/cuda/12.5/lib64");
    ck_assert_uint_eq(ev->vars[0].name[0], 'P'); /* first touched: PATH */
    ck_assert_uint_eq(ev->n_vars, 5);
    ck_assert_uint_eq(ev->loads.len, 1);
    ck_assert_str_eq(ev->loads.items[0], "gcc/12");
    ck_assert_uint_eq(ev->conflicts.len, 2);
    ck_assert_ptr_null(ev->family);
    ck_assert_str_eq(ev->messages.items[0], "loaded nvhpc-cuda/12.5");
    assert_same_as_lmod(vendor, "nvhpc-cuda/12.5", env, ev);
    unsetenv("CTK_SECRET");
    ctk_modeval_free(ev);
}
END_TEST

/* ---- Lmod's path rules ---------------------------------------------------------- */
static const char quirks[] =
    "prepend_path(\"PATH\", \"/usr/bin\")\n"     /* already there: stays first, count 2 */
    "append_path(\"PATH\", \"/a\")\n"
    "append_path(\"PATH\", \"/bin\")\n"          /* moves to the end, count 2 */
    "remove_path(\"PATH\", \"/bin\")\n"          /* count 1: stays */
    "prepend_path(\"XP\", \"/x//y/\")\n"         /* regularised: /x/y */
    "prepend_path(\"XP\", \"/p:/q\")\n"          /* both, in order */
    "prepend_path(\"XP\", \"\")\n"               /* an empty entry */
    "append_path(\"XP\", \"/p\")\n"              /* moves to the end */
    "prepend_path{\"PP\", \"/lo\", priority=0}\n"
    "prepend_path{\"PP\", \"/hi\", priority=100}\n"
    "prepend_path{\"PP\", \"/mid\", priority=10}\n"
    "prepend_path{\"PP\", \"/lo2\"}\n"
    "append_path{\"AP\", \"/hi\", priority=100}\n"
    "append_path{\"AP\", \"/lo\"}\n"
    "prepend_path(\"LDF\", \"-L/x\", \" \")\n"
    "prepend_path(\"LDF\", \"-L/y\", \" \")\n"
    "pushenv(\"PE\", \"v1\")\n"
    "setenv(\"EMPTY\", \"\")\n"
    "setenv(\"SE\", \"a b\")\n"
    "setenv(\"NUM\", 12.0)\n"
    "unsetenv(\"HOME2\")\n"
    "remove_path(\"NOPE\", \"/z\")\n"
    "prepend_path(\"DUP\", \"/d\")\n"
    "prepend_path(\"DUP\", \"/e\")\n"
    "prepend_path(\"DUP\", \"/d\")\n"
    "remove_path{\"RM\", \"/r\", force=true}\n"
    "setenv(\"S2P\", \"/s:/t\")\n"
    "remove_path(\"S2P\", \"/s\")\n"            /* a set variable: left alone */
    "prepend_path(\"S2P\", \"/u\")\n"
    "append_path(\"M4\", \"/a::/b:\")\n"      /* one empty entry, last */
    "family(\"compiler\")\n";

START_TEST(test_modeval_path_rules_match_lmod)
{
    const char *env[] = { "HOME=/home/u", "HOME2=x", "PE=orig", "PATH=/usr/bin:/bin",
                          "RM=/r:/k:/r", NULL };
    ctk_modeval_t *ev;
    ctk_error_t err;

    ev = eval(quirks, "t/1", env, &err);
    ck_assert_msg(ev != NULL, "%s:%d: %s", err.source, err.line, err.text);
    ck_assert_str_eq(get(ev, "PATH"), "/usr/bin:/a:/bin");
    ck_assert_str_eq(get(ev, "XP"), ":/q:/x/y:/p");
    ck_assert_str_eq(get(ev, "PP"), "/hi:/mid:/lo2:/lo");
    ck_assert_str_eq(get(ev, "AP"), "/lo:/hi");
    ck_assert_str_eq(get(ev, "LDF"), "-L/y -L/x");
    ck_assert_str_eq(get(ev, "PE"), "v1");
    ck_assert_str_eq(get(ev, "EMPTY"), "");
    ck_assert_str_eq(get(ev, "NUM"), "12.0");
    ck_assert_ptr_null(get(ev, "HOME2"));
    ck_assert_ptr_null(get(ev, "NOPE"));
    ck_assert_str_eq(get(ev, "DUP"), "/d:/e");
    ck_assert_str_eq(get(ev, "RM"), "/k");
    ck_assert_str_eq(get(ev, "S2P"), "/u:/s:/t");
    ck_assert_str_eq(get(ev, "M4"), "/a:/b::");
    ck_assert_str_eq(get(ev, "LMOD_FAMILY_COMPILER"), "t");
    ck_assert_str_eq(get(ev, "LMOD_FAMILY_COMPILER_VERSION"), "1");
    ck_assert(!ctk_modeval_get(ev, "HOME", NULL));
    assert_same_as_lmod(quirks, "t/1", env, ev);
    ctk_modeval_free(ev);
}
END_TEST

START_TEST(test_modeval_initial_env_is_appended_to)
{
    const char *env[] = { "PATH=/usr/bin:/bin", "MANPATH=/usr/share/man", NULL };
    const char *src = "append_path(\"PATH\", \"/opt/x/bin\")\n"
                      "prepend_path(\"PATH\", \"/bin\")\n"
                      "setenv(\"SEEN\", os.getenv(\"PATH\"))\n"
                      "append_path(\"MANPATH\", \"\")\n";
    ctk_modeval_t *ev;
    ctk_error_t err;

    ev = eval(src, "x/1", env, &err);
    ck_assert_msg(ev != NULL, "%s:%d: %s", err.source, err.line, err.text);
    ck_assert_str_eq(get(ev, "PATH"), "/bin:/usr/bin:/opt/x/bin");
    ck_assert_str_eq(get(ev, "SEEN"), "/bin:/usr/bin:/opt/x/bin");
    ck_assert_str_eq(get(ev, "MANPATH"), "/usr/share/man::"); /* as Lmod 8.6 writes it */
    ck_assert_uint_eq(ev->n_vars, 3);
    assert_same_as_lmod(src, "x/1", env, ev);
    ctk_modeval_free(ev);
    /* no environment at all */
    ev = eval("append_path(\"PATH\", \"/opt/x/bin\")", "x/1", NULL, &err);
    ck_assert_msg(ev != NULL, "%s", err.text);
    ck_assert_str_eq(get(ev, "PATH"), "/opt/x/bin");
    ctk_modeval_free(ev);
}
END_TEST

/* ---- refusals and hostile modules ------------------------------------------------- */
START_TEST(test_modeval_lmod_error_refuses_load)
{
    const char *src = "setenv(\"A\", \"1\")\n"
                      "if not isloaded(\"gcc\") then\n"
                      "  pcall(LmodError, \"CUDA 12 needs driver >= \", 525)\n"
                      "end\n"
                      "setenv(\"B\", \"2\")\n";
    ctk_error_t err;

    ck_assert_ptr_null(eval(src, "cuda/12", NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_str_eq(err.source, "m.lua");
    ck_assert_int_eq(err.line, 3);
    ck_assert_str_eq(err.text, "LmodError: CUDA 12 needs driver >= 525");
}
END_TEST

static const struct {
    const char *src;
    ctk_errcode_t code;
    int line;         /* -1: not checked */
    const char *text; /* in err.text */
} hostile[] = {
    { "\nio.open('/tmp/ctkgen-pwned', 'w')", CTK_E_TEMPLATE, 2, "'io'" },
    { "require('posix')", CTK_E_TEMPLATE, 1, "'require'" },
    /* load is Lmod's `module load`: recorded, returns nothing */
    { "load('return 1')()", CTK_E_TEMPLATE, 1, "attempt to call a nil value" },
    { "dofile('/etc/passwd')", CTK_E_TEMPLATE, 1, "'dofile'" },
    { "loadfile('/etc/passwd')", CTK_E_TEMPLATE, 1, "'loadfile'" },
    /* line -1: a memory limit may trip in an allocation (no line) or,
     * already poisoned, at the next instruction hook (a line) */
    { "local s = string.rep('x', 1 << 30)", CTK_E_LIMIT, -1, "memory" },
    { "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end", CTK_E_LIMIT, -1, "memory" },
    { "while true do end", CTK_E_LIMIT, 1, "instruction" },
    /* host functions' own work and what they keep are charged too */
    { "for i = 1, 1e6 do append_path('X', '/p' .. i) end", CTK_E_LIMIT, -1, "instruction" },
    { "local s = ('x'):rep(1 << 20)\nfor i = 1, 1e5 do setenv('V' .. i, s) end", CTK_E_LIMIT, -1, "memory" },
    { "local s = ('x'):rep(10) for i = 1, 1e8 do local p = pathJoin(s, s, s) end", CTK_E_LIMIT, -1, "instruction" },
    { "local v = ('x'):rep(60):match('(.-)(.-)(.-)(.-)(.-)(.-)y')", CTK_E_LIMIT, 1, "instruction" },
    /* the fuzzer's find: the empty string repeated 10 << 30 times */
    { "local s = string.rep('', 10 << 30) setenv('A', s) while true do end", CTK_E_LIMIT, 1, "instruction" },
    { "while true do pcall(function() while true do end end) end", CTK_E_LIMIT, 1, "instruction" },
    /* the 16 MiB cap is reached before Lua's own stack limit */
    { "local function f(n) return 1 + f(n + 1) end\nf(1)", CTK_E_LIMIT, -1, "memory" },
    { "setmetatable({}, {__gc = function() end})", CTK_E_TEMPLATE, 1, "'setmetatable'" },
    { "prepend_path('PATH')", CTK_E_TEMPLATE, 1, "prepend_path: argument 2 is a nil" },
    { "prepend_path{'PATH', '/x', priority=5}", CTK_E_TEMPLATE, 1, "priority" },
    { "prepend_path{'PATH', 7}", CTK_E_TEMPLATE, 1, "element 2 is a number" },
    { "setenv('A')", CTK_E_TEMPLATE, 1, "missing value" },
    { "setenv('A', {})", CTK_E_TEMPLATE, 1, "table" },
    { "setenv('A', 'a\\0b')", CTK_E_TEMPLATE, 1, "NUL" },
    { "family('a-b')", CTK_E_TEMPLATE, 1, "family" },
    { "local ok = pcall(setenv)\nsetenv('B', '1')", CTK_E_TEMPLATE, 1, "setenv: argument 1" },
    { "setenv('A', '1'", CTK_E_TEMPLATE, 1, "expected" },
};

START_TEST(test_modeval_hostile_module_is_contained)
{
    ctk_error_t err;

    ck_assert_msg(eval(hostile[_i].src, "evil/1", NULL, &err) == NULL, "ran: %s", hostile[_i].src);
    ck_assert_msg(err.code == hostile[_i].code, "%s: code %d: %s", hostile[_i].src, err.code,
                  err.text);
    ck_assert_str_eq(err.source, "m.lua");
    ck_assert_msg(hostile[_i].line < 0 || err.line == hostile[_i].line, "%s: line %d: %s", hostile[_i].src, err.line,
                  err.text);
    ck_assert_msg(strstr(err.text, hostile[_i].text) != NULL, "%s: %s", hostile[_i].src, err.text);
    ck_assert_int_ne(access("/tmp/ctkgen-pwned", F_OK), 0);
}
END_TEST

/* Calls that run programs are not run: the file goes on, the call is
 * recorded, and nothing happened on this machine. */
static const struct {
    const char *src;
    const char *not_run;  /* the record */
    const char *var;      /* set after the call, so the file went on */
} not_run[] = {
    { "setenv('A', '1')\nos.execute('touch /tmp/ctkgen-pwned')\nsetenv('B', '2')",
      "os.execute(\"touch /tmp/ctkgen-pwned\")", "B" },
    { "local s = capture('touch /tmp/ctkgen-pwned')\nsetenv('B', s .. 'x')",
      "capture(\"touch /tmp/ctkgen-pwned\")", "B" },
    { "local s = subprocess('touch /tmp/ctkgen-pwned')\nsetenv('B', s .. 'x')",
      "subprocess(\"touch /tmp/ctkgen-pwned\")", "B" },
    { "execute{cmd='touch /tmp/ctkgen-pwned', modeA={'all'}}\nsetenv('B', 'x')",
      "execute{cmd=\"touch /tmp/ctkgen-pwned\"}", "B" },
    { "\n\nsource_sh('bash', '/etc/profile')\nsetenv('B', 'x')", "source_sh(\"bash\", \"/etc/profile\")", "B" },
};

START_TEST(test_modeval_program_calls_are_recorded_not_run)
{
    ctk_modeval_t *ev;
    ctk_error_t err;
    const char *v;
    size_t i;
    bool op = false;

    ev = eval(not_run[_i].src, "tool/1", NULL, &err);
    ck_assert_msg(ev != NULL, "%s: %s", not_run[_i].src, err.text);
    ck_assert_int_eq(ev->not_run.len, 1);
    ck_assert_str_eq(ev->not_run.items[0], not_run[_i].not_run);
    ck_assert(ctk_modeval_get(ev, not_run[_i].var, &v) && v != NULL);
    for (i = 0; i < ev->n_ops; i++)
        op = op || ev->ops[i].kind == CTK_MODOP_NOT_RUN;
    ck_assert(op);
    ck_assert_int_ne(access("/tmp/ctkgen-pwned", F_OK), 0);
    ctk_modeval_free(ev);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("modeval");
    TCase *tc = tcase_create("modeval");

    unlink("/tmp/ctkgen-pwned");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_modeval_program_calls_are_recorded_not_run, 0,
                        (int)(sizeof not_run / sizeof not_run[0]));
    tcase_add_loop_test(tc, test_modeval_generated_module_matches_lmod, 0,
                        sizeof generated / sizeof generated[0]);
    tcase_add_test(tc, test_modeval_vendor_module_ops_and_lines);
    tcase_add_test(tc, test_modeval_path_rules_match_lmod);
    tcase_add_test(tc, test_modeval_initial_env_is_appended_to);
    tcase_add_test(tc, test_modeval_lmod_error_refuses_load);
    tcase_add_loop_test(tc, test_modeval_hostile_module_is_contained, 0,
                        sizeof hostile / sizeof hostile[0]);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
