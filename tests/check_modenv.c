/* check_modenv.c - `module load` through real Environment Modules and Lmod.
 * SPDX-License-Identifier: MIT
 *
 * Needs $CTK_TEST_MODULECMD (Environment Modules' modulecmd.tcl), Lmod at
 * its Debian place, $CTKGEN and $CTK_TEST_CUDA for the generated tree;
 * each test that lacks one prints "SKIP:" and returns.
 */
#include <ctkconf.h>

#include "modenv.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LMOD_CMD "/usr/share/lmod/lmod/libexec/lmod"
#define TIMEOUT 60.0

static const char *modulecmd(void)
{
    const char *c = getenv("CTK_TEST_MODULECMD");

    return (c && *c && access(c, R_OK) == 0) ? c : NULL;
}

#define NEED(cond, what)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            printf("SKIP: %s: %s\n", __func__, what);                     \
            return;                                                       \
        }                                                                 \
    } while (0)

#define NEED_TCL() NEED(modulecmd(), "no Environment Modules ($CTK_TEST_MODULECMD)")
#define NEED_LMOD() NEED(access(LMOD_CMD, X_OK) == 0, "no Lmod at " LMOD_CMD)

static const char *const caller_env[] = { "PATH=/usr/bin:/bin", NULL };

static void find_tcl(ctk_modsys_info_t *m)
{
    char *why = NULL;
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_modsys_find_tcl(modulecmd(), caller_env, m, &why, &err), "%s",
                  why ? why : err.text);
    ck_assert_ptr_null(why);
}

static void find_lmod(ctk_modsys_info_t *m)
{
    char *why = NULL;
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_modsys_find_lmod(LMOD_CMD, caller_env, m, &why, &err), "%s",
                  why ? why : err.text);
}

/* A clean base like validate's, plus one variable the module leaves alone. */
static void make_base(ctk_env_t *base, const char *home)
{
    ctk_env_init(base);
    ck_assert(ctk_env_set(base, "PATH", "/usr/bin:/bin", NULL));
    ck_assert(ctk_env_set(base, "HOME", home, NULL));
    ck_assert(ctk_env_set(base, "LANG", "C.UTF-8", NULL));
    ck_assert(ctk_env_set(base, "CTK_KEEP", "kept value", NULL));
}

static bool version_like(const char *v)
{
    return v && v[0] >= '0' && v[0] <= '9' && strchr(v, '.');
}

/* The toolkit's "major.minor" from CUDART_VERSION, for the site config. */
static char *cuda_version(const char *root)
{
    char *path = NULL, *text, *p, *v = NULL;
    long n;

    if (asprintf(&path, "%s/include/cuda_runtime_api.h", root) < 0)
        return NULL;
    text = tu_read(path);
    free(path);
    if (!text)
        return NULL;
    if ((p = strstr(text, "#define CUDART_VERSION")) != NULL) {
        n = strtol(p + 22, NULL, 10);
        if (n > 0 && asprintf(&v, "%ld.%ld", n / 1000, n % 1000 / 10) < 0)
            v = NULL;
    }
    free(text);
    return v;
}

typedef struct {
    char *dir;      /* temp dir holding site.json, out/ and home/ */
    char *out;      /* the generated tree */
    char *home;
    char *module;   /* "cudatoolkit/13.0" */
    const char *cuda;
} tree_t;

