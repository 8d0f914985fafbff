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
        !env_eq(a->env, a->n_env, b->env, b->n_env) || a->n_aliases != b->n_aliases)
        return false;
    for (i = 0; i < a->n_aliases; i++)
        if (!str_eq(a->aliases[i], b->aliases[i]))
            return false;
    return true;
}

static bool config_eq(const ctk_config_t *a, const ctk_config_t *b)
{
    size_t i;

    if (!str_eq(a->module_name, b->module_name) || !str_eq(a->family, b->family) ||
        !str_eq(a->default_version, b->default_version) || !str_eq(a->pc_prefix, b->pc_prefix) ||
        !str_eq(a->pkgconfig_dir, b->pkgconfig_dir) || a->pc_rpath != b->pc_rpath ||
        !str_eq(a->help, b->help) || !env_eq(a->env, a->n_env, b->env, b->n_env) ||
        a->n_sdks != b->n_sdks)
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
      "/env/NVCC_CCBIN: NVCC_CCBIN is set by the generated module from host_compiler.ccbin; set that instead" },
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

START_TEST(test_config_rejects_bad_or_owned_env)
{
    expect_error(&bad_env[_i]);
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
    "  \"pc_rpath\": false,\n"
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
    ck_assert_ptr_null(cfg->help);
    ck_assert_uint_eq(cfg->n_env, 0);
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
    "{'module_name': 'nvhpc-cuda', 'pc_rpath': true, 'sdks': [{'version': '13.0',"
    " 'base': '/usr/local/cuda-13.0', 'aliases': []}]}",
    "{'family': 'gpu', 'pc_prefix': 'cuda', 'default': '12', 'help': 'say \\'hi\\' \\\\ ~/ \\u2603',"
    " 'sdks': [{'version': '12.4', 'base': '/opt/\\u00fcn\\u00efcode/cuda', 'aliases': ['12', 'latest'],"
    " 'comm_libs': {'nccl': '/opt/nccl'}, 'env': {'A': 'x\\ty'}}]}",
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
        " 'env': {'A': '1'}, 'help': 'H', 'pc_rpath': false, 'pkgconfig_dir': '/p',"
        " 'pc_prefix': 'pp', 'default': 'n', 'family': 'f', 'module_name': 'm'}");
    static const char want_rich[] =
        "{\n"
        "  \"module_name\": \"m\",\n"
        "  \"family\": \"f\",\n"
        "  \"default\": \"n\",\n"
        "  \"pc_prefix\": \"pp\",\n"
        "  \"pkgconfig_dir\": \"/p\",\n"
        "  \"pc_rpath\": false,\n"
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
    dump_me = ctk_config_load_string(rich_example, strlen(rich_example), "rich.json", NULL);
    ck_assert_ptr_nonnull(dump_me);
    ck_assert_int_gt(tu_alloc_sweep("dump", op_dump, release_text), 5);
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
    tcase_add_loop_test(tc, test_config_rejects_wrong_type, 0, N_OF(wrong_types));
    tcase_add_loop_test(tc, test_config_rejects_missing_required, 0, N_OF(missing));
    tcase_add_loop_test(tc, test_config_rejects_bad_version, 0, N_OF(bad_versions));
    tcase_add_loop_test(tc, test_config_rejects_bad_path, 0, N_OF(bad_paths));
    tcase_add_loop_test(tc, test_config_rejects_bad_name, 0, N_OF(bad_names));
    tcase_add_loop_test(tc, test_config_rejects_duplicate_version_alias_or_unknown_default, 0,
                        N_OF(duplicates));
    tcase_add_loop_test(tc, test_config_rejects_bad_or_owned_env, 0, N_OF(bad_env));
    tcase_add_test(tc, test_config_load_reports_missing_file);
    tcase_add_test(tc, test_config_load_names_the_file_in_errors);
    tcase_add_test(tc, test_config_loads_shipped_site_configs);
    tcase_add_test(tc, test_config_example_file_is_the_issue_example);
    tcase_add_test(tc, test_config_loads_every_config_in_the_docs);
    tcase_add_loop_test(tc, test_config_dump_round_trips, 0, N_OF(round_trips));
    tcase_add_test(tc, test_config_dump_writes_schema_order_without_defaults);
    tcase_add_test(tc, test_config_new_and_add_sdk_dump_and_load_back);
    tcase_add_test(tc, test_config_dump_refuses_invalid_utf8);
    if (tu_alloc_sweeps_possible("check_config"))
        tcase_add_test(tc, test_config_survives_allocation_failures);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
