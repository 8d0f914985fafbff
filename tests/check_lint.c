/* check_lint.c - unit tests of lint.c: classification, names, the Lua
 * forbidden-call scanner, .pc variable use, the nvcc static rule, module
 * name versions, and ctk_lint() over real files and the real toolkit;
 * and of policy.c: rules, globs, findings re-graded or waived, the gate.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "lint.h"
#include "policy.h"
#include "lintfix.h"
#include "lintsuggest.h"
#include "testutil.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

START_TEST(test_lint_classifies_by_name_and_first_bytes)
{
    ck_assert_int_eq(ctk_lint_classify("/m/cuda/13.0.lua", "family('cuda')"), CTK_LINT_LUA);
    ck_assert_int_eq(ctk_lint_classify("/p/ctk-13.0.pc", "Name: x"), CTK_LINT_PC);
    ck_assert_int_eq(ctk_lint_classify("/m/cuda/13.0", "#%Module1.0\nsetenv A b\n"), CTK_LINT_TCL);
    ck_assert_int_eq(ctk_lint_classify("/m/cuda/13.0", "# not a module\n"), CTK_LINT_OTHER);
    ck_assert_int_eq(ctk_lint_classify("/m/cuda/.modulerc.lua", "module_version('a','b')"), CTK_LINT_OTHER);
    ck_assert_int_eq(ctk_lint_classify("/m/cuda/.modulerc", "#%Module"), CTK_LINT_OTHER);
    ck_assert_int_eq(ctk_lint_classify("/m/cuda/.version", "#%Module"), CTK_LINT_OTHER);
    ck_assert_int_eq(ctk_lint_classify("/m/README", NULL), CTK_LINT_OTHER);
}
END_TEST

START_TEST(test_lint_module_name_is_the_last_two_path_parts)
{
    static const struct { const char *path, *want; } cases[] = {
        { "/apps/lmod/cudatoolkit/13.0.lua", "cudatoolkit/13.0" },
        { "/apps/tcl/cuda/12.4-nvhpc24.3", "cuda/12.4-nvhpc24.3" },
        { "cuda/13.0.lua", "cuda/13.0" },
        { "13.0.lua", "13.0" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *n = ctk_lint_module_name(cases[i].path, NULL);

        ck_assert_ptr_nonnull(n);
        ck_assert_str_eq(n, cases[i].want);
        free(n);
    }
}
END_TEST

static const struct {
    const char *src;
    const char *name; /* NULL: nothing forbidden */
    int line;
} forbidden_cases[] = {
    { "family('cuda')\nos.remove('/etc/x')\n", "os.remove", 2 },
    { "local f = io.open('/etc/passwd')\n", "io", 1 },
    { "\n\nlocal p = require 'posix'\n", "require", 3 },
    { "pcall(os.rename, 'x', 'y')\n", "os.rename", 1 },
    { "local c = load(\"os.execute('x')\")\n", "load (of Lua code)", 1 },
    { "dofile('/etc/site.lua')\n", "dofile", 1 },
    { "local d = string.dump(print)\n", "string.dump", 1 },
    { "local p = io.popen('id')\n", "io", 1 },
    /* calls that run programs: recorded as not run (CTK-MOD-007), not forbidden */
    { "execute{cmd='id', modeA={'load'}}\n", NULL, 0 },
    { "family('cuda')\nos.execute('id')\n", NULL, 0 },
    /* not forbidden */
    { "-- os.execute('id') in a comment\nfamily('cuda')\n", NULL, 0 },
    { "--[[ io.open\nrequire ]] family('cuda')\n", NULL, 0 },
    { "whatis('uses os.execute in a string')\n", NULL, 0 },
    { "whatis([[io.open and require, long string]])\n", NULL, 0 },
    { "local h = os.getenv('HOME')\n", NULL, 0 },
    { "load('cudnn/9.1')\n", NULL, 0 },
    { "local t = {}; t.io = 1; t.require = 2\n", NULL, 0 },
};

START_TEST(test_lint_lua_forbidden_scanner)
{
    const char *name = NULL;
    int line = 0;
    bool hit = ctk_lint_lua_forbidden(forbidden_cases[_i].src, strlen(forbidden_cases[_i].src), &name, &line);

    if (!forbidden_cases[_i].name) {
        ck_assert_msg(!hit, "case %d: found %s", _i, hit ? name : "");
        return;
    }
    ck_assert_msg(hit, "case %d: nothing found", _i);
    ck_assert_str_eq(name, forbidden_cases[_i].name);
    ck_assert_int_eq(line, forbidden_cases[_i].line);
}
END_TEST

START_TEST(test_lint_pc_unused_follows_references)
{
    const char *text = "prefix=/opt/x\n"
                       "cudaroot=/opt/cuda\n"
                       "cu_math=/opt/math\n"
                       "libdir=${cudaroot}/lib64\n"
                       "unused_dir=${cudaroot}/extras\n"
                       "# a comment=with an equals\n"
                       "\n"
                       "Name: ctk\n"
                       "Description: d\n"
                       "Version: 13.0\n"
                       "Libs: -L${libdir} -lcudart\n";
    ctk_strlist_t names;
    int lines[64];

    ctk_strlist_init(&names);
    ck_assert(ctk_lint_pc_unused(text, &names, lines, NULL));
    ck_assert_uint_eq(names.len, 2);
    ck_assert_str_eq(names.items[0], "cu_math");
    ck_assert_int_eq(lines[0], 3);
    ck_assert_str_eq(names.items[1], "unused_dir");
    ck_assert_int_eq(lines[1], 5);
    ctk_strlist_fini(&names);
}
END_TEST