/* Generate a tree for the real toolkit with the real ctkgen; false: skip. */
static bool generate(tree_t *t, const char *test)
{
    const char *ctkgen = getenv("CTKGEN");
    char *version, *json = NULL, *cfg;

    memset(t, 0, sizeof t[0]);
    t->cuda = tu_cuda_root();
    if (!ctkgen || access(ctkgen, X_OK) != 0 || !t->cuda) {
        printf("SKIP: %s: no generated tree (needs $CTKGEN and $CTK_TEST_CUDA)\n", test);
        return false;
    }
    version = cuda_version(t->cuda);
    ck_assert_msg(version != NULL, "no CUDART_VERSION under %s", t->cuda);
    t->dir = tu_mkdtemp();
    t->home = tu_mkdirs(t->dir, "home");
    ck_assert(asprintf(&t->out, "%s/out", t->dir) > 0);
    ck_assert(asprintf(&t->module, "cudatoolkit/%s", version) > 0);
    ck_assert(asprintf(&json, "{\"sdks\":[{\"version\":\"%s\",\"base\":\"%s\"}]}\n", version,
                       t->cuda) > 0);
    cfg = tu_write(t->dir, "site.json", json);
    ck_assert_int_eq(tu_sh("'%s' -q generate -c '%s' -o '%s'", ctkgen, cfg, t->out), 0);
    free(cfg);
    free(json);
    free(version);
    return true;
}

static void tree_free(tree_t *t)
{
    tu_rmtree(t->dir);
    free(t->dir);
    free(t->out);
    free(t->home);
    free(t->module);
}

static char *join(const char *a, const char *b)
{
    char *p = NULL;

    ck_assert(asprintf(&p, "%s%s", a, b) > 0);
    return p;
}

/* What the toolkit module must have produced, whichever module system ran it. */
static void assert_cuda_env(const ctk_env_t *e, const tree_t *t)
{
    static const char *const gone[] = { "LOADEDMODULES", "_LMFILES_", "MODULEPATH",
                                        "__MODULES_LMALTNAME", "__MODULES_LMCONFLICT",
                                        "MODULES_FAMILY_CUDA", "_ModuleTable001_",
                                        "_ModuleTable_Sz_", "__LMOD_REF_COUNT_PATH",
                                        "__LMOD_REF_COUNT_CPATH", "PWD", NULL };
    char *bin = join(t->cuda, "/bin"), *path = join(bin, ":/usr/bin:/bin"), *hdr, *lib, *inc, *cccl;
    const char *cpath = ctk_env_get(e, "CPATH"), *ld = ctk_env_get(e, "LD_LIBRARY_PATH");
    size_t i;

    ck_assert_str_eq(ctk_env_get(e, "PATH"), path);
    ck_assert_str_eq(ctk_env_get(e, "CUDA_HOME"), t->cuda);
    ck_assert_str_eq(ctk_env_get(e, "LMOD_FAMILY_CUDA"), "cudatoolkit");
    ck_assert_str_eq(ctk_env_get(e, "CTK_KEEP"), "kept value");
    ck_assert_str_eq(ctk_env_get(e, "HOME"), t->home);
    /* one directory each, inside the toolkit, holding what they are for;
       CPATH also has the include dir's cccl/ where the toolkit has one */
    ck_assert_ptr_nonnull(cpath);
    ck_assert_ptr_nonnull(ld);
    inc = strndup(cpath, strcspn(cpath, ":"));
    cccl = join(inc, "/cccl");
    ck_assert_msg(ctk_str_has_prefix(inc, t->cuda), "CPATH=%s", cpath);
    ck_assert_msg(strcmp(cpath, inc) == 0 || (cpath[strlen(inc)] == ':' &&
                                              strcmp(cpath + strlen(inc) + 1, cccl) == 0),
                  "CPATH=%s", cpath);
    ck_assert_msg(!strchr(ld, ':') && ctk_str_has_prefix(ld, t->cuda), "LD_LIBRARY_PATH=%s", ld);
    hdr = join(inc, "/cuda_runtime.h");
    lib = join(ld, "/libcudart.so");
    ck_assert_msg(access(hdr, R_OK) == 0, "%s", hdr);
    ck_assert_msg(access(lib, R_OK) == 0, "%s", lib);
    for (i = 0; gone[i]; i++)
        ck_assert_msg(ctk_env_get(e, gone[i]) == NULL, "%s=%s left in", gone[i],
                      ctk_env_get(e, gone[i]));
    for (i = 0; i < e->kv.len; i++)
        ck_assert_msg(!ctk_str_has_prefix(e->kv.items[i], "__LMOD_") &&
                          !ctk_str_has_prefix(e->kv.items[i], "__MODULES_") &&
                          !ctk_str_has_prefix(e->kv.items[i], "_ModuleTable"),
                      "bookkeeping left in: %s", e->kv.items[i]);
    free(hdr);
    free(lib);
    free(inc);
    free(cccl);
    free(bin);
    free(path);
}

