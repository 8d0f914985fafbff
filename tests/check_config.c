/* check_config.c - the site config loads, checks, places errors and dumps.
 * SPDX-License-Identifier: MIT
 *
 * JSON in the tables is written with ' for " so it stays readable; dq()
 * swaps them back.  Every error case states its code, source, line, column
 * and text; the positions were worked out from the text by hand, not taken
 * from the loader.
 */
#include <ctkconf.h>

/* "config.h" alone would find the autoconf header again: name ours. */
#include "config.h"
#include "failmalloc.h"
#include "testutil.h"
#include "util.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

/* The text with every ' turned into "; caller frees. */
static char *dq(const char *s)
{
    char *copy = strdup(s), *p;

    ck_assert_ptr_nonnull(copy);
    for (p = copy; *p; p++)
        if (*p == '\'')
            *p = '"';
    return copy;
}

static ctk_config_t *load(const char *single_quoted, ctk_error_t *err)
{
    char *text = dq(single_quoted);
    ctk_config_t *cfg;

    ctk_error_init(err);
    cfg = ctk_config_load_string(text, strlen(text), "site.json", err);
    free(text);
    return cfg;
}

static ctk_config_t *load_ok(const char *single_quoted)
{
    ctk_error_t err;
    ctk_config_t *cfg = load(single_quoted, &err);

    ck_assert_msg(cfg != NULL, "%s:%d:%d: %s", err.source, err.line, err.column, err.text);
    ck_assert_int_eq(err.code, CTK_E_OK);
    return cfg;
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool env_eq(const ctk_kv_t *a, size_t na, const ctk_kv_t *b, size_t nb)
{
    size_t i;

    if (na != nb)
        return false;
    for (i = 0; i < na; i++)
        if (!str_eq(a[i].name, b[i].name) || !str_eq(a[i].value, b[i].value))
            return false;
    return true;
}

/* Same content (positions and source aside); a missing module version
 * means the version, as the header says. */
static bool sdk_eq(const ctk_sdk_conf_t *a, const ctk_sdk_conf_t *b)
{
    size_t i;

    if (!str_eq(a->module_version ? a->module_version : a->version,
                b->module_version ? b->module_version : b->version))
        return false;
    if (!str_eq(a->version, b->version) || !str_eq(a->base, b->base) ||
        !str_eq(a->math_libs, b->math_libs) || !str_eq(a->nvvm, b->nvvm) ||
        !str_eq(a->cupti, b->cupti) || !str_eq(a->nccl, b->nccl) ||
        !str_eq(a->nvshmem, b->nvshmem) ||
        !str_eq(a->host_compiler_module, b->host_compiler_module) ||
        !str_eq(a->host_compiler_ccbin, b->host_compiler_ccbin) || !str_eq(a->help, b->help) ||
        !env_eq(a->env, a->n_env, b->env, b->n_env) ||
        !env_eq(a->properties, a->n_properties, b->properties, b->n_properties) ||
        a->n_aliases != b->n_aliases)
        return false;
    for (i = 0; i < a->n_aliases; i++)
        if (!str_eq(a->aliases[i], b->aliases[i]))
            return false;
    return true;
}

static bool strs_eq(char *const *a, size_t na, char *const *b, size_t nb)
{
    size_t i;

    if (na != nb)
        return false;
    for (i = 0; i < na; i++)
        if (!str_eq(a[i], b[i]))
            return false;
    return true;
}

static bool partition_eq(const ctk_partition_conf_t *a, const ctk_partition_conf_t *b)
{
    return str_eq(a->name, b->name) && str_eq(a->gres, b->gres) &&
           str_eq(a->account, b->account) && str_eq(a->qos, b->qos) &&
           str_eq(a->time, b->time) && str_eq(a->constraint, b->constraint) &&
           strs_eq(a->extra_args, a->n_extra_args, b->extra_args, b->n_extra_args);
}

static bool validation_eq(const ctk_validation_conf_t *a, const ctk_validation_conf_t *b)
{
    size_t i;

    if (a->present != b->present || !str_eq(a->launcher, b->launcher) ||
        !str_eq(a->build, b->build) || a->queue_timeout_s != b->queue_timeout_s ||
        !str_eq(a->stage_dir, b->stage_dir) || a->n_partitions != b->n_partitions)
        return false;
    for (i = 0; i < a->n_partitions; i++)
        if (!partition_eq(&a->partitions[i], &b->partitions[i]))
            return false;
    return true;
}

static bool config_eq(const ctk_config_t *a, const ctk_config_t *b)
{
    size_t i;

    if (!str_eq(a->module_name, b->module_name) || !str_eq(a->family, b->family) ||
        !str_eq(a->default_version, b->default_version) || !str_eq(a->pc_prefix, b->pc_prefix) ||
        !str_eq(a->pkgconfig_dir, b->pkgconfig_dir) || a->pc_rpath != b->pc_rpath ||
        a->full_version_aliases != b->full_version_aliases ||
        !str_eq(a->help, b->help) || !env_eq(a->env, a->n_env, b->env, b->n_env) ||
        !env_eq(a->properties, a->n_properties, b->properties, b->n_properties) ||
        !validation_eq(&a->validation, &b->validation) || a->n_sdks != b->n_sdks)
        return false;
    for (i = 0; i < a->n_sdks; i++)
        if (!sdk_eq(&a->sdks[i], &b->sdks[i]))
            return false;
    return true;
}

#define ck_assert_pos(p, l, c)                                                                     \
    do {                                                                                           \
        ck_assert_int_eq((p).line, (l));                                                           \
        ck_assert_int_eq((p).column, (c));                                                         \
    } while (0)

/* ---- error tables ---------------------------------------------------------- */

typedef struct {
    const char *json;   /* ' stands for " */
    ctk_errcode_t code;
    int line, column;   /* 1-based; columns count bytes */
    const char *text;   /* CTK_E_JSON: a fragment of jansson's text; else all of it */
} bad_case_t;

/* The few case texts that hold a second mistake, independent of the one
 * the case is about, by a fragment of each; the others make one error. */
static const char *const two_mistakes[] = {
    "['gpu', {'name': 'gpu', 'extra_args': ['--part=x']}]",
    "['gpu', {'extra_args': ['--part=x'], 'name': 'gpu'}]",
    "'extra_args': ['-J', 'x']",
    "'env': {'LDFLAGS': '-y'}",
};

static size_t errors_in(const char *json)
{
    size_t i;

    for (i = 0; i < sizeof two_mistakes / sizeof two_mistakes[0]; i++)
        if (strstr(json, two_mistakes[i]))
            return 2;
    return 1;
}

/* Every error of the text as ctk_config_load_string_all() reports them,
 * into errs (initialised here; the caller finis it). */
static ctk_config_t *load_all(const char *single_quoted, ctk_errlist_t *errs, ctk_error_t *err)
{
    char *text = dq(single_quoted);
    ctk_config_t *cfg;

    ctk_errlist_init(errs, 0);
    ctk_error_init(err);
    cfg = ctk_config_load_string_all(text, strlen(text), "site.json", errs, err);
    free(text);
    return cfg;
}

/* A case's one mistake makes one error: the list of every error holds
 * that one alone, no follow-up of it (or, for two_mistakes, one more),
 * and it comes first. */
static void expect_one_error(const bad_case_t *bc, const ctk_error_t *first)
{
    ctk_errlist_t errs;
    ctk_error_t err;
    size_t i, want = errors_in(bc->json);

    ck_assert_ptr_null(load_all(bc->json, &errs, &err));
    for (i = 0; errs.n != want && i < errs.n; i++)
        fprintf(stderr, "error %zu of %zu: %d:%d: %s\n", i + 1, errs.n, errs.items[i].line,
                errs.items[i].column, errs.items[i].text);
    ck_assert_msg(errs.n == want && errs.dropped == 0, "%zu errors (+%zu), want %zu: %s", errs.n,
                  errs.dropped, want, bc->json);
    ck_assert_int_eq(errs.items[0].code, first->code);
    ck_assert_int_eq(errs.items[0].line, first->line);
    ck_assert_int_eq(errs.items[0].column, first->column);
    ck_assert_str_eq(errs.items[0].text, first->text);
    ck_assert_int_eq(err.code, first->code);
    ck_assert_str_eq(err.text, first->text);
    ctk_errlist_fini(&errs);
}

static void expect_error(const bad_case_t *bc)
{
    ctk_error_t err;
    ctk_config_t *cfg = load(bc->json, &err);

    ck_assert_msg(cfg == NULL, "loaded: %s", bc->json);
    ck_assert_msg(err.code == bc->code, "code %s, want %s (%s)", ctk_error_code_name(err.code),
                  ctk_error_code_name(bc->code), err.text);
    ck_assert_str_eq(err.source, "site.json");
    if (bc->code == CTK_E_JSON)
        ck_assert_msg(strstr(err.text, bc->text) != NULL, "text \"%s\" lacks \"%s\"", err.text,
                      bc->text);
    else
        ck_assert_str_eq(err.text, bc->text);
    ck_assert_msg(err.line == bc->line && err.column == bc->column,
                  "at %d:%d, want %d:%d (%s)", err.line, err.column, bc->line, bc->column,
                  err.text);
    if (bc->code == CTK_E_CONFIG)
        expect_one_error(bc, &err);
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const bad_case_t bad_json[] = {
    { "{'sdks': [],}",
      CTK_E_JSON, 1, 13,
      "string or '}' expected near '}'; JSON allows no trailing comma: remove the comma before "
      "'}' (line 1, column 12)" },
    /* the comma at the end of one line, the '}' or ']' on the next */
    { "{\n"
      "  'sdks': [{'version': '12.4', 'base': '/x'}],\n"
      "}",
      CTK_E_JSON, 3, 1,
      "string or '}' expected near '}'; JSON allows no trailing comma: remove the comma before "
      "'}' (line 2, column 46)" },
    { "{\n"
      "  'sdks': [\n"
      "    {'version': '12.4', 'base': '/x'},\n"
      "  ]\n"
      "}",
      CTK_E_JSON, 4, 3,
      "unexpected token near ']'; JSON allows no trailing comma: remove the comma before ']' "
      "(line 3, column 38)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', \t\r\n }]}",
      CTK_E_JSON, 2, 2,
      "string or '}' expected near '}'; JSON allows no trailing comma: remove the comma before "
      "'}' (line 1, column 43)" },
    { "{\n"
      "  // CUDA toolkits\n"
      "  'sdks': []\n"
      "}",
      CTK_E_JSON, 2, 3,
      "string or '}' expected near '/'; JSON has no comments: remove the '//' comment" },
    { "{'sdks': [] /* none yet */}",
      CTK_E_JSON, 1, 13,
      "'}' expected near '/'; JSON has no comments: remove the '/* */' comment" },
    { "{'sdks': []} // the end",
      CTK_E_JSON, 1, 14,
      "end of file expected near '/'; JSON has no comments: remove the '//' comment" },
    { "{\n"
      "  'module_name': 'x'\n"
      "  'sdks': []\n"
      "}",
      CTK_E_JSON, 3, 3,
      "'}' expected" },
    { "{'pc_rpath': tru}",
      CTK_E_JSON, 1, 14,
      "invalid token" },
    { "{'help': 'abc\n"
      "'}",
      CTK_E_JSON, 1, 10,
      "unexpected newline" },
    { "{'sdks': [",
      CTK_E_JSON, 1, 11,
      "end of file" },
    { "{'help': 'h\xc3\xa9llo w\xc3\xb6rld', 'pc_rpath': nul}",
      CTK_E_JSON, 1, 39,
      "invalid token" },
    { "{}\n"
      "  x",
      CTK_E_JSON, 2, 3,
      "end of file expected" },
    { "",
      CTK_E_JSON, 1, 1,
      "end of file" },
    { "{'help': 'a\xff" "b'}",
      CTK_E_JSON, 1, 12,
      "unable to decode byte 0xff" },
    { "{\n"
      "  'sdks': [],\n"
      "  'sdks': []\n"
      "}",
      CTK_E_JSON, 3, 3,
      "duplicate object key" },
    { "{'x': 123456789012345678901234567890}",
      CTK_E_JSON, 1, 7,
      "too big integer" },
    { "{'help': 'a\tb'}",
      CTK_E_JSON, 1, 10,
      "control character 0x9" },
    { "{\r\n"
      "  'help': 'x',\r\n"
      "  'sdks': [}\r\n"
      "}",
      CTK_E_JSON, 3, 12,
      "unexpected token" },
};

static const bad_case_t unknown_keys[] = {
    { "{\n"
      "  'sdks': [\n"
      "    {\n"
      "      'version': '12.4',\n"
      "      'bsae': '/usr/local/cuda-12.4'\n"
      "    }\n"
      "  ]\n"
      "}",
      CTK_E_CONFIG, 5, 7,
      "/sdks/0/bsae: unknown key (did you mean \"base\"?)" },
    { "{'modul_name': 'x', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 2,
      "/modul_name: unknown key (did you mean \"module_name\"?)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x'}], 'Default': '12.4'}",
      CTK_E_CONFIG, 1, 47,
      "/Default: unknown key (did you mean \"default\"?)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x'}], 'frobnicate': 1}",
      CTK_E_CONFIG, 1, 47,
      "/frobnicate: unknown key" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'comm_libs': {'ncl': '/n'}}]}",
      CTK_E_CONFIG, 1, 59,
      "/sdks/0/comm_libs/ncl: unknown key (did you mean \"nccl\"?)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'cbin': '/usr/bin/g++'}}]}",
      CTK_E_CONFIG, 1, 63,
      "/sdks/0/host_compiler/cbin: unknown key (did you mean \"ccbin\"?)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'nccl': '/n'}]}",
      CTK_E_CONFIG, 1, 45,
      "/sdks/0/nccl: unknown key (\"nccl\" belongs inside \"comm_libs\")" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'ccbin': '/usr/bin/g++'}]}",
      CTK_E_CONFIG, 1, 45,
      "/sdks/0/ccbin: unknown key (\"ccbin\" belongs inside \"host_compiler\")" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'default': true}]}",
      CTK_E_CONFIG, 1, 45,
      "/sdks/0/default: unknown key (\"default\" is a top-level key)" },
    { "{'base': '/x', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 2,
      "/base: unknown key (\"base\" belongs inside an entry of \"sdks\")" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'b\\u0061d/k~y': 1}]}",
      CTK_E_CONFIG, 1, 45,
      "/sdks/0/bad~1k~0y: unknown key" },
    { "{\r\n"
      "  'sdks': [\r\n"
      "    {'version': '12.4', 'bsae': '/x'}\r\n"
      "  ]\r\n"
      "}",
      CTK_E_CONFIG, 3, 25,
      "/sdks/0/bsae: unknown key (did you mean \"base\"?)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'help': 'h\xc3\xa9lp', 'versoin': '1'}]}",
      CTK_E_CONFIG, 1, 62,
      "/sdks/0/versoin: unknown key (did you mean \"version\"?)" },
};