/* The variables ctkgen writes for `pkg-config --variable` (pc.lua) are
 * not unused, nor what they name (includedir, named by cmake_include_path
 * alone); a name beside them that nothing reads still is. */
START_TEST(test_lint_pc_unused_spares_query_variables)
{
    const char *text = "cudaroot=/usr\n"
                       "libdir=/opt/cuda/lib64\n"
                       "includedir=/opt/cuda/include\n"
                       "ccbin=/usr/bin/g++-11\n"
                       "cmake_library_path=${libdir}\n"
                       "cmake_include_path=${includedir}\n"
                       "cmake_build_rpath=${libdir}\n"
                       "ld_library_path=${libdir}\n"
                       "cmake_prefix_path=${cudaroot}\n"
                       "\n"
                       "Name: ctk\n"
                       "Description: d\n"
                       "Version: 13.0\n"
                       "Libs: -L${libdir} -lcudart\n";
    ctk_strlist_t names;
    int lines[64];

    ctk_strlist_init(&names);
    ck_assert(ctk_lint_pc_unused(text, &names, lines, NULL));
    ck_assert_uint_eq(names.len, 1);
    ck_assert_str_eq(names.items[0], "cmake_prefix_path");
    ck_assert_int_eq(lines[0], 9);
    ctk_strlist_fini(&names);
}
END_TEST

START_TEST(test_lint_nvcc_static_rule)
{
    static const char *const good[] = {"-L/opt/cuda/lib64", "-lcudart", "-Xlinker", "-rpath=/a:/b",
                                       "-Xlinker=--as-needed", "/opt/lib/libfoo.a", NULL};
    static const char *const bad[] = {"-L/a", "-Wl,--as-needed,-lcudart,--no-as-needed", "-lcuda", NULL};
    ctk_strlist_t l;
    const char *w = NULL;

    ctk_strlist_init(&l);
    for (int i = 0; good[i]; i++)
        ck_assert(ctk_strlist_push(&l, good[i], NULL));
    ck_assert(ctk_lint_nvcc_libs_static(&l, &w));
    ctk_strlist_fini(&l);
    ctk_strlist_init(&l);
    for (int i = 0; bad[i]; i++)
        ck_assert(ctk_strlist_push(&l, bad[i], NULL));
    ck_assert(!ctk_lint_nvcc_libs_static(&l, &w));
    ck_assert_str_eq(w, "-Wl,--as-needed,-lcudart,--no-as-needed");
    ctk_strlist_fini(&l);
}
END_TEST

START_TEST(test_lint_name_version)
{
    ck_assert_int_eq(ctk_lint_name_version_agrees("cudatoolkit/13.0", 13, 0), 1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cudatoolkit/13.0.1", 13, 0), 1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cudatoolkit/12.4", 13, 0), 0);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cudatoolkit/24.3_12.3", 12, 3), 1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cudatoolkit/24.3_12.3", 12, 4), 0);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cuda/11.6-nvhpc22.3", 11, 6), 1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("CUDA/13.0.0-easybuild", 13, 0), 1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cuda/13.1", 13, 10), 0);
    ck_assert_int_eq(ctk_lint_name_version_agrees("nvhpc/25.9", 13, 0), -1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("cuda/default", 13, 0), -1);
    ck_assert_int_eq(ctk_lint_name_version_agrees("13.0", 13, 0), -1);
}
END_TEST

/* ---- fixes that fit the file ------------------------------------------------ */

START_TEST(test_lintfix_knows_ctkgens_own_header)
{
    ck_assert(ctk_lintfix_is_own("-- -*- lua -*-\n-- generated by ctkgen; do not edit\nsetenv(\"A\", \"1\")\n"));
    ck_assert(ctk_lintfix_is_own("#%Module1.0\n# generated by ctkgen; do not edit\n"));
    ck_assert(!ctk_lintfix_is_own("family(\"cuda\")\n"));
    ck_assert(!ctk_lintfix_is_own("1\n2\n3\n4\n5\n-- generated by ctkgen; do not edit\n"));
    ck_assert(!ctk_lintfix_is_own(NULL));
}
END_TEST

/* One finding of code with message text at line in a file of kind; its fix. */
static char *fix_of(ctk_lint_kind_t kind, const char *name, const char *code, int line, const char *text,
                    const char *filetext)
{
    ctk_lint_file_t f;
    ctk_error_t err;
    char *fix;

    memset(&f, 0, sizeof f);
    ctk_error_init(&err);
    ctk_findings_init(&f.findings);
    f.kind = kind;
    f.name = (char *)name;
    f.root = (char *)"/opt/cuda-13.0";
    f.version = (char *)"13.0.88";
    f.found_by = (char *)"CUDA_HOME";
    ck_assert(ctk_findings_add(&f.findings, code, "m", line, &err, "%s", text));
    ck_assert(ctk_lintfix_apply(&f, filetext, &err));
    fix = strdup(ctk_finding_fix(&f.findings.items[0]));
    ctk_findings_fini(&f.findings);
    return fix;
}