static void load_ok(const ctk_modsys_info_t *m, const char *mp, const char *name,
                    const ctk_env_t *base, ctk_env_t *out)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_modenv_load(m, mp, name, base, TIMEOUT, out, &err), "%s: %s: %s",
                  ctk_error_code_name(err.code), err.source, err.text);
    ck_assert(!ctk_error_is_set(&err));
}

/* ---- finding the module systems ------------------------------------------- */

START_TEST(test_modenv_bookkeeping_names)
{
    static const struct {
        const char *name;
        bool drop;
    } cases[] = {
        { "LOADEDMODULES", true },          { "_LMFILES_", true },
        { "MODULEPATH", true },             { "__MODULES_LMALTNAME", true },
        { "__MODULES_SHARE_PATH", true },   { "MODULES_LMCONFLICT", true },
        { "MODULES_FAMILY_CUDA", true },    { "PATH_modshare", true },
        { "__LMOD_REF_COUNT_PATH", true },  { "_ModuleTable001_", true },
        { "_ModuleTable_Sz_", true },       { "LMOD_CMD", true },
        { "PWD", true },                    { "SHLVL", true },
        { "LMOD_FAMILY_CUDA", false },      { "LMOD_FAMILY_CUDA_VERSION", false },
        { "PATH", false },                  { "CUDA_HOME", false },
        { "MODULES_X", false },             { "_modshare", false },
        { "MODULEPATH_ROOT", false },       { "LOADEDMODULESX", false },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(ctk_modenv_is_bookkeeping(cases[i].name) == cases[i].drop, "%s",
                      cases[i].name);
}
END_TEST

START_TEST(test_modenv_find_tcl_explicit_path)
{
    ctk_modsys_info_t m;

    NEED_TCL();
    find_tcl(&m);
    ck_assert_int_eq(m.kind, CTK_MODSYS_TCL);
    ck_assert_str_eq(m.cmd, modulecmd());
    ck_assert_ptr_nonnull(m.interp);
    ck_assert_msg(strstr(m.interp, "tclsh") != NULL, "%s", m.interp);
    ck_assert_msg(version_like(m.version), "version %s", m.version ? m.version : "(null)");
    ctk_modsys_info_fini(&m);
    ctk_modsys_info_fini(NULL);
}
END_TEST

START_TEST(test_modenv_find_tcl_from_modules_cmd)
{
    ctk_modsys_info_t m;
    char *var = NULL, *why = NULL;
    const char *env[] = { "PATH=/usr/bin:/bin", NULL, NULL };

    NEED_TCL();
    ck_assert(asprintf(&var, "MODULES_CMD=%s", modulecmd()) > 0);
    env[1] = var;
    ck_assert(ctk_modsys_find_tcl(NULL, env, &m, &why, NULL));
    ck_assert_str_eq(m.cmd, modulecmd());
    ck_assert_ptr_nonnull(m.interp);
    ctk_modsys_info_fini(&m);
    free(var);
}
END_TEST

START_TEST(test_modenv_find_tcl_says_what_is_missing)
{
    const char *env_bad[] = { "PATH=/usr/bin:/bin", "MODULES_CMD=/nonexistent-ctk/modulecmd.tcl", NULL };
    ctk_modsys_info_t m;
    ctk_error_t err;
    char *why = NULL;

    ctk_error_init(&err);
    ck_assert(!ctk_modsys_find_tcl("/nonexistent-ctk/given.tcl", caller_env, &m, &why, &err));
    ck_assert(!ctk_error_is_set(&err));
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "/nonexistent-ctk/given.tcl") && strstr(why, "given"), "%s", why);
    ck_assert_ptr_null(m.cmd);
    free(why);

    ck_assert(!ctk_modsys_find_tcl(NULL, env_bad, &m, &why, &err));
    ck_assert_msg(strstr(why, "/nonexistent-ctk/modulecmd.tcl") && strstr(why, "$MODULES_CMD"),
                  "%s", why);
    free(why);

    /* nothing given: the standard places are named (unless one exists here) */
    why = NULL;
    if (ctk_modsys_find_tcl(NULL, caller_env, &m, &why, &err)) {
        printf("SKIP: %s: Environment Modules is installed at %s\n", __func__, m.cmd);
        ctk_modsys_info_fini(&m);
    } else {
        ck_assert_ptr_nonnull(why);
        ck_assert_msg(strstr(why, "/usr/share/modules/libexec/modulecmd.tcl") &&
                          strstr(why, "/usr/share/Modules/libexec/modulecmd.tcl") &&
                          strstr(why, "MODULES_CMD"),
                      "%s", why);
        free(why);
    }
    ck_assert(!ctk_error_is_set(&err));
}
END_TEST