static const bad_case_t wrong_types[] = {
    { "[{'version': '12.4', 'base': '/x'}]",
      CTK_E_CONFIG, 1, 1,
      "/: expected an object, got array" },
    { "{'module_name': 1, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/module_name: expected a string, got number; write \"1\" in quotes" },
    { "{'pc_rpath': 'yes', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 14,
      "/pc_rpath: expected true or false, got string" },
    { "{'full_version_aliases': 1, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 26,
      "/full_version_aliases: expected true or false, got number" },
    { "{'sdks': {}}",
      CTK_E_CONFIG, 1, 10,
      "/sdks: expected an array of SDK objects, got object" },
    { "{'sdks': [{'version': '12.4', 'base': '/x'}, '12.6']}",
      CTK_E_CONFIG, 1, 46,
      "/sdks/1: expected an SDK object, got string" },
    { "{'sdks': [{'version': 12.4, 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: expected a string, got number; write \"12.4\" in quotes" },
    /* the number as written: 13.0 and 12.10, not 13 and 12.1 */
    { "{'sdks': [{'version': 13.0, 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: expected a string, got number; write \"13.0\" in quotes" },
    { "{'sdks': [{'version': '12.10', 'name': 12.10, 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 40,
      "/sdks/0/name: expected a string, got number; write \"12.10\" in quotes" },
    { "{'default': 13, 'sdks': [{'version': '13.0', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 13,
      "/default: expected a string, got number; write \"13\" in quotes" },
    { "{'module_name': -1e3, 'sdks': [{'version': '13.0', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/module_name: expected a string, got number; write \"-1e3\" in quotes" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'aliases': ['12', 12.0]}]}",
      CTK_E_CONFIG, 1, 63,
      "/sdks/0/aliases/1: expected a string, got number; write \"12.0\" in quotes" },
    { "{'sdks': [{'version': '12.4', 'base': null}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/base: expected a string, got null" },
    { "{'env': [], 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 9,
      "/env: expected an object of NAME: \"value\", got array" },
    { "{'env': {'FOO': 1}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/env/FOO: expected a string, got number; write \"1\" in quotes" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'aliases': '12'}]}",
      CTK_E_CONFIG, 1, 56,
      "/sdks/0/aliases: expected an array of strings, got string" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'aliases': ['12', true]}]}",
      CTK_E_CONFIG, 1, 63,
      "/sdks/0/aliases/1: expected a string, got boolean" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'comm_libs': '/n'}]}",
      CTK_E_CONFIG, 1, 58,
      "/sdks/0/comm_libs: expected an object, got string" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': ['gcc/12']}]}",
      CTK_E_CONFIG, 1, 62,
      "/sdks/0/host_compiler: expected an object, got array" },
    { "{'$schema': 1.5, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 13,
      "/$schema: expected a string, got number; write \"1.5\" in quotes" },
    { "{'help': '', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/help: expected a non-empty string" },
    { "{'default': ['12.4'], 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 13,
      "/default: expected a string, got array" },
};

static const bad_case_t missing[] = {
    { "{}",
      CTK_E_CONFIG, 1, 1,
      "/: missing required key \"sdks\"" },
    { "  {'module_name': 'x'}",
      CTK_E_CONFIG, 1, 3,
      "/: missing required key \"sdks\"" },
    { "{'sdks': []}",
      CTK_E_CONFIG, 1, 10,
      "/sdks: expected at least one SDK" },
    { "{'sdks': [\n"
      "  {'version': '12.4'}\n"
      "]}",
      CTK_E_CONFIG, 2, 3,
      "/sdks/0: missing required key \"base\"" },
    { "{'sdks': [{'version': '12.4', 'base': '/x'}, {'base': '/y'}]}",
      CTK_E_CONFIG, 1, 46,
      "/sdks/1: missing required key \"version\"" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'comm_libs': {}}]}",
      CTK_E_CONFIG, 1, 58,
      "/sdks/0/comm_libs: expected \"nccl\", \"nvshmem\" or both" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {}}]}",
      CTK_E_CONFIG, 1, 62,
      "/sdks/0/host_compiler: expected \"module\", \"ccbin\" or both" },
    { "{'sdks': [{'version': '12.4', 'base': ''}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/base: expected a non-empty string" },
};

static const bad_case_t bad_versions[] = {
    { "{'sdks': [{'version': '12', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '12.', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12.\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \".4\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '12.4.1.0', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12.4.1.0\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': 'v12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"v12.4\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '12.x', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12.x\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': ' 12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \" 12.4\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '013.0', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"013.0\" is not a CUDA version: a part has a leading zero (CUDA writes \"13.0\", not \"013.0\")" },
    { "{'sdks': [{'version': '12.04', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12.04\" is not a CUDA version: a part has a leading zero (CUDA writes \"13.0\", not \"013.0\")" },
    { "{'sdks': [{'version': '12-4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12-4\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '12..4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12..4\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '12.4.', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"12.4.\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
    { "{'sdks': [{'version': '\xd9\xa1\xd9\xa2.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 23,
      "/sdks/0/version: \"\xd9\xa1\xd9\xa2.4\" is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, e.g. \"12.4\"" },
};

static const bad_case_t bad_paths[] = {
    { "{'sdks': [{'version': '12.4', 'base': 'cuda-12.4'}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/base: \"cuda-12.4\" is not an absolute path" },
    { "{'sdks': [{'version': '12.4', 'base': '~/cuda'}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/base: \"~/cuda\" is not an absolute path" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'math_libs': '/opt/a\\nb'}]}",
      CTK_E_CONFIG, 1, 58,
      "/sdks/0/math_libs: path contains a newline, which pkg-config files and search-path variables cannot express" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'nvvm': '/opt/a\\tb'}]}",
      CTK_E_CONFIG, 1, 53,
      "/sdks/0/nvvm: path contains control character 0x09, which pkg-config files and search-path variables cannot express" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'cupti': '/opt/a\\u007fb'}]}",
      CTK_E_CONFIG, 1, 54,
      "/sdks/0/cupti: path contains control character 0x7f, which pkg-config files and search-path variables cannot express" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'comm_libs': {'nvshmem': '/opt/a:b'}}]}",
      CTK_E_CONFIG, 1, 70,
      "/sdks/0/comm_libs/nvshmem: path contains ':', which separates entries of search-path variables (PATH, LD_LIBRARY_PATH, CPATH) and so cannot be part of one" },
    { "{'sdks': [{'version': '12.4', 'base': '/opt/${x}'}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/base: path contains \"${\", which pkg-config always expands as a variable" },
    { "{'pkgconfig_dir': 'share/pkgconfig', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 19,
      "/pkgconfig_dir: \"share/pkgconfig\" is not an absolute path" },
    { "{'pkgconfig_dir': '/a:/b', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 19,
      "/pkgconfig_dir: path contains ':', which separates entries of search-path variables (PATH, LD_LIBRARY_PATH, CPATH) and so cannot be part of one" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'ccbin': 'g++'}}]}",
      CTK_E_CONFIG, 1, 72,
      "/sdks/0/host_compiler/ccbin: \"g++\" is not an absolute path" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'ccbin': '/usr/bin/g\\n++'}}]}",
      CTK_E_CONFIG, 1, 72,
      "/sdks/0/host_compiler/ccbin: path contains a newline, which a modulefile cannot express" },
};

static const bad_case_t bad_names[] = {
    { "{'module_name': '.hidden', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/module_name: module_name \".hidden\" must not start with '.'" },
    { "{'module_name': 'cuda toolkit', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/module_name: module_name \"cuda toolkit\" contains 0x20; use letters, digits, '.', '_', '+' and '-'" },
    { "{'family': 'cuda/x', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 12,
      "/family: family \"cuda/x\" contains '/'; use letters, digits, '.', '_', '+' and '-'" },
    { "{'pc_prefix': 'ctk$', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 15,
      "/pc_prefix: pc_prefix \"ctk$\" contains '$'; use letters, digits, '.', '_', '+' and '-'" },
    { "{'sdks': [{'version': '12.4', 'name': 'default', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/name: name \"default\" is reserved: module systems read it as the default marker" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'aliases': ['12', '.12']}]}",
      CTK_E_CONFIG, 1, 63,
      "/sdks/0/aliases/1: alias \".12\" must not start with '.'" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'aliases': ['default']}]}",
      CTK_E_CONFIG, 1, 57,
      "/sdks/0/aliases/0: alias \"default\" is reserved: module systems read it as the default marker" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'module': 'gcc//12'}}]}",
      CTK_E_CONFIG, 1, 73,
      "/sdks/0/host_compiler/module: module \"gcc//12\" has an empty part; write it as \"name/version\"" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'module': '/gcc'}}]}",
      CTK_E_CONFIG, 1, 73,
      "/sdks/0/host_compiler/module: module \"/gcc\" has an empty part; write it as \"name/version\"" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'module': 'gcc/'}}]}",
      CTK_E_CONFIG, 1, 73,
      "/sdks/0/host_compiler/module: module \"gcc/\" has an empty part; write it as \"name/version\"" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'module': 'gcc 12'}}]}",
      CTK_E_CONFIG, 1, 73,
      "/sdks/0/host_compiler/module: module \"gcc 12\" contains 0x20; use letters, digits, '.', '_', '+', '-' and '/'" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'host_compiler': {'module': 'gcc/.12'}}]}",
      CTK_E_CONFIG, 1, 73,
      "/sdks/0/host_compiler/module: module \"gcc/.12\" has a part starting with '.'" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'help': 'a\\u0001b'}]}",
      CTK_E_CONFIG, 1, 53,
      "/sdks/0/help: help text contains control character 0x01, which a Tcl modulefile cannot express" },
};

static const bad_case_t duplicates[] = {
    /* ctk-cublas-13.0.pc is SDK 13.0's cuBLAS .pc: no SDK may take that name */
    { "{'sdks': [{'version': '13.0', 'base': '/a'}, {'version': '13.0', 'name': 'cublas-13.0', 'base': '/b'}]}",
      CTK_E_CONFIG, 1, 74,
      "/sdks/1/name: name \"cublas-13.0\" would be written to ctk-cublas-13.0.pc, the cublas .pc file of /sdks/0: choose another" },
    { "{'sdks': [\n"
      "  {'version': '12.4', 'base': '/a'},\n"
      "  {'version': '12.6', 'base': '/b'},\n"
      "  {'version': '12.4', 'base': '/c'}\n"
      "]}",
      CTK_E_CONFIG, 4, 15,
      "/sdks/2/version: duplicate version \"12.4\" (also /sdks/0)" },
    { "{'sdks': [{'version': '12.4', 'base': '/a'}, {'version': '12.6', 'name': '12.4', 'base': '/b'}]}",
      CTK_E_CONFIG, 1, 74,
      "/sdks/1/name: duplicate name \"12.4\" (also /sdks/0)" },
    { "{'sdks': [{'version': '12.4', 'base': '/a', 'aliases': ['12']}, {'version': '12.6', 'base': '/b', 'aliases': ['12']}]}",
      CTK_E_CONFIG, 1, 111,
      "/sdks/1/aliases/0: duplicate alias \"12\" (also /sdks/0/aliases/0)" },
    { "{'sdks': [{'version': '12.4', 'base': '/a', 'aliases': ['12', '12.6']}, {'version': '12.6', 'base': '/b'}]}",
      CTK_E_CONFIG, 1, 63,
      "/sdks/0/aliases/1: alias \"12.6\" is already the version of /sdks/1" },
    { "{'sdks': [{'version': '12.4', 'base': '/a', 'aliases': ['12.4']}]}",
      CTK_E_CONFIG, 1, 57,
      "/sdks/0/aliases/0: alias \"12.4\" is already the version of /sdks/0" },
    { "{'sdks': [{'version': '12.4', 'base': '/a', 'aliases': ['x', 'x']}]}",
      CTK_E_CONFIG, 1, 62,
      "/sdks/0/aliases/1: duplicate alias \"x\" (also /sdks/0/aliases/0)" },
    { "{'default': '12.5', 'sdks': [{'version': '12.4', 'base': '/a'}, {'version': '12.6', 'name': 'hpcsdk', 'base': '/b'}]}",
      CTK_E_CONFIG, 1, 13,
      "/default: \"12.5\" is not the version or alias of any SDK (versions: 12.4, hpcsdk)" },
    { "{'default': '12.6', 'sdks': [{'version': '12.4', 'base': '/a'}, {'version': '12.6', 'name': 'hpcsdk', 'base': '/b'}]}",
      CTK_E_CONFIG, 1, 13,
      "/default: \"12.6\" is not the version or alias of any SDK (versions: 12.4, hpcsdk)" },
};

/* One mistake, one error: what other rules would read from a bad value
 * is not judged again (the list of every error holds the one). */
static const bad_case_t follow_ups[] = {
    /* "default" is not checked against the versions when one was bad */
    { "{'default': '12', 'sdks': [{'version': 12, 'base': '/a'}]}",
      CTK_E_CONFIG, 1, 40,
      "/sdks/0/version: expected a string, got number; write \"12\" in quotes" },
    /* a bad name is not replaced by the version, which would clash */
    { "{'sdks': [{'version': '12.4', 'name': 'a/b', 'base': '/a'}, {'version': '12.4', 'base': '/b'}]}",
      CTK_E_CONFIG, 1, 39,
      "/sdks/0/name: name \"a/b\" contains '/'; use letters, digits, '.', '_', '+' and '-'" },
    /* "default" may name the alias that was bad */
    { "{'default': 'a b', 'sdks': [{'version': '12.4', 'base': '/a', 'aliases': ['a b']}]}",
      CTK_E_CONFIG, 1, 75,
      "/sdks/0/aliases/0: alias \"a b\" contains 0x20; use letters, digits, '.', '_', '+' and '-'" },
    /* a bad module_name makes no <MODULE_NAME>_VERSION of its own */
    { "{'module_name': 'a b', 'env': {'A_B_VERSION': '1'}, 'sdks': [{'version': '12.4', 'base': '/a'}]}",
      CTK_E_CONFIG, 1, 17,
      "/module_name: module_name \"a b\" contains 0x20; use letters, digits, '.', '_', '+' and '-'" },
    /* a partition with no name is no duplicate of a later one */
    { "{'validation': {'partitions': [{'gres': 'gpu:1'}, 'a']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: missing required key \"name\"" },
    { "{'default': '12.4', 'sdks': [5, {'version': '12.6', 'base': '/a'}]}",
      CTK_E_CONFIG, 1, 30,
      "/sdks/0: expected an SDK object, got number" },
    /* a misspelt required key is not also missing, and the version it
       would have given may be the default */
    { "{'default': '12.4', 'sdks': [{'verison': '12.4', 'base': '/a'}]}",
      CTK_E_CONFIG, 1, 31,
      "/sdks/0/verison: unknown key (did you mean \"version\"?)" },
    /* two refused entries, and not also "set in two places" */
    { "{'env': {'LDFLAGS': '-x'}, 'sdks': [{'version': '12.4', 'base': '/a', 'env': {'LDFLAGS': '-y'}}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/LDFLAGS: refused: a module that sets LDFLAGS breaks users' builds, which read it as "
      "their own flags (configure, CMake, pip); users get the toolkit's flags from its pkg-config "
      "file instead" },
};