static const struct {
    ctk_lint_kind_t kind;
    const char *code, *text, *fix;
    int line;
} fix_cases[] = {
    { CTK_LINT_LUA, "CTK-LDLIB-003", "LIBRARY_PATH misses /opt/m/lib64",
      "add prepend_path(\"LIBRARY_PATH\", \"/opt/m/lib64\") to this file, next to its other entries at line 7", 7 },
    { CTK_LINT_TCL, "CTK-LDLIB-003", "LD_LIBRARY_PATH misses /opt/m/lib64",
      "add prepend-path LD_LIBRARY_PATH /opt/m/lib64 to this file", 0 },
    { CTK_LINT_PC, "CTK-LDLIB-003", "the Libs miss -L/opt/m/lib64",
      "add -L/opt/m/lib64 to the Libs: field at line 8 of this file", 8 },
    { CTK_LINT_PC, "CTK-CPATH-001", "the Cflags miss -I/opt/c/include, which holds cuda_runtime.h",
      "add -I/opt/c/include to the Cflags: field at line 9 of this file", 9 },
    { CTK_LINT_LUA, "CTK-LDLIB-001", "LD_LIBRARY_PATH holds the driver stubs dir /opt/c/lib64/stubs",
      "remove /opt/c/lib64/stubs from LD_LIBRARY_PATH at line 3 (the prepend_path or append_path that adds it); "
      "where builds need the stubs, prepend_path(\"LIBRARY_PATH\", \"/opt/c/lib64/stubs\") instead", 3 },
    { CTK_LINT_LUA, "CTK-VER-001", "the module is named cuda/12.4 but ...",
      "rename the module file to cuda/13.0.lua, or point CUDA_HOME (line 2) at a CUDA 12.4 toolkit", 0 },
    { CTK_LINT_TCL, "CTK-VER-001", "the module is named cuda/12.4 but ...",
      "rename the module file to cuda/13.0, or point CUDA_HOME (line 2) at a CUDA 12.4 toolkit", 0 },
    { CTK_LINT_PC, "CTK-PC-002", "Version: 12.4, but ...",
      "set 'Version: 13.0.88' at line 4 in this file, or point its directories at a toolkit of the Version it declares", 4 },
    { CTK_LINT_TCL, "CTK-ENV-003", "the module sets LDFLAGS=\"-L/x\"",
      "remove 'setenv LDFLAGS ...' at line 5; users' builds get the toolkit's flags from CPATH, LIBRARY_PATH or a .pc file", 5 },
    /* a message of another form keeps the table's fix */
    { CTK_LINT_LUA, "CTK-LDLIB-003", "something else",
      "add the named lib directory (math_libs, CUPTI or NVVM) to both variables and to Libs", 0 },
};

START_TEST(test_lintfix_says_what_to_change_in_the_file)
{
    char *fix = fix_of(fix_cases[_i].kind, fix_cases[_i].kind == CTK_LINT_PC ? "ctk-12.4" : "cuda/12.4",
                       fix_cases[_i].code, fix_cases[_i].line, fix_cases[_i].text, "x\nsetenv CUDA_HOME /opt\n");

    ck_assert_str_eq(fix, fix_cases[_i].fix);
    free(fix);
}
END_TEST