START_TEST(test_modenv_find_tcl_needs_a_tclsh)
{
    char *dir = tu_mkdtemp(), *cmd = tu_write(dir, "modulecmd.tcl", "#!/nonexistent-ctk/tclsh\n");
    const char *env[] = { "PATH=/nonexistent-ctk", NULL };
    ctk_modsys_info_t m;
    char *why = NULL;

    ck_assert(!ctk_modsys_find_tcl(cmd, env, &m, &why, NULL));
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "tclsh") && strstr(why, "/nonexistent-ctk"), "%s", why);
    free(why);
    free(cmd);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_modenv_find_lmod_explicit_env_and_missing)
{
    const char *env[] = { "LMOD_CMD=" LMOD_CMD, NULL };
    ctk_modsys_info_t m;
    char *why = NULL;

    NEED_LMOD();
    find_lmod(&m);
    ck_assert_int_eq(m.kind, CTK_MODSYS_LMOD);
    ck_assert_str_eq(m.cmd, LMOD_CMD);
    ck_assert_ptr_null(m.interp);
    ck_assert_msg(version_like(m.version), "version %s", m.version ? m.version : "(null)");
    ctk_modsys_info_fini(&m);

    ck_assert(ctk_modsys_find_lmod(NULL, env, &m, &why, NULL));
    ck_assert_str_eq(m.cmd, LMOD_CMD);
    ctk_modsys_info_fini(&m);
    /* found at its standard place with nothing given */
    ck_assert(ctk_modsys_find_lmod(NULL, NULL, &m, &why, NULL));
    ck_assert_str_eq(m.cmd, LMOD_CMD);
    ctk_modsys_info_fini(&m);

    ck_assert(!ctk_modsys_find_lmod("/nonexistent-ctk/lmod", NULL, &m, &why, NULL));
    ck_assert_msg(strstr(why, "/nonexistent-ctk/lmod") && strstr(why, "Lmod"), "%s", why);
    free(why);
}
END_TEST

/* ---- loading the generated modules ------------------------------------------ */

START_TEST(test_modenv_tcl_loads_generated_module)
{
    ctk_modsys_info_t m;
    ctk_env_t base, out;
    tree_t t;
    char *mp;

    NEED_TCL();
    if (!generate(&t, __func__))
        return;
    find_tcl(&m);
    make_base(&base, t.home);
    ctk_env_init(&out);
    mp = join(t.out, "/tcl");
    load_ok(&m, mp, t.module, &base, &out);
    assert_cuda_env(&out, &t);
    /* Environment Modules does not set the _VERSION that Lmod's family() does */
    ck_assert_ptr_null(ctk_env_get(&out, "LMOD_FAMILY_CUDA_VERSION"));
    free(mp);
    ctk_env_fini(&out);
    ctk_env_fini(&base);
    ctk_modsys_info_fini(&m);
    tree_free(&t);
}
END_TEST