static const bad_case_t bad_properties[] = {
    { "{'properties': ['arch'], 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 16,
      "/properties: expected an object of NAME: \"value\" (Lmod's add_property), got array" },
    { "{'properties': {'arch': 1}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 25,
      "/properties/arch: expected a string, got number; write \"1\" in quotes" },
    { "{'properties': {'arch': ''}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 25,
      "/properties/arch: an empty property value (leave the property out to not set it)" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'properties': {'arch': 'gpu mic'}}]}",
      CTK_E_CONFIG, 1, 68,
      "/sdks/0/properties/arch: property value \"gpu mic\" contains 0x20; use letters, digits, '.', '_' and '-'" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'properties': {'ar\\u0022ch': 'gpu'}}]}",
      CTK_E_CONFIG, 1, 60,
      "/sdks/0/properties/ar\"ch: property name \"ar\\\"ch\" contains '\"'; use letters, digits, '.', '_' and '-'" },
    { "{'properties': {'': 'gpu'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/properties/: an empty property name names no property" },
    { "{'properties': {'a+b': 'gpu'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/properties/a+b: property name \"a+b\" contains '+'; use letters, digits, '.', '_' and '-'" },
    { "{'properties': {'state': 'a]b'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 26,
      "/properties/state: property value \"a]b\" contains ']'; use letters, digits, '.', '_' and '-'" },
    { "{'properties': {'arch': 'x12345678901234567890123456789012345678901234567890123456789012345'},"
      " 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 25,
      "/properties/arch: property value \"x12345678901234567890123456789012345678901234567890123456789012345\" "
      "is longer than 64 bytes" },
};

static const bad_case_t bad_env[] = {
    { "{'env': {'A': 'x\\ntouch /tmp/M'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 15,
      "/env/A: a value may not hold a newline: the module systems write it into shell code unescaped, and the next line would run as a command" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'env': {'B': 'x\\n'}}]}",
      CTK_E_CONFIG, 1, 58,
      "/sdks/0/env/B: a value may not hold a newline: the module systems write it into shell code unescaped, and the next line would run as a command" },
    { "{'env': {'A': '~/x'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 15,
      "/env/A: a value may not have '~' at its start or after ':': Environment Modules leaves it for the shell, which makes it a home directory" },
    { "{'env': {'A': '/a:~root/b'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 15,
      "/env/A: a value may not have '~' at its start or after ':': Environment Modules leaves it for the shell, which makes it a home directory" },
    { "{'env': {'1X': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/1X: \"1X\" is not an environment variable name; use letters, digits and '_', not starting with a digit" },
    { "{'env': {'A-B': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/A-B: \"A-B\" is not an environment variable name; use letters, digits and '_', not starting with a digit" },
    { "{'env': {'': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/: an empty name is not an environment variable name" },
    { "{'env': {'LDFLAGS': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/LDFLAGS: refused: a module that sets LDFLAGS breaks users' builds, which read it as their own flags (configure, CMake, pip); users get the toolkit's flags from its pkg-config file instead" },
    { "{'env': {'CFLAGS': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/CFLAGS: refused: a module that sets CFLAGS breaks users' builds, which read it as their own flags (configure, CMake, pip); users get the toolkit's flags from its pkg-config file instead" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'env': {'CXXFLAGS': '-O2'}}]}",
      CTK_E_CONFIG, 1, 53,
      "/sdks/0/env/CXXFLAGS: refused: a module that sets CXXFLAGS breaks users' builds, which read it as their own flags (configure, CMake, pip); users get the toolkit's flags from its pkg-config file instead" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'env': {'CPPFLAGS': '-I/x'}}]}",
      CTK_E_CONFIG, 1, 53,
      "/sdks/0/env/CPPFLAGS: refused: a module that sets CPPFLAGS breaks users' builds, which read it as their own flags (configure, CMake, pip); users get the toolkit's flags from its pkg-config file instead" },
    { "{'env': {'PATH': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/PATH: PATH is set by the generated module itself" },
    { "{'env': {'LD_LIBRARY_PATH': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/LD_LIBRARY_PATH: LD_LIBRARY_PATH is set by the generated module itself" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'env': {'CUDA_HOME': '/x'}}]}",
      CTK_E_CONFIG, 1, 53,
      "/sdks/0/env/CUDA_HOME: CUDA_HOME is set by the generated module itself" },
    { "{'sdks': [{'version': '12.4', 'base': '/x', 'env': {'CUDAToolkit_ROOT': '/x'}}]}",
      CTK_E_CONFIG, 1, 53,
      "/sdks/0/env/CUDAToolkit_ROOT: CUDAToolkit_ROOT is set by the generated module itself" },
    { "{'env': {'NVCC_CCBIN': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/NVCC_CCBIN: the host compiler goes in host_compiler.ccbin, from which the generated module sets NVCC_PREPEND_FLAGS (-ccbin=PATH, read by every nvcc; 11.8 and 12.4 ignore NVCC_CCBIN) and CUDAHOSTCXX (CMake)" },
    { "{'env': {'CUDAHOSTCXX': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/CUDAHOSTCXX: the host compiler goes in host_compiler.ccbin, from which the generated module sets NVCC_PREPEND_FLAGS (-ccbin=PATH, read by every nvcc; 11.8 and 12.4 ignore NVCC_CCBIN) and CUDAHOSTCXX (CMake)" },
    { "{'env': {'NVCC_PREPEND_FLAGS': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/NVCC_PREPEND_FLAGS: the host compiler goes in host_compiler.ccbin, from which the generated module sets NVCC_PREPEND_FLAGS (-ccbin=PATH, read by every nvcc; 11.8 and 12.4 ignore NVCC_CCBIN) and CUDAHOSTCXX (CMake)" },
    { "{'env': {'CUDATOOLKIT_VERSION': 'v'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 10,
      "/env/CUDATOOLKIT_VERSION: CUDATOOLKIT_VERSION is set by the generated module itself" },
    { "{'module_name': 'cuda-tk', 'sdks': [{'version': '12.4', 'base': '/x', 'env': {'CUDA_TK_VERSION': '1'}}]}",
      CTK_E_CONFIG, 1, 79,
      "/sdks/0/env/CUDA_TK_VERSION: CUDA_TK_VERSION is set by the generated module itself" },
    { "{'env': {'FOO': ''}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/env/FOO: expected a non-empty string (leave FOO out to not set it)" },
    { "{'env': {'FOO': 'a\\u001bb'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/env/FOO: value contains control character 0x1b, which a Tcl modulefile cannot express" },
    { "{'env': {'SITE': 'a'}, 'sdks': [{'version': '12.4', 'base': '/x', 'env': {'OTHER': 'b', 'SITE': 'c'}}]}",
      CTK_E_CONFIG, 1, 89,
      "/sdks/0/env/SITE: SITE is also set in /env; set it in one place" },
};

/* "validation": each rule, each key; the text names the key and its pointer */
static const bad_case_t bad_validation[] = {
    { "{'validation': {'lanucher': 'slurm'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/validation/lanucher: unknown key (did you mean \"launcher\"?)" },
    { "{'validation': {'launcher': 'slurm', 'stagedir': '/s'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 38,
      "/validation/stagedir: unknown key (did you mean \"stage_dir\"?)" },
    { "{'validation': {'gres': 'gpu:1'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/validation/gres: unknown key (\"gres\" belongs inside an entry of \"partitions\")" },
    { "{'validation': {'modulecmd': '/m'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 17,
      "/validation/modulecmd: unknown key (\"modulecmd\" is a top-level key)" },
    { "{'launcher': 'slurm', 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 2,
      "/launcher: unknown key (\"launcher\" belongs inside \"validation\")" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'stage_dir': '/s'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 48,
      "/validation/partitions/0/stage_dir: unknown key (\"stage_dir\" belongs inside \"validation\", not a partition)" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gress': 'gpu:1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 48,
      "/validation/partitions/0/gress: unknown key (did you mean \"gres\"?)" },
    { "{'validation': {'partitions': ['a', {'name': 'b', 'mem': '4G'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 51,
      "/validation/partitions/1/mem: unknown key" },
    { "{'validation': [], 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 16,
      "/validation: expected an object, got array" },
    { "{'validation': {'launcher': 1}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 29,
      "/validation/launcher: expected a string, got number; write \"1\" in quotes" },
    { "{'validation': {'build': null}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 26,
      "/validation/build: expected a string, got null" },
    { "{'validation': {'queue_timeout': '600'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: expected a number of seconds, got string; write 600 without quotes" },
    { "{'validation': {'queue_timeout': '10m'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: expected a number of seconds, got string" },
    { "{'validation': {'queue_timeout': true}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: expected a number of seconds, got boolean" },
    { "{'validation': {'stage_dir': ['/s']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: expected a string, got array" },
    { "{'validation': {'partitions': 'gpu'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 31,
      "/validation/partitions: expected an array of partition names or objects, got string" },
    { "{'validation': {'partitions': ['gpu', 5]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 39,
      "/validation/partitions/1: expected a partition name or object, got number" },
    { "{'validation': {'partitions': [['gpu']]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: expected a partition name or object, got array" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': '--exclusive'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 62,
      "/validation/partitions/0/extra_args: expected an array of strings, got string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', 1]}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: expected a string, got number; write \"1\" in quotes" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 1}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: expected a string, got number; write \"1\" in quotes" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': 5}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: expected a string, got number; write \"5\" in quotes" },
    { "{'validation': {'partitions': [{'gres': 'gpu:1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: missing required key \"name\"" },
    { "{'validation': {'launcher': ''}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 29,
      "/validation/launcher: expected a non-empty string" },
    { "{'validation': {'stage_dir': ''}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: expected a non-empty string" },
    { "{'validation': {'partitions': ['']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: expected a non-empty string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'account': ''}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 59,
      "/validation/partitions/0/account: expected a non-empty string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'qos': ''}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 55,
      "/validation/partitions/0/qos: expected a non-empty string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'constraint': ''}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 62,
      "/validation/partitions/0/constraint: expected a non-empty string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': ''}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: expected a non-empty string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': ''}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: expected a non-empty string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: expected a non-empty string" },
    { "{'validation': {'launcher': 'pbs'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 29,
      "/validation/launcher: launcher \"pbs\" is not \"local\" or \"slurm\"" },
    { "{'validation': {'launcher': 'Slurm'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 29,
      "/validation/launcher: launcher \"Slurm\" is not \"local\" or \"slurm\" (did you mean \"slurm\"?)" },
    { "{'validation': {'build': 'node'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 26,
      "/validation/build: build \"node\" is not \"login\" or \"compute\"" },
    { "{'validation': {'build': 'compute '}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 26,
      "/validation/build: build \"compute \" is not \"login\" or \"compute\" (did you mean \"compute\"?)" },
    { "{'validation': {'queue_timeout': 0}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: queue_timeout 0 is out of range: give more than 0 and at most 604800 seconds (7 days)" },
    { "{'validation': {'queue_timeout': -5}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: queue_timeout -5 is out of range: give more than 0 and at most 604800 seconds (7 days)" },
    { "{'validation': {'queue_timeout': 604801}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: queue_timeout 604801 is out of range: give more than 0 and at most 604800 seconds (7 days)" },
    { "{'validation': {'queue_timeout': 604800.5}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: queue_timeout 604800.5 is out of range: give more than 0 and at most 604800 seconds (7 days)" },
    { "{'validation': {'queue_timeout': 1e9}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 34,
      "/validation/queue_timeout: queue_timeout 1e9 is out of range: give more than 0 and at most 604800 seconds (7 days)" },
    { "{'validation': {'stage_dir': 'scratch/stage'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: \"scratch/stage\" is not an absolute path" },
    { "{'validation': {'stage_dir': '~/stage'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: \"~/stage\" is not an absolute path" },
    { "{'validation': {'stage_dir': '/scratch/%u/stage'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: path contains '%', which sbatch reads as a file name pattern (%j, %u, ...) in --output and --error" },
    { "{'validation': {'stage_dir': '/a\\nb'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: path contains a newline, which a Slurm job's options cannot express" },
    { "{'validation': {'stage_dir': '/a\\u001bb'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 30,
      "/validation/stage_dir: path contains control character 0x1b, which a Slurm job's options cannot express" },
    { "{'validation': {'launcher': 'slurm', 'partitions': []}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 52,
      "/validation/partitions: expected at least one partition (leave \"partitions\" out to give them on the command line)" },
    { "{'validation': {'partitions': ['gpu a100']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: partition name \"gpu a100\" contains 0x20; Slurm partition names use letters, digits, '-', '_' and '.'" },
    { "{'validation': {'partitions': ['gpu', 'gpu/a100']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 39,
      "/validation/partitions/1: partition name \"gpu/a100\" contains '/'; Slurm partition names use letters, digits, '-', '_' and '.'" },
    { "{'validation': {'partitions': [{'name': 'gpu,cpu'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 41,
      "/validation/partitions/0/name: partition name \"gpu,cpu\" contains ','; Slurm partition names use letters, digits, '-', '_' and '.'" },
    { "{'validation': {'partitions': ['gpu\\u00e9']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: partition name \"gpu\xc3\xa9\" contains 0xc3; Slurm partition names use letters, digits, '-', '_' and '.'" },
    { "{'validation': {'partitions': ['a\\u0007']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: partition name \"a\\x07\" contains control character 0x07, which a Slurm option cannot carry" },
    { "{'validation': {'partitions': ['ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: partition name \"ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp\" has more than 64 characters" },
    { "{'validation': {'partitions': ['..']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 32,
      "/validation/partitions/0: partition name \"..\" names a directory, not a partition" },
    { "{'validation': {'partitions': [{'name': '.'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 41,
      "/validation/partitions/0/name: partition name \".\" names a directory, not a partition" },
    { "{'validation': {'partitions': ['gpu-a100', 'all-gpu', {'name': 'gpu-a100', 'gres': 'gpu:2'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 64,
      "/validation/partitions/2/name: duplicate partition \"gpu-a100\" (also /validation/partitions/0, line 1, column 32)" },
    { "{'validation': {'partitions': [{'name': 'a'}, 'b', 'a']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 52,
      "/validation/partitions/2: duplicate partition \"a\" (also /validation/partitions/0/name, line 1, column 41)" },
    { "{\n  'validation': {\n    'partitions': [\n      'all-gpu',\n      'all-gpu'\n    ]\n  },\n  'sdks': [{'version': '12.4', 'base': '/x'}]\n}",
      CTK_E_CONFIG, 5, 7,
      "/validation/partitions/1: duplicate partition \"all-gpu\" (also /validation/partitions/0, line 4, column 7)" },
    { "{'validation': {'partitions': ['gpu', {'name': 'gpu', 'extra_args': ['--part=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 48,
      "/validation/partitions/1/name: duplicate partition \"gpu\" (also /validation/partitions/0, line 1, column 32)" },
    { "{'validation': {'partitions': ['gpu', {'extra_args': ['--part=x'], 'name': 'gpu'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 55,
      "/validation/partitions/1/extra_args/0: \"--part=x\" abbreviates --partition, which ctkgen sets itself; list the partition under \"partitions\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': ':1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \":1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu::1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu::1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:h100:'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:h100:\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:h100:1:2'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:h100:1:2\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:h 100:1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:h 100:1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': '1gpu:1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"1gpu:1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:1,nvme:1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:1,nvme:1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:1k'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:1k\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:-1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:-1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:1234567890'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:1234567890\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:h100:1(S:0)'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:h100:1(S:0)\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gres/gpu:1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gres/gpu:1\" is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or \"gpu:h100:2\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:0'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:0\" asks for no device; give a count of 1 or more" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:h100:00'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:h100:00\" asks for no device; give a count of 1 or more" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'gres': 'gpu:\\t1'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/gres: gres \"gpu:\\x091\" contains control character 0x09, which a Slurm option cannot carry" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1h'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1h\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '5:'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"5:\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': ':30'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \":30\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1-'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1-\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '-5'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"-5\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1-24'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1-24\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1-2:60'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1-2:60\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '10:60'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"10:60\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1:60:00'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1:60:00\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1:2:3:4'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1:2:3:4\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1-2:3:4:5'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1-2:3:4:5\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1--2'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1--2\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '00:05:00 '}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"00:05:00 \" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1234567890'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1234567890\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1:123'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1:123\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1-123'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1-123\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': '1.5'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"1.5\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'time': 'UNLIMITED'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 56,
      "/validation/partitions/0/time: time \"UNLIMITED\" is not a Slurm time limit; write \"minutes\", \"MM:SS\", \"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. \"00:05:00\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'account': 'a\\tb'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 59,
      "/validation/partitions/0/account: account \"a\\x09b\" contains control character 0x09, which a Slurm option cannot carry" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'qos': '\\u001b[0m'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 55,
      "/validation/partitions/0/qos: qos \"\\x1b[0m\" contains control character 0x1b, which a Slurm option cannot carry" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'constraint': 'nvlink\\n'}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 62,
      "/validation/partitions/0/constraint: constraint \"nvlink\\x0a\" contains control character 0x0a, which a Slurm option cannot carry" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['exclusive']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"exclusive\" does not start with \"--\": extra_args take sbatch's long options, each written \"--name=value\" in one string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--account', 'admin']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 76,
      "/validation/partitions/0/extra_args/1: \"admin\" does not start with \"--\": extra_args take sbatch's long options, each written \"--name=value\" in one string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['/tmp/job.sh']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"/tmp/job.sh\" does not start with \"--\": extra_args take sbatch's long options, each written \"--name=value\" in one string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-N1']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-N1\" does not start with \"--\": extra_args take sbatch's long options, each written \"--name=value\" in one string" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--\" ends sbatch's options, after which an argument is the job script" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--=x\" has no option name after \"--\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-p']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-p\" is sbatch's -p (--partition), which ctkgen sets itself; list the partition under \"partitions\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-o']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-o\" is sbatch's -o (--output), which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-e']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-e\" is sbatch's -e (--error), which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-D']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-D\" is sbatch's -D (--chdir), which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-J']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-J\" is sbatch's -J (--job-name), which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-W']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-W\" is sbatch's -W (--wait), which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-pgpu']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-pgpu\" is sbatch's -p (--partition), which ctkgen sets itself; list the partition under \"partitions\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['-J', 'x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"-J\" is sbatch's -J (--job-name), which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--partition']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--partition\" is sbatch's --partition, which ctkgen sets itself; list the partition under \"partitions\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--partition=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--partition=x\" is sbatch's --partition, which ctkgen sets itself; list the partition under \"partitions\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--gres']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--gres\" is sbatch's --gres, which ctkgen sets itself; set the partition's \"gres\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--gres=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--gres=x\" is sbatch's --gres, which ctkgen sets itself; set the partition's \"gres\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--output']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--output\" is sbatch's --output, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--output=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--output=x\" is sbatch's --output, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--error']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--error\" is sbatch's --error, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--error=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--error=x\" is sbatch's --error, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--wrap']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--wrap\" is sbatch's --wrap, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--wrap=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--wrap=x\" is sbatch's --wrap, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--export']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--export\" is sbatch's --export, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--export=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--export=x\" is sbatch's --export, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--chdir']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--chdir\" is sbatch's --chdir, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--chdir=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--chdir=x\" is sbatch's --chdir, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--job-name']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--job-name\" is sbatch's --job-name, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--job-name=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--job-name=x\" is sbatch's --job-name, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--parsable']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--parsable\" is sbatch's --parsable, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--parsable=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--parsable=x\" is sbatch's --parsable, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive', '--wait']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 78,
      "/validation/partitions/0/extra_args/1: \"--wait\" is sbatch's --wait, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--wait=x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--wait=x\" is sbatch's --wait, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--part=debug']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--part=debug\" abbreviates --partition, which ctkgen sets itself; list the partition under \"partitions\"" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--wra=id']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--wra=id\" abbreviates --wrap, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--job']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--job\" abbreviates --job-name, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--outp=/tmp/x']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: \"--outp=/tmp/x\" abbreviates --output, which ctkgen sets itself" },
    { "{'validation': {'partitions': [{'name': 'gpu', 'extra_args': ['--exclusive\\n']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
      CTK_E_CONFIG, 1, 63,
      "/validation/partitions/0/extra_args/0: argument \"--exclusive\\x0a\" contains control character 0x0a, which a Slurm option cannot carry" },
};