START_TEST(test_lintsuggest_keeps_what_the_module_sets_beyond_the_toolkit)
{
    ctk_error_t err;
    ctk_config_t *cfg;
    ctk_env_t set;
    ctk_strlist_t props, notes;
    char *fam;

    ctk_error_init(&err);
    ctk_env_init(&set);
    ctk_strlist_init(&props);
    ctk_strlist_init(&notes);
    cfg = ctk_config_new("<lint>", &err);
    ck_assert_ptr_nonnull(cfg);
    ck_assert_ptr_nonnull(ctk_config_add_sdk(cfg, "13.0", "/opt/cuda", &err));
    ck_assert(ctk_env_set(&set, "CUDA_HOME", "/opt/cuda", &err));
    ck_assert(ctk_env_set(&set, "CRAY_CUDATOOLKIT_VERSION", "13.0_25.9", &err));
    ck_assert(ctk_env_set(&set, "PE_PKGCONFIG_LIBS", "cudatoolkit_13.0", &err));
    ck_assert(ctk_env_set(&set, "PE_PKGCONFIG_PRODUCTS", "PE_CUDATOOLKIT", &err));
    ck_assert(ctk_env_set(&set, "LMOD_FAMILY_CUDA", "cudatoolkit", &err));
    ck_assert(ctk_env_set(&set, "CUDATOOLKIT_VERSION", "13.0", &err));
    ck_assert(ctk_strlist_push(&props, "arch=gpu", &err));
    ck_assert(ctk_strlist_push(&props, "state=testing", &err));
    ck_assert(ctk_strlist_push(&props, "arch=gpu", &err)); /* again: nothing to say */
    ck_assert(ctk_strlist_push(&props, "arch=mic", &err));
    ck_assert(ctk_strlist_push(&props, "lmod=sticky now", &err));
    ck_assert(ctk_lintsuggest_keep(cfg, &set, "cuda_tk", &props, &notes, &err));
    ck_assert_uint_eq(cfg->sdks[0].n_env, 2);
    ck_assert_str_eq(cfg->sdks[0].env[0].name, "CRAY_CUDATOOLKIT_VERSION");
    ck_assert_str_eq(cfg->sdks[0].env[1].name, "PE_PKGCONFIG_LIBS");
    ck_assert_str_eq(cfg->sdks[0].env[1].value, "ctk-13.0");
    ck_assert_str_eq(cfg->family, "cuda_tk");
    ck_assert_uint_eq(cfg->sdks[0].n_properties, 2);
    ck_assert_str_eq(cfg->sdks[0].properties[0].name, "arch");
    ck_assert_str_eq(cfg->sdks[0].properties[0].value, "gpu");
    ck_assert_str_eq(cfg->sdks[0].properties[1].name, "state");
    ck_assert_str_eq(cfg->sdks[0].properties[1].value, "testing");
    ck_assert_uint_eq(notes.len, 4);
    ck_assert_ptr_nonnull(strstr(notes.items[0], "PE_PKGCONFIG_LIBS was \"cudatoolkit_13.0\""));
    ck_assert_ptr_nonnull(strstr(notes.items[1], "PE_PKGCONFIG_PRODUCTS=\"PE_CUDATOOLKIT\" is not kept"));
    ck_assert_str_eq(notes.items[2], "add_property(\"arch\", \"mic\") is not kept: the site config holds one "
                                     "value a property, and arch is \"gpu\"");
    ck_assert_ptr_nonnull(strstr(notes.items[3], "add_property(\"lmod\", \"sticky now\") is not kept: the value"));
    fam = ctk_lintsuggest_tcl_family("#%Module\nconflict x\n  family  cray_cuda\n", &err);
    ck_assert_str_eq(fam, "cray_cuda");
    free(fam);
    ck_assert_ptr_null(ctk_lintsuggest_tcl_family("#%Module\n# family cuda\n", &err));
    ctk_config_free(cfg);
    ctk_env_fini(&set);
    ctk_strlist_fini(&props);
    ctk_strlist_fini(&notes);
}
END_TEST

/* ---- ctk_lint over files ----------------------------------------------------- */

static const ctk_lint_file_t *find_file(const ctk_lint_report_t *r, const char *suffix)
{
    for (size_t i = 0; i < r->n_files; i++) {
        size_t n = strlen(r->files[i].file), m = strlen(suffix);

        if (n >= m && strcmp(r->files[i].file + n - m, suffix) == 0)
            return &r->files[i];
    }
    return NULL;
}