START_TEST(test_modenv_lmod_loads_generated_module_like_tcl)
{
    ctk_modsys_info_t lmod, tcl;
    ctk_env_t base, out, tout;
    ctk_strlist_t diff;
    tree_t t;
    char *mp;

    NEED_LMOD();
    if (!generate(&t, __func__))
        return;
    find_lmod(&lmod);
    make_base(&base, t.home);
    ctk_env_init(&out);
    mp = join(t.out, "/lmod");
    load_ok(&lmod, mp, t.module, &base, &out);
    assert_cuda_env(&out, &t);
    ck_assert_ptr_nonnull(ctk_env_get(&out, "LMOD_FAMILY_CUDA_VERSION"));
    free(mp);

    /* with bookkeeping gone, the two module systems agree but for that one */
    if (modulecmd()) {
        find_tcl(&tcl);
        ctk_env_init(&tout);
        ctk_strlist_init(&diff);
        mp = join(t.out, "/tcl");
        load_ok(&tcl, mp, t.module, &base, &tout);
        ck_assert(ctk_env_diff(&out, &tout, &diff, NULL));
        ck_assert_uint_eq(diff.len, 1);
        ck_assert_str_eq(diff.items[0], "LMOD_FAMILY_CUDA_VERSION");
        free(mp);
        ctk_strlist_fini(&diff);
        ctk_env_fini(&tout);
        ctk_modsys_info_fini(&tcl);
    }
    ctk_env_fini(&out);
    ctk_env_fini(&base);
    ctk_modsys_info_fini(&lmod);
    tree_free(&t);
}
END_TEST

/* ---- loading hand-written modules ------------------------------------------- */

/* Module system k (0: Environment Modules, 1: Lmod) into *m; false with
 * a SKIP note when it is not here. */
static bool use_system(int k, ctk_modsys_info_t *m, const char *test)
{
    if (k == 0 && !modulecmd()) {
        printf("SKIP: %s: no Environment Modules ($CTK_TEST_MODULECMD)\n", test);
        return false;
    }
    if (k == 1 && access(LMOD_CMD, X_OK) != 0) {
        printf("SKIP: %s: no Lmod at %s\n", test, LMOD_CMD);
        return false;
    }
    if (k == 0)
        find_tcl(m);
    else
        find_lmod(m);
    return true;
}