START_TEST(test_config_rejects_malformed_json_at_the_bad_token)
{
    expect_error(&bad_json[_i]);
}
END_TEST

/* The trailing comma and comment hints are for those alone: a comma or a
 * '/' elsewhere gets the parser's words only. */
START_TEST(test_config_json_hints_only_where_they_apply)
{
    static const char *const cases[] = {
        "{ , }",
        "{'sdks': [ , ]}",
        "{'sdks': [1,, 2]}",
        "{'help': 'x' /x}",
        "{'sdks': [1 2]}",
        "{'help': 'a // b', 'sdks': [1 2]}",
    };
    ctk_error_t err;
    size_t i;

    for (i = 0; i < N_OF(cases); i++) {
        ck_assert_ptr_null(load(cases[i], &err));
        ck_assert_int_eq(err.code, CTK_E_JSON);
        ck_assert_msg(strstr(err.text, "JSON") == NULL, "%s: %s", cases[i], err.text);
    }
}
END_TEST

/* The "lint" section: the policy `ctkgen lint --config` applies. */
#define LINT_SITE "{'sdks': [{'version': '12.4', 'base': '/x'}],\n 'lint': "
static const bad_case_t bad_lint[] = {
    { LINT_SITE "{'rules': [{'code': 'CTK-CPAHT-001', 'severity': 'off', 'reason': 'r'}]}}",
      CTK_E_CONFIG, 2, 30, "/lint/rules/0/code: unknown finding code \"CTK-CPAHT-001\" (did you mean \"CTK-CPATH-001\"?)" },
    { LINT_SITE "{'rules': [{'code': ['CTK-PC-001', 'X'], 'severity': 'off', 'reason': 'r'}]}}",
      CTK_E_CONFIG, 2, 45, "/lint/rules/0/code/1: unknown finding code \"X\": diagnostics.md lists the codes" },
    { LINT_SITE "{'rules': [{'code': 'CTK-PC-001', 'severity': 'off'}]}}",
      CTK_E_CONFIG, 2, 21, "/lint/rules/0: missing required key \"reason\"" },
    { LINT_SITE "{'rules': [{'code': 'CTK-PC-001', 'severity': 'loud', 'reason': 'r'}]}}",
      CTK_E_CONFIG, 2, 56,
      "/lint/rules/0/severity: severity \"loud\" is not \"error\", \"warning\", \"note\", \"off\" or \"waive\"" },
    { LINT_SITE "{'rules': [{'code': 'CTK-PC-001', 'severity': 'off', 'reason': 'a\\tb'}]}}",
      CTK_E_CONFIG, 2, 73, "/lint/rules/0/reason: the reason contains control character 0x09: write it on one line" },
    { LINT_SITE "{'error_on': 'note'}}", CTK_E_CONFIG, 2, 23,
      "/lint/error_on: error_on \"note\" is not \"warning\" or \"error\"" },
    { LINT_SITE "{'strict': 'yes'}}", CTK_E_CONFIG, 2, 21, "/lint/strict: expected true or false, got string" },
    { LINT_SITE "{'rules': {}}}", CTK_E_CONFIG, 2, 20, "/lint/rules: expected an array of rule objects, got object" },
    { LINT_SITE "{'sdks': []}}", CTK_E_CONFIG, 2, 11,
      "/lint/sdks: unknown key (\"sdks\" is a site config key, not a lint policy's: give a site config with "
      "--config, its \"lint\" object with --policy)" },
    { LINT_SITE "{'code': 'CTK-PC-001'}}", CTK_E_CONFIG, 2, 11,
      "/lint/code: unknown key (\"code\" belongs inside an entry of \"rules\")" },
};

START_TEST(test_config_rejects_bad_lint_section)
{
    expect_error(&bad_lint[_i]);
}
END_TEST

START_TEST(test_config_lint_section_becomes_policy_rules)
{
    ctk_error_t err;
    ctk_config_t *cfg = load(LINT_SITE "{'error_on': 'warning', 'strict': true, 'rules': [\n"
                                       "  {'code': ['CTK-CPATH-001', 'CTK-LDLIB-003'], 'files': ['*/cray/*', 'x/*'],\n"
                                       "   'severity': 'off', 'reason': 'wrappers'},\n"
                                       "  {'code': 'CTK-PC-003', 'severity': 'error', 'reason': 'typos'}]}}",
                             &err);

    ck_assert_msg(cfg != NULL, "%s", err.text);
    ck_assert_int_eq(cfg->lint.error_on, CTK_SEV_WARNING);
    ck_assert_int_eq(cfg->lint.strict, 1);
    /* one rule per code and glob, in file order */
    ck_assert_uint_eq(cfg->lint.n_rules, 5);
    ck_assert_str_eq(cfg->lint.rules[0].code, "CTK-CPATH-001");
    ck_assert_str_eq(cfg->lint.rules[0].glob, "*/cray/*");
    ck_assert_str_eq(cfg->lint.rules[1].glob, "x/*");
    ck_assert_str_eq(cfg->lint.rules[3].code, "CTK-LDLIB-003");
    ck_assert(cfg->lint.rules[3].waive);
    ck_assert_str_eq(cfg->lint.rules[3].reason, "wrappers");
    ck_assert_str_eq(cfg->lint.rules[3].at, "site.json:3");
    ck_assert(!cfg->lint.rules[4].waive);
    ck_assert_ptr_null(cfg->lint.rules[4].glob);
    ck_assert_int_eq(cfg->lint.rules[4].severity, CTK_SEV_ERROR);
    ck_assert_str_eq(cfg->lint.rules[4].at, "site.json:5");
    ctk_config_free(cfg);
    /* absent: no rules, nothing given */
    cfg = load("{'sdks': [{'version': '12.4', 'base': '/x'}]}", &err);
    ck_assert_msg(cfg != NULL, "%s", err.text);
    ck_assert_uint_eq(cfg->lint.n_rules, 0);
    ck_assert_int_eq(cfg->lint.error_on, -1);
    ck_assert_int_eq(cfg->lint.strict, -1);
    ctk_config_free(cfg);
}
END_TEST