START_TEST(test_lint_a_tree_against_the_real_toolkit)
{
    const char *cuda = tu_cuda_root();
    char *dir, *text, *one;
    ctk_lint_report_t rep;
    ctk_lint_opts_t o = {0};
    ctk_error_t err;
    const ctk_lint_file_t *f;
    const char *paths[1];

    ck_assert_ptr_nonnull(cuda); /* registered only with a toolkit */
    dir = tu_mkdtemp();
    text = NULL;
    ck_assert(asprintf(&text,
                       "family('cuda')\n"
                       "local r = '%s'\n"
                       "prepend_path('PATH', r .. '/bin')\n"
                       "setenv('CUDA_HOME', r)\n"
                       "setenv('LDFLAGS', '-L' .. r .. '/lib64')\n",
                       cuda) > 0);
    free(tu_write(dir, "lmod/cuda/13.0.lua", text));
    free(text);
    free(tu_write(dir, "lmod/cuda/evil.lua", "family('cuda')\nos.execute('touch " "never')\n"));
    free(tu_write(dir, "lmod/cuda/.modulerc.lua", "module_version('cuda/13.0', 'default')\n"));
    free(tu_write(dir, "notes.txt", "hello\n"));
    paths[0] = dir;
    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    ck_assert_msg(ctk_lint(paths, 1, &o, &rep, &err), "%s", err.text);
    ck_assert_uint_eq(rep.n_files, 2);
    ck_assert_uint_eq(rep.n_skipped, 2);
    f = find_file(&rep, "lmod/cuda/13.0.lua");
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(f->name, "cuda/13.0");
    ck_assert_ptr_nonnull(f->root);
    ck_assert_str_eq(f->root, cuda);
    ck_assert_str_eq(f->found_by, "CUDA_HOME");
    ck_assert(ctk_findings_has(&f->findings, "CTK-ENV-003"));
    ck_assert(ctk_findings_has(&f->findings, "CTK-CPATH-001"));
    ck_assert(!ctk_findings_has(&f->findings, "CTK-PATH-001"));
    ck_assert(!ctk_findings_has(&f->findings, "CTK-MOD-003"));
    ck_assert_ptr_null(f->suggestion);
    /* the call is not run; the file goes on, and the finding names it */
    f = find_file(&rep, "lmod/cuda/evil.lua");
    ck_assert_ptr_nonnull(f);
    ck_assert(ctk_findings_has(&f->findings, "CTK-MOD-007"));
    ck_assert(!ctk_findings_has(&f->findings, "CTK-MOD-004"));
    for (size_t k = 0; k < f->findings.len; k++)
        if (strcmp(f->findings.items[k].code, "CTK-MOD-007") == 0) {
            ck_assert_int_eq(f->findings.items[k].line, 2);
            ck_assert_ptr_nonnull(strstr(f->findings.items[k].text, "os.execute(\"touch never\")"));
        }
    ck_assert_int_ne(access("never", F_OK), 0);
    ck_assert(rep.n_error >= 2);
    ctk_lint_report_fini(&rep);

    /* --fix-suggest on one named file: a site config naming the toolkit */
    one = NULL;
    ck_assert(asprintf(&one, "%s/lmod/cuda/13.0.lua", dir) > 0);
    paths[0] = one;
    o.fix_suggest = true;
    ctk_lint_report_init(&rep);
    ck_assert_msg(ctk_lint(paths, 1, &o, &rep, &err), "%s", err.text);
    ck_assert_uint_eq(rep.n_files, 1);
    ck_assert_ptr_nonnull(rep.files[0].suggestion);
    ck_assert_ptr_nonnull(strstr(rep.files[0].suggestion, "\"module_name\": \"cuda\""));
    ck_assert_ptr_nonnull(strstr(rep.files[0].suggestion, cuda));
    ctk_lint_report_fini(&rep);
    free(one);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_lint_missing_path_is_bad_input)
{
    const char *paths[] = {"/nonexistent/ctkgen/lint/cuda.lua"};
    ctk_lint_report_t rep;
    ctk_lint_opts_t o = {0};
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    ck_assert(!ctk_lint(paths, 1, &o, &rep, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_str_eq(err.source, paths[0]);
    ck_assert_int_eq(ctk_error_exit_code(&err), CTK_EXIT_INPUT);
    ck_assert_uint_eq(rep.n_files, 0);
    ctk_lint_report_fini(&rep);
}
END_TEST

START_TEST(test_lint_explicit_modulecmd_that_names_nothing_is_an_environment_error)
{
    char *dir = tu_mkdtemp();
    const char *paths[1] = {dir};
    ctk_lint_report_t rep;
    ctk_lint_opts_t o = {0};
    ctk_error_t err;

    o.modulecmd = "/nonexistent/modulecmd.tcl";
    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    ck_assert(!ctk_lint(paths, 1, &o, &rep, &err));
    ck_assert_int_eq(err.code, CTK_E_ENV);
    ctk_lint_report_fini(&rep);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A FIFO in the tree, a link from it to a FIFO or into /proc, and a FIFO
 * named on the command line are findings naming them, unread (the FIFOs
 * have no writer: a read would wait for ever); a link to a regular file
 * found in the walk is skipped, one named is followed. */
START_TEST(test_lint_reads_only_regular_files)
{
    char *dir = tu_mkdtemp(), *tree = tu_mkdirs(dir, "tree/cuda"), *mod, *fifo, *outside, *lnk, *kmsg, *dflt;
    const char *paths[3];
    ctk_lint_report_t rep;
    ctk_lint_opts_t o = {0};
    ctk_error_t err;
    time_t t0 = time(NULL);
    size_t i, n_read = 0;

    mod = tu_write(tree, "12.4.lua", "setenv(\"X\", \"1\")\nfamily(\"cuda\")\n");
    ck_assert(asprintf(&fifo, "%s/13.0.lua", tree) > 0 && mkfifo(fifo, 0600) == 0);
    ck_assert(asprintf(&outside, "%s/out.pc", dir) > 0 && mkfifo(outside, 0600) == 0);
    ck_assert(asprintf(&lnk, "%s/out.pc", tree) > 0 && symlink(outside, lnk) == 0);
    ck_assert(asprintf(&kmsg, "%s/kmsg.lua", tree) > 0 && symlink("/proc/self/stat", kmsg) == 0);
    ck_assert(asprintf(&dflt, "%s/default", tree) > 0 && symlink("12.4.lua", dflt) == 0);
    paths[0] = tree;
    paths[1] = outside;
    paths[2] = dflt;
    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    ck_assert_msg(ctk_lint(paths, 3, &o, &rep, &err), "%s", err.text);
    for (i = 0; i < rep.n_files; i++) {
        const ctk_lint_file_t *f = &rep.files[i];

        if (strcmp(f->file, mod) == 0) {
            n_read++;
            ck_assert(!ctk_findings_has(&f->findings, "CTK-READ-001"));
            continue;
        }
        ck_assert_msg(ctk_findings_has(&f->findings, "CTK-READ-001"), "%s", f->file);
        ck_assert_uint_eq(f->findings.len, 1);
        if (strcmp(f->file, fifo) == 0 || strcmp(f->file, outside) == 0)
            ck_assert_ptr_nonnull(strstr(f->findings.items[0].text, "a FIFO, not a regular file"));
        else if (strcmp(f->file, lnk) == 0)
            ck_assert_msg(strstr(f->findings.items[0].text, "a symbolic link to a FIFO") &&
                              strstr(f->findings.items[0].text, outside), "%s", f->findings.items[0].text);
        else
            ck_assert_msg(strcmp(f->file, kmsg) == 0 && strstr(f->findings.items[0].text, "kernel file system"),
                          "%s: %s", f->file, f->findings.items[0].text);
    }
    /* 12.4.lua once (its default link named on the command line is the
     * same file), 13.0.lua, out.pc twice (the link, the FIFO), kmsg.lua */
    ck_assert_uint_eq(n_read, 1);
    ck_assert_uint_eq(rep.n_files, 5);
    ck_assert_uint_eq(rep.n_error, 4);
    for (i = 0; i < rep.n_skipped; i++)
        if (strcmp(rep.skipped[i].file, dflt) == 0)
            break;
    ck_assert_msg(i < rep.n_skipped, "the default link was not skipped in the walk");
    ck_assert_int_le(time(NULL) - t0, 10);
    ctk_lint_report_fini(&rep);
    free(mod);
    free(fifo);
    free(outside);
    free(lnk);
    free(kmsg);
    free(dflt);
    free(tree);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* What lint reads in a .pc itself costs the file's size: a chain of
 * variables, each used only by the one after it in the file, is followed
 * in one pass (a pass per variable, each over every pair, before); variables that each name
 * the next hundreds of times (a thousand to the power of their nesting,
 * expanded naively) are expanded once each. */
START_TEST(test_lint_pc_text_costs_its_size)
{
    char *dir = tu_mkdtemp(), *path;
    const char *paths[1];
    ctk_strlist_t names;
    ctk_lint_report_t rep;
    ctk_lint_opts_t o = {0};
    ctk_error_t err;
    ctk_buf_t b;
    int lines[64];
    time_t t0 = time(NULL);

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "Name: chain\nDescription: d\nVersion: 1\nCflags: -I${v0}\n");
    for (int i = 2999; i >= 0; i--)
        ctk_buf_printf(&b, "v%d=${v%d}\n", i, i + 1);
    ctk_buf_puts(&b, "v3000=/x\nunused=1\n");
    ctk_strlist_init(&names);
    ck_assert(ctk_lint_pc_unused(b.data, &names, lines, NULL));
    ck_assert_uint_eq(names.len, 1);
    ck_assert_str_eq(names.items[0], "unused");
    ctk_strlist_fini(&names);
    ctk_buf_fini(&b);

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "Name: wide\nDescription: d\nVersion: 1\n");
    for (int i = 0; i < 15; i++) {
        ctk_buf_printf(&b, "prefix%d=", i);
        for (int k = 0; k < 300; k++)
            ctk_buf_printf(&b, "${prefix%d}", i + 1);
        ctk_buf_puts(&b, "\n");
    }
    ctk_buf_puts(&b, "prefix15=\nprefix=${prefix0}\nCflags: -I${prefix}/include\n");
    path = tu_write(dir, "wide.pc", b.data);
    ctk_buf_fini(&b);
    paths[0] = path;
    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    ck_assert_msg(ctk_lint(paths, 1, &o, &rep, &err), "%s", err.text);
    ck_assert_uint_eq(rep.n_files, 1);
    ck_assert_int_le(time(NULL) - t0, 5);
    ctk_lint_report_fini(&rep);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- the policy (policy.c) and the gate ---------------------------------- */

static void policy_with(ctk_policy_t *p, const char *code, const char *glob, const char *action,
                        const char *reason)
{
    ctk_error_t err;
    ctk_severity_t sev = CTK_SEV_NOTE;
    bool waive = false;

    ctk_error_init(&err);
    ck_assert(ctk_policy_parse_action(action, &waive, &sev));
    ck_assert_msg(ctk_policy_add(p, code, glob, waive, sev, reason, "p.json:1", &err), "%s", err.text);
}

START_TEST(test_policy_parses_actions)
{
    ctk_severity_t sev = CTK_SEV_ERROR;
    bool waive = true;

    ck_assert(ctk_policy_parse_action("note", &waive, &sev));
    ck_assert(!waive);
    ck_assert_int_eq(sev, CTK_SEV_NOTE);
    ck_assert(ctk_policy_parse_action("warning", &waive, &sev) && sev == CTK_SEV_WARNING);
    ck_assert(ctk_policy_parse_action("error", &waive, &sev) && sev == CTK_SEV_ERROR && !waive);
    ck_assert(ctk_policy_parse_action("off", &waive, &sev) && waive);
    waive = false;
    ck_assert(ctk_policy_parse_action("waive", &waive, &sev) && waive);
    ck_assert(!ctk_policy_parse_action("Error", &waive, &sev));
    ck_assert(!ctk_policy_parse_action("ignore", &waive, &sev));
    ck_assert(!ctk_policy_parse_action(NULL, &waive, &sev));
}
END_TEST

START_TEST(test_policy_add_refuses_unknown_codes_and_empty_reasons)
{
    ctk_policy_t p;
    ctk_error_t err;

    ctk_policy_init(&p);
    ctk_error_init(&err);
    ck_assert(!ctk_policy_add(&p, "CTK-NOPE-001", NULL, true, CTK_SEV_NOTE, "r", NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ctk_error_init(&err);
    ck_assert(!ctk_policy_add(&p, "CTK-PC-001", NULL, true, CTK_SEV_NOTE, "", NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ctk_error_init(&err);
    ck_assert(!ctk_policy_add(&p, "CTK-PC-001", "", true, CTK_SEV_NOTE, "r", NULL, &err));
    ck_assert_uint_eq(p.n_rules, 0);
    ck_assert_int_eq(p.error_on, -1);
    ck_assert_int_eq(p.strict, -1);
    ctk_policy_fini(&p);
}
END_TEST

START_TEST(test_policy_match_by_glob_on_path_or_relative_path_last_rule_wins)
{
    ctk_policy_t p;
    const ctk_policy_rule_t *r;

    ctk_policy_init(&p);
    policy_with(&p, "CTK-CPATH-001", "*/cray/*", "off", "wrappers");
    policy_with(&p, "CTK-PC-003", "cray/pc/*", "error", "relative");
    ck_assert_ptr_null(ctk_policy_match(&p, "CTK-CPATH-001", "/apps/site/cuda/13.0.lua", "site/cuda/13.0.lua"));
    r = ctk_policy_match(&p, "CTK-CPATH-001", "/apps/cray/cudatoolkit/13.0", "cray/cudatoolkit/13.0");
    ck_assert_ptr_nonnull(r);
    ck_assert(r->waive);
    ck_assert_str_eq(r->reason, "wrappers");
    ck_assert_str_eq(r->at, "p.json:1");
    /* another code on the same file: no rule */
    ck_assert_ptr_null(ctk_policy_match(&p, "CTK-PC-004", "/apps/cray/cudatoolkit/13.0", NULL));
    /* a glob without a leading star matches the relative path only */
    ck_assert_ptr_nonnull(ctk_policy_match(&p, "CTK-PC-003", "/apps/cray/pc/ctk.pc", "cray/pc/ctk.pc"));
    ck_assert_ptr_null(ctk_policy_match(&p, "CTK-PC-003", "/apps/cray/pc/ctk.pc", NULL));
    /* a later rule for every file wins over the earlier glob */
    policy_with(&p, "CTK-CPATH-001", NULL, "warning", "later");
    r = ctk_policy_match(&p, "CTK-CPATH-001", "/apps/cray/cudatoolkit/13.0", NULL);
    ck_assert(r && !r->waive && r->severity == CTK_SEV_WARNING);
    ck_assert_str_eq(r->reason, "later");
    ck_assert_ptr_null(ctk_policy_match(NULL, "CTK-CPATH-001", "/x", NULL));
    ctk_policy_fini(&p);
}
END_TEST

START_TEST(test_policy_apply_marks_findings_and_counts_skip_waived)
{
    ctk_policy_t p;
    ctk_findings_t f, copy;
    ctk_error_t err;

    ctk_policy_init(&p);
    ctk_findings_init(&f);
    ctk_findings_init(&copy);
    ctk_error_init(&err);
    policy_with(&p, "CTK-CPATH-001", "*/cray/*", "waive", "wrappers");
    policy_with(&p, "CTK-PC-003", NULL, "error", "typos");
    ck_assert(ctk_findings_add(&f, "CTK-CPATH-001", "/a/cray/m", 0, &err, "x"));
    ck_assert(ctk_findings_add(&f, "CTK-PC-003", "/a/cray/m", 0, &err, "y"));
    ck_assert(ctk_findings_add(&f, "CTK-PC-004", "/a/cray/m", 0, &err, "z"));
    ck_assert(ctk_policy_apply(&p, &f, "/a/cray/m", NULL, &err));
    ck_assert(f.items[0].waived);
    ck_assert_str_eq(f.items[0].reason, "wrappers");
    ck_assert_int_eq(f.items[0].severity, CTK_SEV_ERROR); /* kept: shown as what was waived */
    ck_assert(!f.items[1].waived);
    ck_assert_int_eq(f.items[1].severity, CTK_SEV_ERROR);
    ck_assert_str_eq(f.items[1].rule_at, "p.json:1");
    ck_assert(!f.items[2].waived);
    ck_assert_ptr_null(f.items[2].reason);
    /* the waived error is not counted; PC-003 (now an error) and PC-004 are */
    ck_assert_uint_eq(ctk_findings_count(&f, CTK_SEV_ERROR), 2);
    ck_assert_uint_eq(ctk_findings_count(&f, CTK_SEV_WARNING), 0);
    ck_assert_uint_eq(ctk_findings_count_waived(&f), 1);
    /* copies keep what the policy did */
    ck_assert(ctk_findings_extend(&copy, &f, &err));
    ck_assert(copy.items[0].waived);
    ck_assert_str_eq(copy.items[0].reason, "wrappers");
    ck_assert(ctk_policy_apply(NULL, &copy, "/x", NULL, &err));
    ck_assert(copy.items[0].waived);
    ctk_findings_fini(&copy);
    ctk_findings_fini(&f);
    ctk_policy_fini(&p);
}
END_TEST

START_TEST(test_policy_relpath)
{
    ck_assert_str_eq(ctk_policy_relpath("/a/mods/cray/x.lua", "/a/mods"), "cray/x.lua");
    ck_assert_str_eq(ctk_policy_relpath("/a/mods/cray/x.lua", "/a/mods/"), "cray/x.lua");
    ck_assert_str_eq(ctk_policy_relpath("mods//x", "mods"), "x");
    ck_assert_str_eq(ctk_policy_relpath("/etc/x", "/"), "etc/x");
    ck_assert_ptr_null(ctk_policy_relpath("/a/modsx/y", "/a/mods"));
    ck_assert_ptr_null(ctk_policy_relpath("/a/mods", "/a/mods"));
    ck_assert_ptr_null(ctk_policy_relpath("/b/x", "/a"));
    ck_assert_ptr_null(ctk_policy_relpath("/b/x", NULL));
}
END_TEST

START_TEST(test_policy_gate)
{
    ck_assert_int_eq(ctk_policy_gate(0, 0, 0, CTK_SEV_ERROR, false), CTK_GATE_PASS);
    ck_assert_int_eq(ctk_policy_gate(1, 0, 0, CTK_SEV_ERROR, false), CTK_GATE_FAIL);
    ck_assert_int_eq(ctk_policy_gate(0, 3, 0, CTK_SEV_ERROR, false), CTK_GATE_PASS);
    ck_assert_int_eq(ctk_policy_gate(0, 3, 0, CTK_SEV_WARNING, false), CTK_GATE_FAIL);
    ck_assert_int_eq(ctk_policy_gate(0, 0, 2, CTK_SEV_ERROR, false), CTK_GATE_INCOMPLETE);
    ck_assert_int_eq(ctk_policy_gate(0, 0, 2, CTK_SEV_ERROR, true), CTK_GATE_FAIL);
    ck_assert_int_eq(ctk_policy_gate(1, 0, 2, CTK_SEV_ERROR, false), CTK_GATE_FAIL);
    ck_assert_int_eq(ctk_policy_gate(0, 1, 2, CTK_SEV_WARNING, false), CTK_GATE_FAIL);
    ck_assert_int_eq(ctk_policy_gate(0, 0, 0, CTK_SEV_WARNING, true), CTK_GATE_PASS);
}
END_TEST

START_TEST(test_lint_mark_unchecked)
{
    ctk_lint_file_t f;
    ctk_error_t err;

    memset(&f, 0, sizeof f);
    ctk_strlist_init(&f.unchecked);
    ctk_error_init(&err);
    ck_assert(!f.incomplete);
    ck_assert(ctk_lint_mark_unchecked(&f, &err, "execute{%s} not run", "\"nvidia-smi\""));
    ck_assert(ctk_lint_mark_unchecked(&f, &err, "two\nlines"));
    ck_assert(f.incomplete);
    ck_assert_uint_eq(f.unchecked.len, 2);
    ck_assert_str_eq(f.unchecked.items[0], "execute{\"nvidia-smi\"} not run");
    ck_assert_str_eq(f.unchecked.items[1], "two");
    ctk_strlist_fini(&f.unchecked);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lint");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lint_classifies_by_name_and_first_bytes);
    tcase_add_test(tc, test_lint_module_name_is_the_last_two_path_parts);
    tcase_add_loop_test(tc, test_lint_lua_forbidden_scanner, 0,
                        (int)(sizeof forbidden_cases / sizeof forbidden_cases[0]));
    tcase_add_test(tc, test_lint_pc_unused_follows_references);
    tcase_add_test(tc, test_lint_pc_unused_spares_query_variables);
    tcase_add_test(tc, test_lint_nvcc_static_rule);
    tcase_add_test(tc, test_lint_name_version);
    if (tu_cuda_root())
        tcase_add_test(tc, test_lint_a_tree_against_the_real_toolkit);
    else
        fprintf(stderr, "SKIP: no CUDA toolkit ($CTK_TEST_CUDA): test_lint_a_tree_against_the_real_toolkit "
                        "not run, not counted\n");
    tcase_add_test(tc, test_lint_missing_path_is_bad_input);
    tcase_add_test(tc, test_lint_reads_only_regular_files);
    tcase_add_test(tc, test_lintfix_knows_ctkgens_own_header);
    tcase_add_test(tc, test_lintsuggest_keeps_what_the_module_sets_beyond_the_toolkit);
    tcase_add_loop_test(tc, test_lintfix_says_what_to_change_in_the_file, 0,
                        (int)(sizeof fix_cases / sizeof fix_cases[0]));
    tcase_add_test(tc, test_lint_pc_text_costs_its_size);
    tcase_add_test(tc, test_lint_explicit_modulecmd_that_names_nothing_is_an_environment_error);
    tcase_add_test(tc, test_policy_parses_actions);
    tcase_add_test(tc, test_policy_add_refuses_unknown_codes_and_empty_reasons);
    tcase_add_test(tc, test_policy_match_by_glob_on_path_or_relative_path_last_rule_wins);
    tcase_add_test(tc, test_policy_apply_marks_findings_and_counts_skip_waived);
    tcase_add_test(tc, test_policy_relpath);
    tcase_add_test(tc, test_policy_gate);
    tcase_add_test(tc, test_lint_mark_unchecked);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