START_TEST(test_modenv_values_survive_quoting_and_size)
{
    char *dir = tu_mkdtemp(), *home = tu_mkdirs(dir, "home"), *tcl, *lua, *mp = NULL;
    const char *tricky = "a 'b' \"c\" $d `e` \\f; g & h* ~";
    ctk_modsys_info_t m;
    ctk_env_t base, out;
    int k, i;

    /* 40 x 5000 bytes: more shell code than one argv string may hold (128 KiB) */
    tcl = tu_write(dir, "tcl/odd/1.0",
                   "#%Module1.0\n"
                   "setenv TRICKY {a 'b' \"c\" $d `e` \\f; g & h* ~}\n"
                   "for {set i 0} {$i < 40} {incr i} { setenv BIG$i [string repeat x 5000] }\n"
                   "unsetenv CTK_KEEP\n");
    lua = tu_write(dir, "lmod/odd/1.0.lua",
                   "setenv(\"TRICKY\", [[a 'b' \"c\" $d `e` \\f; g & h* ~]])\n"
                   "for i = 0, 39 do setenv(\"BIG\" .. i, string.rep(\"x\", 5000)) end\n"
                   "unsetenv(\"CTK_KEEP\")\n");
    for (k = 0; k < 2; k++) {
        if (!use_system(k, &m, __func__))
            continue;
        make_base(&base, home);
        /* module state in base does not reach the module system, and stays */
        ck_assert(ctk_env_set(&base, "LOADEDMODULES", "other/1", NULL));
        ctk_env_init(&out);
        ck_assert(asprintf(&mp, "%s/%s", dir, k == 0 ? "tcl" : "lmod") > 0);
        load_ok(&m, mp, "odd/1.0", &base, &out);
        ck_assert_str_eq(ctk_env_get(&out, "TRICKY"), tricky);
        for (i = 0; i < 40; i++) {
            char name[16];
            const char *v;

            snprintf(name, sizeof name, "BIG%d", i);
            v = ctk_env_get(&out, name);
            ck_assert_msg(v && strlen(v) == 5000 && strspn(v, "x") == 5000, "%s", name);
        }
        ck_assert_ptr_null(ctk_env_get(&out, "CTK_KEEP"));
        ck_assert_str_eq(ctk_env_get(&out, "LOADEDMODULES"), "other/1");
        free(mp);
        ctk_env_fini(&out);
        ctk_env_fini(&base);
        ctk_modsys_info_fini(&m);
    }
    free(tcl);
    free(lua);
    free(home);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_modenv_value_sh_cannot_take_is_an_error)
{
    char *dir = tu_mkdtemp(), *home = tu_mkdirs(dir, "home"), *tcl, *lua, *mp = NULL;
    ctk_modsys_info_t m;
    ctk_env_t base, out;
    ctk_error_t err;
    int k;

    /* neither module system quotes a newline: sh would run "line2" */
    tcl = tu_write(dir, "tcl/nl/1.0", "#%Module1.0\nsetenv MULTI \"line1\\nline2\"\n");
    lua = tu_write(dir, "lmod/nl/1.0.lua", "setenv(\"MULTI\", \"line1\\nline2\")\n");
    for (k = 0; k < 2; k++) {
        if (!use_system(k, &m, __func__))
            continue;
        make_base(&base, home);
        ctk_env_init(&out);
        ctk_error_init(&err);
        ck_assert(asprintf(&mp, "%s/%s", dir, k == 0 ? "tcl" : "lmod") > 0);
        ck_assert(!ctk_modenv_load(&m, mp, "nl/1.0", &base, TIMEOUT, &out, &err));
        ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
        ck_assert_msg(strstr(err.text, "line2: not found") != NULL, "%s", err.text);
        free(mp);
        ctk_env_fini(&out);
        ctk_env_fini(&base);
        ctk_modsys_info_fini(&m);
    }
    free(tcl);
    free(lua);
    free(home);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

static const struct {
    bool lmod;
    const char *file;   /* under the modulepath */
    const char *text;   /* NULL: no such module */
    const char *module;
    const char *want;   /* in err.text */
    int line;           /* 0: not checked */
} broken[] = {
    { false, "bad/1.0", "#%Module1.0\nsetenv FOO bar\nerror \"boom\"\n", "bad/1.0",
      "Module ERROR: boom", 3 },
    { false, "bad/1.0", "#%Module1.0\nsetenv FOO bar\nbreak\n", "bad/1.0",
      "Module evaluation aborted", 0 },
    { false, "bad/1.0", "#%Module1.0\nset x [\n", "bad/1.0", "missing close-bracket", 2 },
    { false, NULL, NULL, "nosuch/1.0", "Unable to locate a modulefile for 'nosuch/1.0'", 0 },
    { true, "bad/1.0.lua", "setenv(\"FOO\", \"bar\")\nLmodError(\"boom\")\n", "bad/1.0", "boom", 0 },
    { true, "bad/1.0.lua", "setenv(\"FOO\", \"bar\")\nthis is not lua\n", "bad/1.0",
      "syntax error near 'is'", 2 },
    { true, NULL, NULL, "nosuch/1.0", "The following module(s) are unknown: \"nosuch/1.0\"", 0 },
};

START_TEST(test_modenv_refused_load_is_a_template_error)
{
    char *dir = tu_mkdtemp(), *home = tu_mkdirs(dir, "home"), *file = NULL;
    ctk_modsys_info_t m;
    ctk_env_t base, out;
    ctk_error_t err;

    if (broken[_i].lmod)
        NEED_LMOD();
    else
        NEED_TCL();
    if (broken[_i].text)
        file = tu_write(dir, broken[_i].file, broken[_i].text);
    if (broken[_i].lmod)
        find_lmod(&m);
    else
        find_tcl(&m);
    make_base(&base, home);
    ctk_env_init(&out);
    ck_assert(ctk_env_set(&out, "UNTOUCHED", "1", NULL));
    ctk_error_init(&err);
    ck_assert(!ctk_modenv_load(&m, dir, broken[_i].module, &base, TIMEOUT, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_msg(strstr(err.text, broken[_i].want) != NULL, "text: %s", err.text);
    ck_assert_msg(strstr(err.text, broken[_i].lmod ? "Lmod" : "Environment Modules"), "%s", err.text);
    ck_assert_msg(!strchr(err.text, '\n'), "one line: %s", err.text);
    /* no Tcl trace, no Lmod module table, no contact boilerplate */
    ck_assert_msg(!strstr(err.text, "while executing") && !strstr(err.text, "While processing") &&
                      !strstr(err.text, "Please contact") && !strstr(err.text, "spelling"),
                  "%s", err.text);
    if (file)
        ck_assert_str_eq(err.source, file);
    else
        ck_assert_str_eq(err.source, "");
    if (broken[_i].line)
        ck_assert_int_eq(err.line, broken[_i].line);
    ck_assert_str_eq(ctk_env_get(&out, "UNTOUCHED"), "1");
    ck_assert_ptr_null(ctk_env_get(&out, "FOO"));
    ctk_env_fini(&out);
    ctk_env_fini(&base);
    ctk_modsys_info_fini(&m);
    free(file);
    free(home);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- as an unprivileged user ------------------------------------------------- */

START_TEST(test_modenv_load_as_runs_both_steps_as_the_user)
{
    char *dir, *home, *file, *mark = NULL, *text = NULL, *base_dir;
    ctk_sandbox_t sb;
    ctk_modsys_info_t m;
    ctk_env_t base, out;
    ctk_error_t err;
    const char *tcl_home;

    NEED_TCL();
    if (geteuid() != 0) {
        printf("SKIP: %s: not root: nothing to drop\n", __func__);
        return;
    }
    dir = tu_mkdtemp();
    ck_assert_int_eq(chmod(dir, 0755), 0);
    home = tu_mkdirs(dir, "roothome");
    ck_assert_int_eq(chmod(home, 0700), 0);
    ck_assert(asprintf(&mark, "%s/marker", dir) > 0);
    /* the Tcl runs a command, and what it prints for sh runs another */
    ck_assert(asprintf(&text,
                       "#%%Module\n"
                       "setenv WHO [exec id -u]\n"
                       "setenv TCL_HOME $env(HOME)\n"
                       "setenv TCL_TMP $env(TMPDIR)\n"
                       "catch {exec sh -c {id -u > %s}}\n"
                       "puts stdout {SH_WHO=$(id -u); export SH_WHO;}\n",
                       mark) > 0);
    file = tu_write(dir, "mp/who/1.0", text);
    ck_assert_int_eq(chmod(file, 0644), 0);
    find_tcl(&m);
    make_base(&base, home);
    ck_assert(ctk_env_set(&base, "TMPDIR", home, NULL));
    ctk_error_init(&err);
    ck_assert(ctk_sandbox_init(&sb, false, NULL, &err));
    ck_assert(sb.drop);
    {
        char *mp = NULL;

        ck_assert(asprintf(&mp, "%s/mp", dir) > 0);
        ctk_env_init(&out);
        ck_assert_msg(ctk_modenv_load_as(&m, mp, "who/1.0", &base, TIMEOUT, &sb, &out, &err), "%s", err.text);
        free(mp);
    }
    ck_assert_str_eq(ctk_env_get(&out, "WHO"), "65534");
    ck_assert_str_eq(ctk_env_get(&out, "SH_WHO"), "65534");
    /* a HOME and TMPDIR of the load's own, gone afterwards; the result
     * shows base's, as the module left them alone */
    tcl_home = ctk_env_get(&out, "TCL_HOME");
    ck_assert_msg(tcl_home && strncmp(tcl_home, sb.base, strlen(sb.base)) == 0, "HOME in the load: %s", tcl_home);
    ck_assert_msg(access(tcl_home, F_OK) != 0, "%s left behind", tcl_home);
    ck_assert_str_ne(ctk_env_get(&out, "TCL_TMP"), home);
    ck_assert_str_eq(ctk_env_get(&out, "HOME"), home);
    ck_assert_str_eq(ctk_env_get(&out, "TMPDIR"), home);
    /* the marker's directory is root's: the user could not write there */
    ck_assert_msg(access(mark, F_OK) != 0, "%s written: the Tcl ran as root", mark);
    base_dir = strdup(sb.base);
    ctk_sandbox_fini(&sb);
    ck_assert_msg(access(base_dir, F_OK) != 0, "%s left behind", base_dir);

    /* the same file as root, for comparison: root could */
    ctk_env_fini(&out);
    ctk_env_init(&out);
    {
        char *mp = NULL;

        ck_assert(asprintf(&mp, "%s/mp", dir) > 0);
        load_ok(&m, mp, "who/1.0", &base, &out);
        free(mp);
    }
    ck_assert_str_eq(ctk_env_get(&out, "WHO"), "0");
    ck_assert_msg(access(mark, F_OK) == 0, "as root the marker should be there");

    ctk_env_fini(&out);
    ctk_env_fini(&base);
    ctk_modsys_info_fini(&m);
    free(base_dir);
    free(text);
    free(mark);
    free(file);
    free(home);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_modenv_module_system_that_cannot_run_is_env_error)
{
    char *dir = tu_mkdtemp(), *home = tu_mkdirs(dir, "home");
    char *file = tu_write(dir, "ok/1.0", "#%Module1.0\nsetenv FOO bar\n");
    ctk_modsys_info_t gone = { CTK_MODSYS_LMOD, (char *)"/nonexistent-ctk/lmod", NULL, NULL };
    ctk_modsys_info_t m;
    ctk_env_t base, out;
    ctk_error_t err;

    make_base(&base, home);
    ctk_env_init(&out);
    ctk_error_init(&err);
    ck_assert(!ctk_modenv_load(&gone, dir, "ok/1.0", &base, TIMEOUT, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_ENV);
    ck_assert_msg(strstr(err.text, "No such file or directory") != NULL, "%s", err.text);

    if (modulecmd()) {
        /* tclsh cannot even start up in a millisecond */
        find_tcl(&m);
        ctk_error_init(&err);
        ck_assert(!ctk_modenv_load(&m, dir, "ok/1.0", &base, 0.001, &out, &err));
        ck_assert_int_eq(err.code, CTK_E_ENV);
        ck_assert_msg(strstr(err.text, "timed out") != NULL, "%s", err.text);
        ctk_modsys_info_fini(&m);
    } else {
        printf("SKIP: %s: timeout part: no Environment Modules\n", __func__);
    }
    ctk_env_fini(&out);
    ctk_env_fini(&base);
    free(file);
    free(home);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("modenv");
    TCase *tc = tcase_create("modenv");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_modenv_bookkeeping_names);
    tcase_add_test(tc, test_modenv_find_tcl_explicit_path);
    tcase_add_test(tc, test_modenv_find_tcl_from_modules_cmd);
    tcase_add_test(tc, test_modenv_find_tcl_says_what_is_missing);
    tcase_add_test(tc, test_modenv_find_tcl_needs_a_tclsh);
    tcase_add_test(tc, test_modenv_find_lmod_explicit_env_and_missing);
    tcase_add_test(tc, test_modenv_tcl_loads_generated_module);
    tcase_add_test(tc, test_modenv_lmod_loads_generated_module_like_tcl);
    tcase_add_test(tc, test_modenv_values_survive_quoting_and_size);
    tcase_add_test(tc, test_modenv_value_sh_cannot_take_is_an_error);
    tcase_add_loop_test(tc, test_modenv_refused_load_is_a_template_error, 0,
                        (int)(sizeof broken / sizeof broken[0]));
    tcase_add_test(tc, test_modenv_module_system_that_cannot_run_is_env_error);
    tcase_add_test(tc, test_modenv_load_as_runs_both_steps_as_the_user);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