/* A policy with mistakes in two rules and at its top: every one. */
START_TEST(test_config_load_lint_reports_every_error)
{
    char *dir = tu_mkdtemp(), *pol;
    ctk_policy_t p;
    ctk_errlist_t errs;
    ctk_error_t err;

    pol = tu_write(dir, "policy.json",
                   "{\"rules\": [\n"
                   "  {\"code\": \"CTK-CPAHT-001\", \"severity\": \"off\", \"reason\": \"a\"},\n"
                   "  {\"code\": \"CTK-PC-001\", \"severity\": \"sometimes\", \"reason\": \"b\"}],\n"
                   " \"strict\": 1}\n");
    ctk_policy_init(&p);
    ctk_errlist_init(&errs, 0);
    ctk_error_init(&err);
    ck_assert(!ctk_config_load_lint(pol, false, &p, NULL, &errs, &err));
    ck_assert_uint_eq(errs.n, 3);
    ck_assert_int_eq(errs.items[0].line, 2);
    ck_assert_int_eq(errs.items[0].column, 12);
    ck_assert_str_eq(errs.items[0].text, "/rules/0/code: unknown finding code \"CTK-CPAHT-001\" "
                                         "(did you mean \"CTK-CPATH-001\"?)");
    ck_assert_int_eq(errs.items[1].line, 3);
    ck_assert_int_eq(errs.items[1].column, 38);
    ck_assert_str_eq(errs.items[1].text, "/rules/1/severity: severity \"sometimes\" is not "
                                         "\"error\", \"warning\", \"note\", \"off\" or \"waive\"");
    ck_assert_int_eq(errs.items[2].line, 4);
    ck_assert_int_eq(errs.items[2].column, 12);
    ck_assert_str_eq(errs.items[2].text, "/strict: expected true or false, got number");
    ck_assert_str_eq(err.text, errs.items[0].text);
    ctk_errlist_fini(&errs);
    ctk_policy_fini(&p);
    free(pol);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_config_load_lint_reads_only_the_section_or_a_policy_file)
{
    char *dir = tu_mkdtemp(), *site, *pol, *bad;
    ctk_policy_t p;
    ctk_error_t err;
    bool found = true;

    site = tu_write(dir, "site.json", "{\"sdks\": \"not checked here\",\n"
                                      " \"lint\": {\"rules\": [{\"code\": \"CTK-PC-001\", \"severity\": \"off\", \"reason\": \"a\"}]}}\n");
    pol = tu_write(dir, "policy.json", "{\"strict\": false, \"rules\": [\n"
                                       "  {\"code\": \"CTK-PC-001\", \"severity\": \"warning\", \"reason\": \"b\"}]}\n");
    bad = tu_write(dir, "bad.json", "{\"rules\": [\n  {\"code\": \"CTK-PC-001\",\n}]}\n");
    ctk_policy_init(&p);
    ctk_error_init(&err);
    ck_assert_msg(ctk_config_load_lint(site, true, &p, &found, NULL, &err), "%s", err.text);
    ck_assert(found);
    ck_assert_msg(ctk_config_load_lint(pol, false, &p, NULL, NULL, &err), "%s", err.text);
    /* the policy file's rules come after the site config's */
    ck_assert_uint_eq(p.n_rules, 2);
    ck_assert_str_eq(p.rules[0].reason, "a");
    ck_assert_str_eq(p.rules[1].reason, "b");
    ck_assert_int_eq(p.strict, 0);
    ck_assert_int_eq(p.error_on, -1);
    /* bad JSON: jansson's place */
    ck_assert(!ctk_config_load_lint(bad, false, &p, NULL, NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_str_eq(err.source, bad);
    ck_assert_int_eq(err.line, 3);
    /* a site config given as a policy */
    ctk_error_init(&err);
    ck_assert(!ctk_config_load_lint(site, false, &p, NULL, NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_int_eq(err.line, 1);
    ck_assert(strstr(err.text, "/sdks: unknown key") != NULL);
    ctk_policy_fini(&p);
    free(site);
    free(pol);
    free(bad);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_config_rejects_unknown_key)
{
    expect_error(&unknown_keys[_i]);
}
END_TEST

START_TEST(test_config_rejects_wrong_type)
{
    expect_error(&wrong_types[_i]);
}
END_TEST

START_TEST(test_config_rejects_missing_required)
{
    expect_error(&missing[_i]);
}
END_TEST

START_TEST(test_config_rejects_bad_version)
{
    expect_error(&bad_versions[_i]);
}
END_TEST

START_TEST(test_config_rejects_bad_path)
{
    expect_error(&bad_paths[_i]);
}
END_TEST

START_TEST(test_config_rejects_bad_name)
{
    expect_error(&bad_names[_i]);
}
END_TEST

START_TEST(test_config_rejects_duplicate_version_alias_or_unknown_default)
{
    expect_error(&duplicates[_i]);
}
END_TEST

START_TEST(test_config_reports_a_bad_value_without_follow_up_errors)
{
    expect_error(&follow_ups[_i]);
}
END_TEST

/* Errors in two SDKs and at the top level: every one, in file order (the
 * duplicate version is found after the walk, and still comes before the
 * ones below it), each at its own place; err is the first. */
START_TEST(test_config_reports_every_error_in_file_order)
{
    static const char text[] = "{'sdks': [\n"
                               "  {'version': '13.0', 'base': 'relative/path', 'bogus': 1},\n"
                               "  {'version': 12, 'base': '/usr/local/cuda-13.0'},\n"
                               "  {'version': '13.0', 'base': '/b'},\n"
                               "  {'base': '/nonexistent'}\n"
                               " ], 'module_name': 5}";
    static const struct {
        int line, column;
        const char *text;
    } want[] = {
        { 2, 31, "/sdks/0/base: \"relative/path\" is not an absolute path" },
        { 2, 48, "/sdks/0/bogus: unknown key" },
        { 3, 15, "/sdks/1/version: expected a string, got number; write \"12\" in quotes" },
        { 4, 15, "/sdks/2/version: duplicate version \"13.0\" (also /sdks/0)" },
        { 5, 3, "/sdks/3: missing required key \"version\"" },
        { 6, 20, "/module_name: expected a string, got number; write \"5\" in quotes" },
    };
    ctk_errlist_t errs;
    ctk_error_t err;
    size_t i;

    ck_assert_ptr_null(load_all(text, &errs, &err));
    ck_assert_uint_eq(errs.n, N_OF(want));
    ck_assert_uint_eq(errs.dropped, 0);
    for (i = 0; i < N_OF(want); i++) {
        ck_assert_int_eq(errs.items[i].code, CTK_E_CONFIG);
        ck_assert_str_eq(errs.items[i].source, "site.json");
        ck_assert_msg(errs.items[i].line == want[i].line && errs.items[i].column == want[i].column,
                      "error %zu at %d:%d, want %d:%d (%s)", i, errs.items[i].line,
                      errs.items[i].column, want[i].line, want[i].column, errs.items[i].text);
        ck_assert_str_eq(errs.items[i].text, want[i].text);
    }
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(err.column, 31);
    ck_assert_str_eq(err.text, want[0].text);
    ctk_errlist_fini(&errs);
    /* without a list: the same first error */
    ck_assert_ptr_null(load(text, &err));
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(err.column, 31);
    ck_assert_str_eq(err.text, want[0].text);
}
END_TEST

/* 60 bad bases and a duplicate version found last but at line 3: the
 * first 50 errors in file order are kept, the 11 after them counted. */
START_TEST(test_config_keeps_the_first_errors_in_file_order_and_counts_the_rest)
{
    ctk_buf_t b;
    ctk_errlist_t errs;
    ctk_error_t err;
    int i;

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "{'sdks': [\n");
    for (i = 0; i < 60; i++)
        ctk_buf_printf(&b, "{'version': '1.%d', 'base': 'x'}%s\n", i == 1 ? 0 : i,
                       i < 59 ? "," : "");
    ctk_buf_puts(&b, "]}\n");
    ck_assert(!b.failed);
    ck_assert_ptr_null(load_all(b.data, &errs, &err));
    ck_assert_uint_eq(errs.max, CTK_ERRLIST_MAX);
    ck_assert_uint_eq(errs.n, 50);
    ck_assert_uint_eq(errs.dropped, 11);
    ck_assert_int_eq(errs.items[0].line, 2);
    ck_assert_str_eq(errs.items[0].text, "/sdks/0/base: \"x\" is not an absolute path");
    ck_assert_int_eq(errs.items[1].line, 3);
    ck_assert_int_eq(errs.items[1].column, 13);
    ck_assert_str_eq(errs.items[1].text, "/sdks/1/version: duplicate version \"1.0\" (also /sdks/0)");
    ck_assert_int_eq(errs.items[2].line, 3);
    ck_assert_int_eq(errs.items[2].column, 28);
    ck_assert_str_eq(errs.items[2].text, "/sdks/1/base: \"x\" is not an absolute path");
    for (i = 3; i < 50; i++)
        ck_assert_int_eq(errs.items[i].line, i + 1);
    ck_assert_str_eq(errs.items[49].text, "/sdks/48/base: \"x\" is not an absolute path");
    ck_assert_str_eq(err.text, errs.items[0].text);
    ctk_errlist_fini(&errs);
    ctk_buf_fini(&b);
}
END_TEST

START_TEST(test_config_rejects_bad_or_owned_env)
{
    expect_error(&bad_env[_i]);
}
END_TEST

START_TEST(test_config_rejects_bad_properties)
{
    expect_error(&bad_properties[_i]);
}
END_TEST

/* The SDK's properties override the top level's by name and add to them. */
START_TEST(test_config_sdk_properties_add_to_and_override_the_top_level)
{
    ctk_config_t *cfg = load_ok("{'properties': {'arch': 'gpu', 'state': 'testing'},"
                                " 'sdks': [{'version': '12.4', 'base': '/a',"
                                " 'properties': {'lmod': 'sticky', 'state': 'experimental'}},"
                                " {'version': '12.6', 'base': '/b'}]}");
    const ctk_kv_t *p[4];
    size_t n;

    ck_assert_uint_eq(cfg->n_properties, 2);
    ck_assert_uint_eq(cfg->sdks[0].n_properties, 2);
    n = ctk_config_properties(cfg, &cfg->sdks[0], p);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(p[0]->name, "arch");
    ck_assert_str_eq(p[0]->value, "gpu");
    ck_assert_str_eq(p[1]->name, "state");
    ck_assert_str_eq(p[1]->value, "experimental");
    ck_assert_str_eq(p[2]->name, "lmod");
    ck_assert_str_eq(p[2]->value, "sticky");
    n = ctk_config_properties(cfg, &cfg->sdks[1], p);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(p[1]->value, "testing");
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_config_rejects_bad_validation)
{
    expect_error(&bad_validation[_i]);
}
END_TEST

/* jansson refuses \u0000 itself, so no string of the config holds a NUL. */
START_TEST(test_config_rejects_nul_in_validation_strings)
{
    static const char *const cases[] = {
        "{'validation': {'partitions': ['gpu\\u0000x']}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
        "{'validation': {'stage_dir': '/s\\u0000'}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
        "{'validation': {'partitions': [{'name': 'g', 'extra_args': ['--x=\\u0000']}]},"
        " 'sdks': [{'version': '12.4', 'base': '/x'}]}",
    };
    ctk_error_t err;
    size_t i;

    for (i = 0; i < N_OF(cases); i++) {
        ck_assert_ptr_null(load(cases[i], &err));
        ck_assert_int_eq(err.code, CTK_E_JSON);
        ck_assert_msg(strstr(err.text, "\\u0000 is not allowed") != NULL, "%s", err.text);
    }
}
END_TEST

/* ---- configs that load -------------------------------------------------- */

/* The example from the request for this feature, as in site-configs/example.json. */
static const char issue_example[] =
    "{\n"
    "  \"module_name\": \"cudatoolkit\",\n"
    "  \"default\": \"12.4\",\n"
    "  \"sdks\": [\n"
    "    {\n"
    "      \"version\": \"12.4\",\n"
    "      \"base\": \"/usr/local/cuda-12.4\",\n"
    "      \"math_libs\": \"/usr/local/cuda-12.4\",\n"
    "      \"nvvm\": \"/usr/local/cuda-12.4/nvvm\",\n"
    "      \"cupti\": \"/usr/local/cuda-12.4\"\n"
    "    }\n"
    "  ]\n"
    "}\n";

/* Every key there is, HPC SDK layout first. */
static const char rich_example[] =
    "{\n"
    "  \"$schema\": \"https://example.org/ctkgen/site-config.schema.json\",\n"
    "  \"module_name\": \"cuda\",\n"
    "  \"family\": \"cuda-sdk\",\n"
    "  \"default\": \"hpc\",\n"
    "  \"pc_prefix\": \"cuda\",\n"
    "  \"pkgconfig_dir\": \"/opt/modules/pkgconfig/\",\n"
    "  \"pc_rpath\": false, \"full_version_aliases\": false,\n"
    "  \"help\": \"CUDA at Example Site.\\nQuestions: hpc@example.org\",\n"
    "  \"env\": { \"SITE_GPU_DOCS\": \"https://example.org/gpu\", \"SITE_A\": \"1\" },\n"
    "  \"sdks\": [\n"
    "    {\n"
    "      \"version\": \"11.6\",\n"
    "      \"name\": \"11.6-hpcsdk22.3\",\n"
    "      \"base\": \"/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/\",\n"
    "      \"math_libs\": \"/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/math_libs/11.6\",\n"
    "      \"nvvm\": \"/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/nvvm\",\n"
    "      \"cupti\": \"/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/extras/CUPTI\",\n"
    "      \"comm_libs\": {\n"
    "        \"nccl\": \"/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/comm_libs/11.6/nccl\",\n"
    "        \"nvshmem\": \"/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/comm_libs/11.6/nvshmem\"\n"
    "      },\n"
    "      \"host_compiler\": { \"module\": \"gcc/11\", \"ccbin\": \"/usr/bin/g++-11\" },\n"
    "      \"help\": \"From the NVIDIA HPC SDK 22.3.\",\n"
    "      \"env\": { \"CRAY_CUDATOOLKIT_VERSION\": \"11.6\", \"PE_PKGCONFIG_LIBS\": \"cuda-11.6-hpcsdk22.3\" },\n"
    "      \"aliases\": [\"11\", \"hpc\"]\n"
    "    },\n"
    "    { \"version\": \"12.4.1\", \"base\": \"/usr/local/cuda-12.4\" }\n"
    "  ]\n"
    "}\n";

START_TEST(test_config_loads_issue_example_with_defaults)
{
    ctk_config_t *cfg = load_ok(issue_example);
    const ctk_sdk_conf_t *sdk;
    int f;

    ck_assert_str_eq(cfg->source, "site.json");
    ck_assert_str_eq(cfg->module_name, "cudatoolkit");
    ck_assert_str_eq(cfg->family, "cuda");
    ck_assert_str_eq(cfg->default_version, "12.4");
    ck_assert_str_eq(cfg->pc_prefix, "ctk");
    ck_assert_ptr_null(cfg->pkgconfig_dir);
    ck_assert(cfg->pc_rpath);
    ck_assert_int_eq(cfg->full_version_aliases, -1);
    ck_assert_ptr_null(cfg->help);
    ck_assert_uint_eq(cfg->n_env, 0);
    ck_assert(!cfg->validation.present);
    ck_assert_ptr_null(cfg->validation.launcher);
    ck_assert_ptr_null(cfg->validation.build);
    ck_assert(cfg->validation.queue_timeout_s == 0);
    ck_assert_ptr_null(cfg->validation.stage_dir);
    ck_assert_ptr_null(cfg->validation.partitions);
    ck_assert_uint_eq(cfg->validation.n_partitions, 0);
    ck_assert_uint_eq(cfg->n_sdks, 1);
    sdk = &cfg->sdks[0];
    ck_assert_str_eq(sdk->version, "12.4");
    ck_assert_str_eq(sdk->module_version, "12.4");
    ck_assert_str_eq(sdk->base, "/usr/local/cuda-12.4");
    ck_assert_str_eq(sdk->math_libs, "/usr/local/cuda-12.4");
    ck_assert_str_eq(sdk->nvvm, "/usr/local/cuda-12.4/nvvm");
    ck_assert_str_eq(sdk->cupti, "/usr/local/cuda-12.4");
    ck_assert_ptr_null(sdk->nccl);
    ck_assert_ptr_null(sdk->nvshmem);
    ck_assert_ptr_null(sdk->host_compiler_module);
    ck_assert_ptr_null(sdk->host_compiler_ccbin);
    ck_assert_ptr_null(sdk->help);
    ck_assert_uint_eq(sdk->n_env, 0);
    ck_assert_uint_eq(sdk->n_aliases, 0);
    ck_assert_str_eq(sdk->jpath, "/sdks/0");
    ck_assert_pos(sdk->pos[CTK_F_SDK], 5, 5);
    ck_assert_pos(sdk->pos[CTK_F_VERSION], 6, 18);
    ck_assert_pos(sdk->pos[CTK_F_NAME], 0, 0);
    ck_assert_pos(sdk->pos[CTK_F_BASE], 7, 15);
    ck_assert_pos(sdk->pos[CTK_F_MATH_LIBS], 8, 20);
    ck_assert_pos(sdk->pos[CTK_F_NVVM], 9, 15);
    ck_assert_pos(sdk->pos[CTK_F_CUPTI], 10, 16);
    for (f = CTK_F_NCCL; f < CTK_F__COUNT; f++)
        ck_assert_pos(sdk->pos[f], 0, 0);
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_config_loads_every_key)
{
    ctk_config_t *cfg;
    const ctk_sdk_conf_t *sdk;
    char *text = strdup(rich_example);

    /* rich_example already uses ", which dq() leaves alone */
    cfg = load_ok(text);
    free(text);
    ck_assert_str_eq(cfg->module_name, "cuda");
    ck_assert_str_eq(cfg->family, "cuda-sdk");
    /* "hpc" is an alias: the default is the module version it selects */
    ck_assert_str_eq(cfg->default_version, "11.6-hpcsdk22.3");
    ck_assert_str_eq(cfg->pc_prefix, "cuda");
    ck_assert_str_eq(cfg->pkgconfig_dir, "/opt/modules/pkgconfig");
    ck_assert(!cfg->pc_rpath);
    ck_assert(!cfg->full_version_aliases);
    ck_assert_str_eq(cfg->help, "CUDA at Example Site.\nQuestions: hpc@example.org");
    ck_assert_uint_eq(cfg->n_env, 2);
    ck_assert_str_eq(cfg->env[0].name, "SITE_GPU_DOCS");
    ck_assert_str_eq(cfg->env[0].value, "https://example.org/gpu");
    ck_assert_str_eq(cfg->env[1].name, "SITE_A");
    ck_assert_str_eq(cfg->env[1].value, "1");
    ck_assert_uint_eq(cfg->n_sdks, 2);

    sdk = &cfg->sdks[0];
    ck_assert_str_eq(sdk->version, "11.6");
    ck_assert_str_eq(sdk->module_version, "11.6-hpcsdk22.3");
    ck_assert_str_eq(sdk->base, "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6");
    ck_assert_str_eq(sdk->math_libs, "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/math_libs/11.6");
    ck_assert_str_eq(sdk->nvvm, "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/nvvm");
    ck_assert_str_eq(sdk->cupti, "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/extras/CUPTI");
    ck_assert_str_eq(sdk->nccl, "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/comm_libs/11.6/nccl");
    ck_assert_str_eq(sdk->nvshmem, "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/comm_libs/11.6/nvshmem");
    ck_assert_str_eq(sdk->host_compiler_module, "gcc/11");
    ck_assert_str_eq(sdk->host_compiler_ccbin, "/usr/bin/g++-11");
    ck_assert_str_eq(sdk->help, "From the NVIDIA HPC SDK 22.3.");
    ck_assert_uint_eq(sdk->n_env, 2);
    ck_assert_str_eq(sdk->env[0].name, "CRAY_CUDATOOLKIT_VERSION");
    ck_assert_str_eq(sdk->env[0].value, "11.6");
    ck_assert_str_eq(sdk->env[1].name, "PE_PKGCONFIG_LIBS");
    ck_assert_str_eq(sdk->env[1].value, "cuda-11.6-hpcsdk22.3");
    ck_assert_uint_eq(sdk->n_aliases, 2);
    ck_assert_str_eq(sdk->aliases[0], "11");
    ck_assert_str_eq(sdk->aliases[1], "hpc");
    ck_assert_str_eq(sdk->jpath, "/sdks/0");
    ck_assert_pos(sdk->pos[CTK_F_SDK], 12, 5);
    ck_assert_pos(sdk->pos[CTK_F_VERSION], 13, 18);
    ck_assert_pos(sdk->pos[CTK_F_NAME], 14, 15);
    ck_assert_pos(sdk->pos[CTK_F_BASE], 15, 15);
    ck_assert_pos(sdk->pos[CTK_F_MATH_LIBS], 16, 20);
    ck_assert_pos(sdk->pos[CTK_F_NVVM], 17, 15);
    ck_assert_pos(sdk->pos[CTK_F_CUPTI], 18, 16);
    ck_assert_pos(sdk->pos[CTK_F_NCCL], 20, 17);
    ck_assert_pos(sdk->pos[CTK_F_NVSHMEM], 21, 20);
    ck_assert_pos(sdk->pos[CTK_F_CCBIN], 23, 55);

    sdk = &cfg->sdks[1];
    ck_assert_str_eq(sdk->version, "12.4.1");
    ck_assert_str_eq(sdk->module_version, "12.4.1");
    ck_assert_str_eq(sdk->base, "/usr/local/cuda-12.4");
    ck_assert_ptr_null(sdk->math_libs);
    ck_assert_ptr_null(sdk->host_compiler_module);
    ck_assert_str_eq(sdk->jpath, "/sdks/1");
    ck_assert_pos(sdk->pos[CTK_F_SDK], 28, 5);
    ck_assert_pos(sdk->pos[CTK_F_VERSION], 28, 18);
    ck_assert_pos(sdk->pos[CTK_F_BASE], 28, 36);
    ctk_config_free(cfg);
}
END_TEST

/* "full_version_aliases": 1 or 0 as given, -1 when absent (generate
 * settles it from the tree it writes) */
static const struct {
    const char *doc;
    int want;
} fva_cases[] = {
    { "{'sdks': [{'version': '12.4', 'base': '/x'}]}", -1 },
    { "{'full_version_aliases': true, 'sdks': [{'version': '12.4', 'base': '/x'}]}", 1 },
    { "{'full_version_aliases': false, 'sdks': [{'version': '12.4', 'base': '/x'}]}", 0 },
};

START_TEST(test_config_full_version_aliases_as_given)
{
    ctk_config_t *cfg = load_ok(fva_cases[_i].doc);

    ck_assert_int_eq(cfg->full_version_aliases, fva_cases[_i].want);
    ctk_config_free(cfg);
}
END_TEST

/* Every key of "validation", partitions by name and by object. */
static const char validation_example[] =
    "{\n"
    "  \"validation\": {\n"
    "    \"launcher\": \"slurm\",\n"
    "    \"build\": \"compute\",\n"
    "    \"queue_timeout\": 600,\n"
    "    \"stage_dir\": \"/shared/scratch/ctkgen-stage/\",\n"
    "    \"partitions\": [\n"
    "      \"gpu-a100\",\n"
    "      {\n"
    "        \"name\": \"gpu-h100\",\n"
    "        \"gres\": \"gpu:h100:1\",\n"
    "        \"account\": \"admin\",\n"
    "        \"qos\": \"debug\",\n"
    "        \"time\": \"00:05:00\",\n"
    "        \"constraint\": \"nvlink&(rack1|rack2)\",\n"
    "        \"extra_args\": [\"--exclusive\", \"--mem=0\"]\n"
    "      },\n"
    "      {\"gres\": \"gpu:2\", \"name\": \"all-gpu\"}\n"
    "    ]\n"
    "  },\n"
    "  \"sdks\": [{ \"version\": \"12.4\", \"base\": \"/usr/local/cuda-12.4\" }]\n"
    "}\n";

START_TEST(test_config_loads_validation_field_by_field)
{
    ctk_config_t *cfg = load_ok(validation_example);
    const ctk_validation_conf_t *v = &cfg->validation;
    const ctk_partition_conf_t *p;

    ck_assert(v->present);
    ck_assert_str_eq(v->launcher, "slurm");
    ck_assert_str_eq(v->build, "compute");
    ck_assert(v->queue_timeout_s == 600.0);
    /* an absolute path like any other: the trailing slash goes */
    ck_assert_str_eq(v->stage_dir, "/shared/scratch/ctkgen-stage");
    ck_assert_uint_eq(v->n_partitions, 3);

    p = &v->partitions[0];
    ck_assert_str_eq(p->name, "gpu-a100");
    ck_assert_ptr_null(p->gres);
    ck_assert_ptr_null(p->account);
    ck_assert_ptr_null(p->qos);
    ck_assert_ptr_null(p->time);
    ck_assert_ptr_null(p->constraint);
    ck_assert_ptr_null(p->extra_args);
    ck_assert_uint_eq(p->n_extra_args, 0);
    ck_assert_str_eq(p->jpath, "/validation/partitions/0");
    ck_assert_pos(p->pos, 8, 7);

    p = &v->partitions[1];
    ck_assert_str_eq(p->name, "gpu-h100");
    ck_assert_str_eq(p->gres, "gpu:h100:1");
    ck_assert_str_eq(p->account, "admin");
    ck_assert_str_eq(p->qos, "debug");
    ck_assert_str_eq(p->time, "00:05:00");
    ck_assert_str_eq(p->constraint, "nvlink&(rack1|rack2)");
    ck_assert_uint_eq(p->n_extra_args, 2);
    ck_assert_str_eq(p->extra_args[0], "--exclusive");
    ck_assert_str_eq(p->extra_args[1], "--mem=0");
    ck_assert_str_eq(p->jpath, "/validation/partitions/1");
    ck_assert_pos(p->pos, 9, 7);

    p = &v->partitions[2];
    ck_assert_str_eq(p->name, "all-gpu");
    ck_assert_str_eq(p->gres, "gpu:2");
    ck_assert_ptr_null(p->time);
    ck_assert_uint_eq(p->n_extra_args, 0);
    ck_assert_str_eq(p->jpath, "/validation/partitions/2");
    ck_assert_pos(p->pos, 18, 7);

    ck_assert_uint_eq(cfg->n_sdks, 1);
    ctk_config_free(cfg);
}
END_TEST

/* Each key is optional: an empty object is there, and nothing is set. */
START_TEST(test_config_validation_keys_are_each_optional)
{
    ctk_config_t *cfg = load_ok("{'validation': {}, 'sdks': [{'version': '12.4', 'base': '/x'}]}");

    ck_assert(cfg->validation.present);
    ck_assert_ptr_null(cfg->validation.launcher);
    ck_assert_ptr_null(cfg->validation.build);
    ck_assert(cfg->validation.queue_timeout_s == 0);
    ck_assert_ptr_null(cfg->validation.stage_dir);
    ck_assert_uint_eq(cfg->validation.n_partitions, 0);
    ctk_config_free(cfg);

    /* slurm without partitions: the command line may give them */
    cfg = load_ok("{'sdks': [{'version': '12.4', 'base': '/x'}],"
                  " 'validation': {'launcher': 'slurm', 'queue_timeout': 0.5}}");
    ck_assert(cfg->validation.present);
    ck_assert_str_eq(cfg->validation.launcher, "slurm");
    ck_assert(cfg->validation.queue_timeout_s == 0.5);
    ck_assert_uint_eq(cfg->validation.n_partitions, 0);
    ctk_config_free(cfg);

    cfg = load_ok("{'validation': {'launcher': 'local', 'build': 'login', 'queue_timeout': 604800},"
                  " 'sdks': [{'version': '12.4', 'base': '/x'}]}");
    ck_assert_str_eq(cfg->validation.launcher, "local");
    ck_assert_str_eq(cfg->validation.build, "login");
    ck_assert(cfg->validation.queue_timeout_s == 604800.0);
    ctk_config_free(cfg);
}
END_TEST

/* Values at the edges of each rule that must load. */
static const struct {
    const char *key, *value;
} good_partition_values[] = {
    { "name", "all-gpu" },
    { "name", "a" },
    { "name", "GPU_a100.v2-x" },
    { "name", "0123456789012345678901234567890123456789012345678901234567890123" },
    { "name", "..." },
    { "gres", "gpu:1" },
    { "gres", "gpu:h100:2" },
    { "gres", "gpu:1g.10gb:1" },
    { "gres", "gpu:nvidia_h100_80gb_hbm3:8" },
    { "gres", "shard:10" },
    { "gres", "gpu:tesla-v100:01" },
    { "gres", "gpu:123456789" },
    { "time", "5" },
    { "time", "0" },
    { "time", "123456789" },
    { "time", "05:30" },
    { "time", "90:00" },
    { "time", "48:00:00" },
    { "time", "1:2:3" },
    { "time", "1-0" },
    { "time", "7-23" },
    { "time", "1-12:30" },
    { "time", "2-00:00:59" },
    { "account", "admin" },
    { "account", "proj 1 \xc3\xa9" },
    { "qos", "debug" },
    { "constraint", "[rack1|rack2]&nvlink*2" },
    { "extra_args", "--exclusive" },
    { "extra_args", "--mem=0" },
    { "extra_args", "--comment=--partition=x" },
    { "extra_args", "--gres-flags=enforce-binding" },
    { "extra_args", "--wait-all-nodes=1" },
    { "extra_args", "--export-file=/etc/slurm/env" },
    { "extra_args", "--gpus-per-task=1" },
};

/* The field of a partition that key fills. */
static const char *partition_field(const ctk_partition_conf_t *p, const char *key)
{
    if (strcmp(key, "name") == 0)
        return p->name;
    if (strcmp(key, "gres") == 0)
        return p->gres;
    if (strcmp(key, "account") == 0)
        return p->account;
    if (strcmp(key, "qos") == 0)
        return p->qos;
    if (strcmp(key, "time") == 0)
        return p->time;
    if (strcmp(key, "constraint") == 0)
        return p->constraint;
    ck_assert_uint_eq(p->n_extra_args, 1);
    return p->extra_args[0];
}

START_TEST(test_config_accepts_partition_value)
{
    const char *key = good_partition_values[_i].key, *value = good_partition_values[_i].value;
    ctk_config_t *cfg;
    char *json = NULL;
    int n;

    if (strcmp(key, "name") == 0)
        n = asprintf(&json, "{'validation': {'partitions': ['%s']}, 'sdks': [{'version': '12.4',"
                            " 'base': '/x'}]}",
                     value);
    else if (strcmp(key, "extra_args") == 0)
        n = asprintf(&json, "{'validation': {'partitions': [{'name': 'gpu',"
                            " 'extra_args': ['%s']}]}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
                     value);
    else
        n = asprintf(&json, "{'validation': {'partitions': [{'name': 'gpu', '%s': '%s'}]},"
                            " 'sdks': [{'version': '12.4', 'base': '/x'}]}",
                     key, value);
    ck_assert_int_gt(n, 0);
    cfg = load_ok(json);
    ck_assert_uint_eq(cfg->validation.n_partitions, 1);
    ck_assert_str_eq(partition_field(&cfg->validation.partitions[0], key), value);
    ctk_config_free(cfg);
    free(json);
}
END_TEST

static const char *const good_versions[] = { "12.4", "12.4.131", "9.2", "13.0.0", "100.200.300" };

START_TEST(test_config_accepts_version)
{
    char *json = NULL;
    ctk_config_t *cfg;

    ck_assert(asprintf(&json, "{'sdks': [{'version': '%s', 'base': '/x'}]}", good_versions[_i]) > 0);
    cfg = load_ok(json);
    ck_assert_str_eq(cfg->sdks[0].version, good_versions[_i]);
    ck_assert_str_eq(cfg->sdks[0].module_version, good_versions[_i]);
    ctk_config_free(cfg);
    free(json);
}
END_TEST

static const struct {
    const char *given, *kept;
} slashes[] = {
    { "/usr/local/cuda-12.4/", "/usr/local/cuda-12.4" },
    { "/usr/local/cuda-12.4///", "/usr/local/cuda-12.4" },
    { "/", "/" },
    { "//", "/" },
    { "/opt/with space/and\\u00e9", "/opt/with space/and\xc3\xa9" },
};

START_TEST(test_config_strips_trailing_slashes)
{
    char *json = NULL;
    ctk_config_t *cfg;

    ck_assert(asprintf(&json,
                       "{'pkgconfig_dir': '%s', 'sdks': [{'version': '12.4', 'base': '%s', "
                       "'host_compiler': {'ccbin': '%s'}}]}",
                       slashes[_i].given, slashes[_i].given, slashes[_i].given) > 0);
    cfg = load_ok(json);
    ck_assert_str_eq(cfg->pkgconfig_dir, slashes[_i].kept);
    ck_assert_str_eq(cfg->sdks[0].base, slashes[_i].kept);
    ck_assert_str_eq(cfg->sdks[0].host_compiler_ccbin, slashes[_i].kept);
    ctk_config_free(cfg);
    free(json);
}
END_TEST

START_TEST(test_config_accepts_one_version_under_two_names)
{
    ctk_config_t *cfg = load_ok("{'default': '11.6', 'sdks': ["
                                "{'version': '11.6', 'base': '/usr/local/cuda-11.6'},"
                                "{'version': '11.6', 'name': '11.6-hpcsdk', 'base': '/opt/hpc'}]}");

    ck_assert_str_eq(cfg->sdks[0].module_version, "11.6");
    ck_assert_str_eq(cfg->sdks[1].module_version, "11.6-hpcsdk");
    ck_assert_str_eq(cfg->default_version, "11.6");
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_config_reads_comm_libs_and_host_compiler_alone)
{
    ctk_config_t *cfg = load_ok("{'sdks': ["
                                "{'version': '12.4', 'base': '/a', 'comm_libs': {'nvshmem': '/n/'},"
                                " 'host_compiler': {'module': 'gcc/12.3.0'}},"
                                "{'version': '12.6', 'base': '/b', 'comm_libs': {'nccl': '/c'},"
                                " 'host_compiler': {'ccbin': '/usr/bin/g++-13'}}]}");

    ck_assert_ptr_null(cfg->sdks[0].nccl);
    ck_assert_str_eq(cfg->sdks[0].nvshmem, "/n");
    ck_assert_str_eq(cfg->sdks[0].host_compiler_module, "gcc/12.3.0");
    ck_assert_ptr_null(cfg->sdks[0].host_compiler_ccbin);
    ck_assert_pos(cfg->sdks[0].pos[CTK_F_NVSHMEM], 1, 70);
    ck_assert_pos(cfg->sdks[0].pos[CTK_F_CCBIN], 0, 0);
    ck_assert_str_eq(cfg->sdks[1].nccl, "/c");
    ck_assert_ptr_null(cfg->sdks[1].nvshmem);
    ck_assert_ptr_null(cfg->sdks[1].host_compiler_module);
    ck_assert_str_eq(cfg->sdks[1].host_compiler_ccbin, "/usr/bin/g++-13");
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_config_keeps_env_in_file_order_with_tabs)
{
    ctk_config_t *cfg = load_ok("{'env': {'Z_LAST': 'z', 'A_FIRST': 'two lines\\tand tab'},"
                                " 'sdks': [{'version': '12.4', 'base': '/x',"
                                " 'env': {'_X9': '\\u00e9', 'CUDATOOLKIT_VERSIONS': 'ok'}}]}");

    ck_assert_uint_eq(cfg->n_env, 2);
    ck_assert_str_eq(cfg->env[0].name, "Z_LAST");
    ck_assert_str_eq(cfg->env[1].name, "A_FIRST");
    ck_assert_str_eq(cfg->env[1].value, "two lines\tand tab");
    ck_assert_uint_eq(cfg->sdks[0].n_env, 2);
    ck_assert_str_eq(cfg->sdks[0].env[0].name, "_X9");
    ck_assert_str_eq(cfg->sdks[0].env[0].value, "\xc3\xa9");
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_config_ignores_schema_key)
{
    ctk_config_t *cfg = load_ok("{'$schema': 'https://example.org/s.json',"
                                " 'sdks': [{'version': '12.4', 'base': '/x'}]}");

    ck_assert_uint_eq(cfg->n_sdks, 1);
    ctk_config_free(cfg);
}
END_TEST

/* A byte-order mark is skipped; positions count from after it, as editors
 * that write one show the text. */
START_TEST(test_config_skips_byte_order_mark)
{
    ctk_config_t *cfg = load_ok("\xEF\xBB\xBF{'sdks': [{'version': '12.4', 'base': '/x'}]}");
    ctk_error_t err;

    ck_assert_str_eq(cfg->sdks[0].version, "12.4");
    ctk_config_free(cfg);
    ck_assert_ptr_null(load("\xEF\xBB\xBF{'sdks': [{'version': 12.4, 'base': '/x'}]}", &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.column, 23);
    /* only at the start: elsewhere it is a stray character */
    ck_assert_ptr_null(load("{\xEF\xBB\xBF'sdks': []}", &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
}
END_TEST

START_TEST(test_config_takes_null_err_and_keeps_first_error)
{
    static const char bad[] = "{\"sdks\": []}";
    ctk_error_t err;

    ck_assert_ptr_null(ctk_config_load_string(bad, strlen(bad), "a.json", NULL));
    ck_assert_ptr_null(ctk_config_load_string("{", 1, "a.json", NULL));
    ctk_error_init(&err);
    ctk_error_set(&err, CTK_E_IO, "earlier", 3, 4, "first");
    ck_assert_ptr_null(ctk_config_load_string(bad, strlen(bad), "a.json", &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.text, "first");
    ctk_config_free(NULL);
}
END_TEST

/* ---- files ----------------------------------------------------------------- */

START_TEST(test_config_load_reports_missing_file)
{
    char *dir = tu_mkdtemp(), *path = NULL;
    ctk_error_t err;

    ck_assert_ptr_nonnull(dir);
    ck_assert(asprintf(&path, "%s/no-such.json", dir) > 0);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_config_load(path, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, path);
    ck_assert_int_eq(err.line, 0);
    ck_assert_int_eq(err.column, 0);
    /* a directory is no config either */
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_config_load(dir, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, dir);
    tu_rmtree(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(test_config_load_names_the_file_in_errors)
{
    char *dir = tu_mkdtemp(), *path, *json = dq("{\n  'sdks': [\n    {'version': '12.4', 'base': 'rel'}\n  ]\n}\n");
    ctk_config_t *cfg;
    ctk_error_t err;

    ck_assert_ptr_nonnull(dir);
    path = tu_write(dir, "site.json", json);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_config_load(path, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_str_eq(err.source, path);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.column, 33);
    ck_assert_str_eq(err.text, "/sdks/0/base: \"rel\" is not an absolute path");
    free(path);

    path = tu_write(dir, "good.json", issue_example);
    ctk_error_init(&err);
    cfg = ctk_config_load(path, &err);
    ck_assert_msg(cfg != NULL, "%s", err.text);
    ck_assert_str_eq(cfg->source, path);
    ctk_config_free(cfg);
    free(path);
    tu_rmtree(dir);
    free(json);
    free(dir);
}
END_TEST

/* Every .json file in site-configs/ (a release tarball may hold fewer
 * than the source tree), example.json at least. */
START_TEST(test_config_loads_shipped_site_configs)
{
    char *pattern = tu_srcpath("site-configs/*.json");
    bool saw_example = false;
    glob_t g;
    size_t i;

    ck_assert_int_eq(glob(pattern, 0, NULL, &g), 0);
    for (i = 0; i < g.gl_pathc; i++) {
        ctk_config_t *cfg;
        ctk_error_t err;

        ctk_error_init(&err);
        cfg = ctk_config_load(g.gl_pathv[i], &err);
        ck_assert_msg(cfg != NULL, "%s:%d:%d: %s", err.source, err.line, err.column, err.text);
        ck_assert_uint_gt(cfg->n_sdks, 0);
        ctk_config_free(cfg);
        if (strstr(g.gl_pathv[i], "/example.json"))
            saw_example = true;
    }
    ck_assert(saw_example);
    globfree(&g);
    free(pattern);
}
END_TEST

START_TEST(test_config_example_file_is_the_issue_example)
{
    char *path = tu_srcpath("site-configs/example.json"), *text = tu_read(path);
    ctk_config_t *a, *b = load_ok(issue_example);
    ctk_error_t err;

    ck_assert_ptr_nonnull(text);
    ctk_error_init(&err);
    a = ctk_config_load(path, &err);
    ck_assert_ptr_nonnull(a);
    ck_assert(config_eq(a, b));
    ctk_config_free(a);
    ctk_config_free(b);
    free(text);
    free(path);
}
END_TEST

/* Every whole config shown in docs/site-config.md loads as it stands. */
START_TEST(test_config_loads_every_config_in_the_docs)
{
    char *path = tu_srcpath("docs/site-config.md"), *doc = tu_read(path), *p, *end;
    int loaded = 0;

    ck_assert_msg(doc != NULL, "cannot read %s", path);
    for (p = doc; (p = strstr(p, "```json\n")) != NULL; p = end + 3) {
        ctk_config_t *cfg;
        ctk_error_t err;

        p += strlen("```json\n");
        end = strstr(p, "```");
        ck_assert_ptr_nonnull(end);
        *end = '\0';
        if (p[0] != '{' || !strstr(p, "\"sdks\"")) /* a fragment */
            continue;
        ctk_error_init(&err);
        cfg = ctk_config_load_string(p, strlen(p), "doc", &err);
        ck_assert_msg(cfg != NULL, "%d:%d: %s in\n%s", err.line, err.column, err.text, p);
        ctk_config_free(cfg);
        loaded++;
    }
    ck_assert_int_ge(loaded, 3);
    free(doc);
    free(path);
}
END_TEST

/* ---- dump ------------------------------------------------------------------- */

static const char *const round_trips[] = {
    issue_example,
    rich_example,
    "{'module_name': 'nvhpc-cuda', 'pc_rpath': true, 'full_version_aliases': true,"
    " 'sdks': [{'version': '13.0',"
    " 'base': '/usr/local/cuda-13.0', 'aliases': []}]}",
    "{'family': 'gpu', 'pc_prefix': 'cuda', 'default': '12', 'help': 'say \\'hi\\' \\\\ ~/ \\u2603',"
    " 'sdks': [{'version': '12.4', 'base': '/opt/\\u00fcn\\u00efcode/cuda', 'aliases': ['12', 'latest'],"
    " 'comm_libs': {'nccl': '/opt/nccl'}, 'env': {'A': 'x\\ty'}}]}",
    "{'properties': {'arch': 'gpu', 'state': 'testing'}, 'sdks': [{'version': '12.4', 'base': '/x',"
    " 'properties': {'state': 'experimental', 'x.y_z-1': 'A.b_C-2'}}]}",
    validation_example,
    "{'validation': {}, 'sdks': [{'version': '12.4', 'base': '/x'}]}",
    "{'validation': {'launcher': 'local', 'queue_timeout': 0.25}, 'sdks': [{'version': '12.4',"
    " 'base': '/x'}]}",
    "{'validation': {'queue_timeout': 604799.999, 'partitions': ['a', 'b', {'name': 'c'},"
    " {'name': 'd', 'extra_args': ['--x']}, {'name': 'e', 'account': 'f\\u00fcr \\'us\\''}]},"
    " 'sdks': [{'version': '12.4', 'base': '/x'}]}",
};

START_TEST(test_config_dump_round_trips)
{
    ctk_config_t *a = load_ok(round_trips[_i]), *b;
    ctk_error_t err;
    char *text, *again;

    ctk_error_init(&err);
    text = ctk_config_dump(a, &err);
    ck_assert_msg(text != NULL, "%s", err.text);
    b = ctk_config_load_string(text, strlen(text), "dump", &err);
    ck_assert_msg(b != NULL, "%s: %d:%d: %s", text, err.line, err.column, err.text);
    ck_assert_msg(config_eq(a, b), "differs after dump:\n%s", text);
    again = ctk_config_dump(b, &err);
    ck_assert_ptr_nonnull(again);
    ck_assert_str_eq(again, text);
    free(again);
    free(text);
    ctk_config_free(b);
    ctk_config_free(a);
}
END_TEST

START_TEST(test_config_dump_writes_schema_order_without_defaults)
{
    static const char want_example[] =
        "{\n"
        "  \"default\": \"12.4\",\n"
        "  \"sdks\": [\n"
        "    {\n"
        "      \"version\": \"12.4\",\n"
        "      \"base\": \"/usr/local/cuda-12.4\",\n"
        "      \"math_libs\": \"/usr/local/cuda-12.4\",\n"
        "      \"nvvm\": \"/usr/local/cuda-12.4/nvvm\",\n"
        "      \"cupti\": \"/usr/local/cuda-12.4\"\n"
        "    }\n"
        "  ]\n"
        "}\n";
    /* keys given in reverse order come out in schema order */
    ctk_config_t *cfg = load_ok(
        "{'sdks': [{'aliases': ['x'], 'env': {'B': '1'}, 'help': 'h',"
        " 'host_compiler': {'ccbin': '/g', 'module': 'gcc/1'},"
        " 'comm_libs': {'nvshmem': '/s', 'nccl': '/n'}, 'cupti': '/c', 'nvvm': '/v',"
        " 'math_libs': '/m', 'base': '/b', 'name': 'n', 'version': '1.2'}],"
        " 'env': {'A': '1'}, 'help': 'H', 'pc_rpath': false, 'full_version_aliases': false,"
        " 'pkgconfig_dir': '/p',"
        " 'pc_prefix': 'pp', 'default': 'n', 'family': 'f', 'module_name': 'm'}");
    static const char want_rich[] =
        "{\n"
        "  \"module_name\": \"m\",\n"
        "  \"family\": \"f\",\n"
        "  \"default\": \"n\",\n"
        "  \"pc_prefix\": \"pp\",\n"
        "  \"pkgconfig_dir\": \"/p\",\n"
        "  \"pc_rpath\": false,\n"
        "  \"full_version_aliases\": false,\n"
        "  \"help\": \"H\",\n"
        "  \"env\": {\n"
        "    \"A\": \"1\"\n"
        "  },\n"
        "  \"sdks\": [\n"
        "    {\n"
        "      \"version\": \"1.2\",\n"
        "      \"name\": \"n\",\n"
        "      \"base\": \"/b\",\n"
        "      \"math_libs\": \"/m\",\n"
        "      \"nvvm\": \"/v\",\n"
        "      \"cupti\": \"/c\",\n"
        "      \"comm_libs\": {\n"
        "        \"nccl\": \"/n\",\n"
        "        \"nvshmem\": \"/s\"\n"
        "      },\n"
        "      \"host_compiler\": {\n"
        "        \"module\": \"gcc/1\",\n"
        "        \"ccbin\": \"/g\"\n"
        "      },\n"
        "      \"help\": \"h\",\n"
        "      \"env\": {\n"
        "        \"B\": \"1\"\n"
        "      },\n"
        "      \"aliases\": [\n"
        "        \"x\"\n"
        "      ]\n"
        "    }\n"
        "  ]\n"
        "}\n";
    ctk_config_t *ex = load_ok(issue_example);
    ctk_error_t err;
    char *text;

    ctk_error_init(&err);
    text = ctk_config_dump(ex, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, want_example);
    free(text);
    text = ctk_config_dump(cfg, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, want_rich);
    free(text);
    ctk_config_free(ex);
    ctk_config_free(cfg);
}
END_TEST

/* "validation" after "env", its keys and each partition's in schema order;
 * a partition with a name alone as the name; absent, not written at all
 * (test_config_dump_writes_schema_order_without_defaults). */
START_TEST(test_config_dump_writes_validation_in_schema_order)
{
    static const char want[] =
        "{\n"
        "  \"help\": \"H\",\n"
        "  \"validation\": {\n"
        "    \"launcher\": \"slurm\",\n"
        "    \"build\": \"compute\",\n"
        "    \"queue_timeout\": 600,\n"
        "    \"stage_dir\": \"/s\",\n"
        "    \"partitions\": [\n"
        "      \"a\",\n"
        "      {\n"
        "        \"name\": \"b\",\n"
        "        \"gres\": \"gpu:a:1\",\n"
        "        \"account\": \"acc\",\n"
        "        \"qos\": \"q\",\n"
        "        \"time\": \"1-0\",\n"
        "        \"constraint\": \"c\",\n"
        "        \"extra_args\": [\n"
        "          \"--y\",\n"
        "          \"--x\"\n"
        "        ]\n"
        "      },\n"
        "      \"c\"\n"
        "    ]\n"
        "  },\n"
        "  \"sdks\": [\n"
        "    {\n"
        "      \"version\": \"12.4\",\n"
        "      \"base\": \"/b\"\n"
        "    }\n"
        "  ]\n"
        "}\n";
    static const char want_empty[] =
        "{\n"
        "  \"validation\": {},\n"
        "  \"sdks\": [\n"
        "    {\n"
        "      \"version\": \"12.4\",\n"
        "      \"base\": \"/b\"\n"
        "    }\n"
        "  ]\n"
        "}\n";
    ctk_config_t *cfg = load_ok(
        "{'sdks': [{'version': '12.4', 'base': '/b'}], 'validation': {'partitions': ['a',"
        " {'extra_args': ['--y', '--x'], 'constraint': 'c', 'time': '1-0', 'qos': 'q',"
        " 'account': 'acc', 'gres': 'gpu:a:1', 'name': 'b'}, {'name': 'c'}], 'stage_dir': '/s/',"
        " 'queue_timeout': 600.0, 'build': 'compute', 'launcher': 'slurm'}, 'help': 'H'}");
    ctk_error_t err;
    char *text;

    ctk_error_init(&err);
    text = ctk_config_dump(cfg, &err);
    ck_assert_msg(text != NULL, "%s", err.text);
    ck_assert_str_eq(text, want);
    free(text);
    ctk_config_free(cfg);

    cfg = load_ok("{'validation': {}, 'sdks': [{'version': '12.4', 'base': '/b'}]}");
    text = ctk_config_dump(cfg, &err);
    ck_assert_msg(text != NULL, "%s", err.text);
    ck_assert_str_eq(text, want_empty);
    free(text);
    ctk_config_free(cfg);
}
END_TEST

/* Built in memory, not loaded: bytes JSON cannot hold are refused by
 * name, and a validation section that is not marked present is left out. */
START_TEST(test_config_dump_validation_refuses_invalid_utf8_and_skips_absent)
{
    static const char *const want[] = {
        "/validation/stage_dir: not valid UTF-8, which JSON cannot hold",
        "/validation/partitions/1: not valid UTF-8, which JSON cannot hold",
        "/validation/partitions/1/qos: not valid UTF-8, which JSON cannot hold",
        "/validation/partitions/1/extra_args/1: not valid UTF-8, which JSON cannot hold",
    };
    ctk_partition_conf_t parts[2];
    char *args[2] = { "--a", "--b\xff" };
    ctk_config_t *cfg;
    ctk_error_t err;
    char *text;
    size_t i;

    for (i = 0; i < N_OF(want); i++) {
        ctk_error_init(&err);
        cfg = ctk_config_new(NULL, &err);
        ck_assert_ptr_nonnull(cfg);
        ck_assert_ptr_nonnull(ctk_config_add_sdk(cfg, "12.4", "/x", &err));
        memset(parts, 0, sizeof parts);
        parts[0].name = "a";
        parts[1].name = i == 1 ? "b\xe9" : "b";
        cfg->validation.stage_dir = i == 0 ? "/s\xe9" : "/s";
        cfg->validation.partitions = parts;
        cfg->validation.n_partitions = 2;
        if (i >= 2)
            parts[1].qos = i == 2 ? "q\xc3" : "q";
        if (i == 3) {
            parts[1].extra_args = args;
            parts[1].n_extra_args = 2;
        }
        /* not present: nothing of it is looked at */
        text = ctk_config_dump(cfg, &err);
        ck_assert_msg(text != NULL, "%s", err.text);
        ck_assert_ptr_null(strstr(text, "validation"));
        free(text);
        cfg->validation.present = true;
        ck_assert_ptr_null(ctk_config_dump(cfg, &err));
        ck_assert_int_eq(err.code, CTK_E_QUOTE);
        ck_assert_str_eq(err.text, want[i]);
        /* borrowed, not the config's to free */
        memset(&cfg->validation, 0, sizeof cfg->validation);
        ctk_config_free(cfg);
    }
}
END_TEST

START_TEST(test_config_new_and_add_sdk_dump_and_load_back)
{
    static const char want[] =
        "{\n"
        "  \"sdks\": [\n"
        "    {\n"
        "      \"version\": \"13.0\",\n"
        "      \"base\": \"/usr/local/cuda-13.0\",\n"
        "      \"cupti\": \"/usr/local/cuda-13.0/extras/CUPTI\"\n"
        "    },\n"
        "    {\n"
        "      \"version\": \"12.4\",\n"
        "      \"base\": \"/usr/local/cuda-12.4\"\n"
        "    }\n"
        "  ]\n"
        "}\n";
    ctk_config_t *cfg, *back;
    ctk_sdk_conf_t *sdk;
    ctk_error_t err;
    char *text;

    ctk_error_init(&err);
    cfg = ctk_config_new("<scan>", &err);
    ck_assert_ptr_nonnull(cfg);
    ck_assert_str_eq(cfg->source, "<scan>");
    ck_assert_str_eq(cfg->module_name, "cudatoolkit");
    ck_assert_str_eq(cfg->family, "cuda");
    ck_assert_str_eq(cfg->pc_prefix, "ctk");
    ck_assert(cfg->pc_rpath);
    ck_assert_int_eq(cfg->full_version_aliases, -1);
    ck_assert_uint_eq(cfg->n_sdks, 0);
    sdk = ctk_config_add_sdk(cfg, "13.0", "/usr/local/cuda-13.0", &err);
    ck_assert_ptr_nonnull(sdk);
    ck_assert_str_eq(sdk->jpath, "/sdks/0");
    ck_assert_ptr_null(sdk->module_version);
    ck_assert_ptr_null(sdk->math_libs);
    sdk->cupti = strdup("/usr/local/cuda-13.0/extras/CUPTI");
    sdk = ctk_config_add_sdk(cfg, "12.4", "/usr/local/cuda-12.4", &err);
    ck_assert_ptr_nonnull(sdk);
    ck_assert_str_eq(sdk->jpath, "/sdks/1");
    ck_assert_uint_eq(cfg->n_sdks, 2);
    text = ctk_config_dump(cfg, &err);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, want);
    back = ctk_config_load_string(text, strlen(text), "dump", &err);
    ck_assert_msg(back != NULL, "%s", err.text);
    ck_assert(config_eq(cfg, back));
    ctk_config_free(back);
    free(text);
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_config_dump_refuses_invalid_utf8)
{
    ctk_config_t *cfg;
    ctk_sdk_conf_t *sdk;
    ctk_error_t err;

    ctk_error_init(&err);
    cfg = ctk_config_new(NULL, &err);
    ck_assert_ptr_nonnull(cfg);
    sdk = ctk_config_add_sdk(cfg, "12.4", "/opt/latin1-\xe9t\xe9", &err);
    ck_assert_ptr_nonnull(sdk);
    ck_assert_ptr_null(ctk_config_dump(cfg, &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_str_eq(err.text, "/sdks/0/base: not valid UTF-8, which JSON cannot hold");
    ctk_config_free(cfg);
}
END_TEST

/* ---- out of memory ------------------------------------------------------------ */

/* Each sweep (tests/failmalloc.c) fails every allocation of one operation in
 * turn: each must come back as CTK_E_NOMEM and leak nothing. */
#ifdef TU_HAVE_FAILING_MALLOC
static void *op_load(ctk_error_t *err)
{
    return ctk_config_load_string(rich_example, strlen(rich_example), "rich.json", err);
}

static void *op_load_validation(ctk_error_t *err)
{
    return ctk_config_load_string(validation_example, strlen(validation_example), "v.json", err);
}

static void *op_load_bad(ctk_error_t *err)
{
    static const char bad[] =
        "{\"sdks\": [{\"version\": \"12.4\", \"base\": \"/a\", \"aliases\": [\"x\"]},"
        " {\"version\": \"12.6\", \"base\": \"/b\", \"aliases\": [\"x\"]}]}";
    ctk_config_t *cfg = ctk_config_load_string(bad, strlen(bad), "bad.json", err);

    /* the schema error must come through whenever memory did: stand for
     * it with a token the sweep takes as success */
    ctk_config_free(cfg);
    return err->code == CTK_E_CONFIG ? (void *)1 : NULL;
}

/* Several errors into a list: each one, or out of memory. */
static void *op_load_all_bad(ctk_error_t *err)
{
    static const char bad[] =
        "{\"module_name\": 5, \"sdks\": [{\"version\": \"12.4\", \"base\": \"a\", \"aliases\": [\"x\"]},"
        " {\"version\": \"12.4\", \"base\": \"/b\", \"aliases\": [\"x\", \"y z\"], \"env\": {\"PATH\": \"/x\"}}]}";
    ctk_errlist_t errs;
    ctk_config_t *cfg;
    bool all;

    ctk_errlist_init(&errs, 0);
    cfg = ctk_config_load_string_all(bad, strlen(bad), "bad.json", &errs, err);
    all = err->code == CTK_E_CONFIG && errs.n == 6;
    ctk_config_free(cfg);
    ctk_errlist_fini(&errs);
    return all ? (void *)1 : NULL;
}

static ctk_config_t *dump_me;

static void *op_dump(ctk_error_t *err)
{
    return ctk_config_dump(dump_me, err);
}

static void *op_new_add(ctk_error_t *err)
{
    ctk_config_t *cfg = ctk_config_new("<scan>", err);
    int i;

    for (i = 0; cfg && i < 4; i++) {
        if (!ctk_config_add_sdk(cfg, "12.4", "/usr/local/cuda-12.4", err)) {
            ctk_config_free(cfg);
            return NULL;
        }
    }
    return cfg;
}

static void release_config(void *p)
{
    ctk_config_free(p);
}

static void release_bad(void *p)
{
    if (p != (void *)1)
        ctk_config_free(p);
}

static void release_text(void *p)
{
    free(p);
}
#endif

START_TEST(test_config_survives_allocation_failures)
{
#ifdef TU_HAVE_FAILING_MALLOC
    ck_assert_int_gt(tu_alloc_sweep("load", op_load, release_config), 20);
    ck_assert_int_gt(tu_alloc_sweep("load_bad", op_load_bad, release_bad), 5);
    ck_assert_int_gt(tu_alloc_sweep("load_all_bad", op_load_all_bad, release_bad), 5);
    ck_assert_int_gt(tu_alloc_sweep("load_validation", op_load_validation, release_config), 20);
    dump_me = ctk_config_load_string(rich_example, strlen(rich_example), "rich.json", NULL);
    ck_assert_ptr_nonnull(dump_me);
    ck_assert_int_gt(tu_alloc_sweep("dump", op_dump, release_text), 5);
    ctk_config_free(dump_me);
    dump_me = ctk_config_load_string(validation_example, strlen(validation_example), "v.json",
                                     NULL);
    ck_assert_ptr_nonnull(dump_me);
    ck_assert_int_gt(tu_alloc_sweep("dump_validation", op_dump, release_text), 10);
    ctk_config_free(dump_me);
    ck_assert_int_gt(tu_alloc_sweep("new_add", op_new_add, release_config), 5);
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_config_loads_issue_example_with_defaults);
    tcase_add_test(tc, test_config_loads_every_key);
    tcase_add_loop_test(tc, test_config_full_version_aliases_as_given, 0,
                        sizeof fva_cases / sizeof fva_cases[0]);
    tcase_add_loop_test(tc, test_config_accepts_version, 0, N_OF(good_versions));
    tcase_add_loop_test(tc, test_config_strips_trailing_slashes, 0, N_OF(slashes));
    tcase_add_test(tc, test_config_accepts_one_version_under_two_names);
    tcase_add_test(tc, test_config_reads_comm_libs_and_host_compiler_alone);
    tcase_add_test(tc, test_config_keeps_env_in_file_order_with_tabs);
    tcase_add_test(tc, test_config_ignores_schema_key);
    tcase_add_test(tc, test_config_skips_byte_order_mark);
    tcase_add_test(tc, test_config_takes_null_err_and_keeps_first_error);
    tcase_add_loop_test(tc, test_config_rejects_malformed_json_at_the_bad_token, 0, N_OF(bad_json));
    tcase_add_test(tc, test_config_json_hints_only_where_they_apply);
    tcase_add_loop_test(tc, test_config_rejects_unknown_key, 0, N_OF(unknown_keys));
    tcase_add_loop_test(tc, test_config_rejects_bad_lint_section, 0, N_OF(bad_lint));
    tcase_add_test(tc, test_config_lint_section_becomes_policy_rules);
    tcase_add_test(tc, test_config_load_lint_reads_only_the_section_or_a_policy_file);
    tcase_add_test(tc, test_config_load_lint_reports_every_error);
    tcase_add_loop_test(tc, test_config_rejects_wrong_type, 0, N_OF(wrong_types));
    tcase_add_loop_test(tc, test_config_rejects_missing_required, 0, N_OF(missing));
    tcase_add_loop_test(tc, test_config_rejects_bad_version, 0, N_OF(bad_versions));
    tcase_add_loop_test(tc, test_config_rejects_bad_path, 0, N_OF(bad_paths));
    tcase_add_loop_test(tc, test_config_rejects_bad_name, 0, N_OF(bad_names));
    tcase_add_loop_test(tc, test_config_rejects_duplicate_version_alias_or_unknown_default, 0,
                        N_OF(duplicates));
    tcase_add_loop_test(tc, test_config_reports_a_bad_value_without_follow_up_errors, 0,
                        N_OF(follow_ups));
    tcase_add_test(tc, test_config_reports_every_error_in_file_order);
    tcase_add_test(tc, test_config_keeps_the_first_errors_in_file_order_and_counts_the_rest);
    tcase_add_loop_test(tc, test_config_rejects_bad_or_owned_env, 0, N_OF(bad_env));
    tcase_add_loop_test(tc, test_config_rejects_bad_properties, 0, N_OF(bad_properties));
    tcase_add_test(tc, test_config_sdk_properties_add_to_and_override_the_top_level);
    tcase_add_loop_test(tc, test_config_rejects_bad_validation, 0, N_OF(bad_validation));
    tcase_add_test(tc, test_config_rejects_nul_in_validation_strings);
    tcase_add_test(tc, test_config_loads_validation_field_by_field);
    tcase_add_test(tc, test_config_validation_keys_are_each_optional);
    tcase_add_loop_test(tc, test_config_accepts_partition_value, 0, N_OF(good_partition_values));
    tcase_add_test(tc, test_config_load_reports_missing_file);
    tcase_add_test(tc, test_config_load_names_the_file_in_errors);
    tcase_add_test(tc, test_config_loads_shipped_site_configs);
    tcase_add_test(tc, test_config_example_file_is_the_issue_example);
    tcase_add_test(tc, test_config_loads_every_config_in_the_docs);
    tcase_add_loop_test(tc, test_config_dump_round_trips, 0, N_OF(round_trips));
    tcase_add_test(tc, test_config_dump_writes_schema_order_without_defaults);
    tcase_add_test(tc, test_config_dump_writes_validation_in_schema_order);
    tcase_add_test(tc, test_config_dump_validation_refuses_invalid_utf8_and_skips_absent);
    tcase_add_test(tc, test_config_new_and_add_sdk_dump_and_load_back);
    tcase_add_test(tc, test_config_dump_refuses_invalid_utf8);
    if (tu_alloc_sweeps_possible("check_config"))
        tcase_add_test(tc, test_config_survives_allocation_failures);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
