/* config.h - the site config: JSON in, a checked ctk_config_t out.
 * SPDX-License-Identifier: MIT
 *
 * config.c is the only file that parses JSON input.  Loading checks the
 * schema (docs/site-config.md, docs/site-config.schema.json) but not the
 * filesystem: whether paths hold a toolkit is sdk.c's job.  Every schema
 * error carries the config path, the line and column of the offending
 * value (or key) and its JSON path in the text, e.g.
 *   site.json:7:7: error: /sdks/0/bsae: unknown key (did you mean "base"?)
 * and one load finds every schema error of the file (ctk_config_load_all).
 */
#ifndef CTK_CONFIG_H
#define CTK_CONFIG_H

#include "error.h"
#include "policy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Position of a value in the config text; 0/0 when unknown. */
typedef struct {
    int line, column;
} ctk_pos_t;

/* Fields of an SDK entry whose positions are kept for error messages. */
typedef enum {
    CTK_F_SDK = 0, /* the SDK's object itself */
    CTK_F_VERSION,
    CTK_F_NAME,
    CTK_F_BASE,
    CTK_F_MATH_LIBS,
    CTK_F_NVVM,
    CTK_F_CUPTI,
    CTK_F_NCCL,
    CTK_F_NVSHMEM,
    CTK_F_CCBIN,
    CTK_F__COUNT
} ctk_sdk_field_t;

/* One NAME=VALUE pair, kept in the order given. */
typedef struct {
    char *name;
    char *value;
} ctk_kv_t;

typedef struct {
    char *version;        /* required: CUDA release the toolkit must be, "X.Y" or "X.Y.Z" */
    char *module_version; /* "name" key: module/.pc version string; defaults to version */
    char *base;           /* required: toolkit root (bin/nvcc, cuda_runtime.h, libcudart) */
    char *math_libs;      /* optional roots; NULL when absent (found under base) */
    char *nvvm;
    char *cupti;
    char *nccl;           /* "comm_libs": {"nccl": DIR, "nvshmem": DIR}; NULL if absent */
    char *nvshmem;
    char *host_compiler_module; /* "host_compiler": {"module": "gcc/12", "ccbin": PATH} */
    char *host_compiler_ccbin;
    char *help;           /* extra help text for this SDK; NULL if absent */
    ctk_kv_t *env;        /* "env": extra environment variables, in file order */
    size_t n_env;
    ctk_kv_t *properties; /* "properties": Lmod properties, NAME: VALUE in file
                             order; each adds to, or by name overrides, the
                             top level's (ctk_config_properties) */
    size_t n_properties;
    char **aliases;       /* "aliases": extra module versions pointing at this one */
    size_t n_aliases;
    bool follow_link;     /* "follow_link": a base that is a symbolic link is kept as
                             spelled (the module follows the link); default false:
                             generate resolves it (ctk_sdk_conf_pin_base, sdk.h) */
    /* where it came from, for messages */
    char jpath[32];       /* "/sdks/3" */
    ctk_pos_t pos[CTK_F__COUNT]; /* position of each field's value */
} ctk_sdk_conf_t;

/* One entry of "validation": {"partitions": [...]}: a Slurm partition to
 * launch the probes on, given as a name or as an object.  Loading checks
 * every string (non-empty, no control characters) and the forms below;
 * names are unique across the list. */
typedef struct {
    char *name;           /* required: the partition, or "all-gpu" (every
                           * partition whose nodes advertise gpu GRES);
                           * [A-Za-z0-9._-], at most 64 bytes, not "." or ".." */
    char *gres;           /* --gres for the job, "name:count" or "name:type:count"
                           * with a count of 1 or more; NULL: "gpu:1" */
    char *account;        /* --account, --qos, --time, --constraint; NULL: not passed */
    char *qos;
    char *time;           /* one of Slurm's forms: "minutes", "MM:SS", "HH:MM:SS",
                           * "D-HH", "D-HH:MM", "D-HH:MM:SS" */
    char *constraint;
    char **extra_args;    /* passed to sbatch verbatim after ctkgen's own options;
                           * each a long option in one string ("--name" or
                           * "--name=value"), none of them (nor an abbreviation
                           * of) --partition, --gres, --output, --error, --wrap,
                           * --export, --chdir, --job-name, --parsable, --wait */
    size_t n_extra_args;
    char jpath[48];       /* "/validation/partitions/1", for messages */
    ctk_pos_t pos;        /* the entry's value (the string, or the object's '{') */
} ctk_partition_conf_t;

/* "validation": how `validate` (and `generate --validate`) launch the
 * probes.  Every field optional; the command line wins over each. */
typedef struct {
    char *launcher;       /* "local" or "slurm"; NULL: not given (local) */
    char *build;          /* "login" (build the probes where ctkgen runs) or
                           * "compute" (inside the job); NULL: not given (login) */
    double queue_timeout_s; /* "queue_timeout": seconds a job may stay pending,
                             * more than 0 and at most 604800; 0: not given */
    char *stage_dir;      /* "stage_dir": a directory the compute nodes see at
                           * the same path, where probes are staged; absolute,
                           * no trailing '/', no '%' (sbatch's file name
                           * patterns); NULL: default */
    char **modulepath;    /* "modulepath": where validate finds the modules
                           * the generated ones require (host_compiler.module),
                           * in search order; absolute, no ':' */
    size_t n_modulepath;
    ctk_partition_conf_t *partitions; /* in file order; when given, at least one */
    size_t n_partitions;
    bool present;         /* the key was in the file; ctk_config_dump writes the
                           * section only when set */
} ctk_validation_conf_t;

typedef struct {
    char *source;           /* config path, or "<scan>" when built from a scan */
    uint64_t text_hash;     /* ctk_hash_mix of the config text it was loaded from, never
                               0; 0 when built otherwise (a scan) */
    char *module_name;      /* default "cudatoolkit" */
    char *family;           /* default "cuda" */
    char *default_version;  /* module version marked default; NULL: none.
                               An alias in the file is resolved to the
                               module version it selects. */
    char *pc_prefix;        /* .pc name prefix; default "ctk" -> ctk-12.4.pc */
    char *pkgconfig_dir;    /* where the .pc files will live for users;
                               NULL: OUT/pkgconfig made absolute */
    bool pc_rpath;          /* add a run path to the .pc Libs (default true) */
    int full_version_aliases; /* the .modulerc files also give each toolkit
                               its full X.Y.Z version as a name: 1 as given
                               true, 0 as given false (only the default and
                               each SDK's own "aliases", one line per
                               toolkit fewer for every module command to
                               read), -1 not given: generate decides from
                               the tree it writes (cmd_generate.c,
                               full_names_of_tree), render takes it as 0 */
    char *modulecmd;        /* Environment Modules' modulecmd.tcl for validate; NULL: find it */
    char *help;             /* site-wide help text; NULL if absent */
    ctk_kv_t *env;          /* site-wide extra environment variables */
    size_t n_env;
    ctk_kv_t *properties;   /* "properties": site-wide Lmod properties
                               (add_property(NAME, VALUE)), in file order;
                               names and values [A-Za-z0-9_.-], at most 64 bytes */
    size_t n_properties;
    ctk_validation_conf_t validation; /* zeroed when absent */
    ctk_policy_t lint;      /* "lint": the policy `ctkgen lint --config` applies;
                               no rules when absent.  Checked on every load;
                               ctk_config_dump does not write it */
    ctk_sdk_conf_t *sdks;
    size_t n_sdks;
} ctk_config_t;

/* Parse and check a config file.  Caller frees with ctk_config_free().
 * The check goes on after a schema error, so the file's first error in
 * file order is what err gets; ctk_config_load_all() gets every one. */
ctk_config_t *ctk_config_load(const char *path, ctk_error_t *err);

/* Same, from text in memory; source names it in errors. */
ctk_config_t *ctk_config_load_string(const char *text, size_t len, const char *source,
                                     ctk_error_t *err);

/* As ctk_config_load(_string), and every schema error of the file goes to
 * errs (caller's, initialised; may be NULL), in file order: at most
 * errs->max of them kept, the others counted in errs->dropped.  A bad
 * value is reported once and left out; what other rules would read from
 * it (an SDK's version, name or aliases, module_name) is not judged
 * again, so errs holds no follow-up errors.  On failure err says why:
 * CTK_E_CONFIG, the first error of errs; or what stopped the load before
 * or during the check, which errs does not hold: an unreadable file
 * (CTK_E_IO), a JSON syntax error (CTK_E_JSON: there is no going on after
 * one), out of memory. */
ctk_config_t *ctk_config_load_all(const char *path, ctk_errlist_t *errs, ctk_error_t *err);
ctk_config_t *ctk_config_load_string_all(const char *text, size_t len, const char *source,
                                         ctk_errlist_t *errs, ctk_error_t *err);

/* An empty config with defaults (for scans); caller frees. */
ctk_config_t *ctk_config_new(const char *source, ctk_error_t *err);

/* Append an SDK with version and base set, the rest NULL; returns a borrowed
 * pointer to fill in (strings it holds are freed by ctk_config_free).  The
 * pointer is valid until the next ctk_config_add_sdk on cfg. */
ctk_sdk_conf_t *ctk_config_add_sdk(ctk_config_t *cfg, const char *version, const char *base,
                                   ctk_error_t *err);

void ctk_config_free(ctk_config_t *cfg);

/* Read a lint policy from path into *into, after the rules it holds
 * (so a later file's rules win over an earlier one's; error_on and strict
 * are replaced when the file gives them).  site_config: path is a site
 * config and only its "lint" object is read (the rest is not checked);
 * *found says whether it had one.  Otherwise the file's top-level object
 * is the policy (found may be NULL).  Errors as for ctk_config_load_all
 * (errs may be NULL): CTK_E_JSON (jansson's line and column) or every
 * CTK_E_CONFIG at its offending value, e.g. policy.json:4:15: error:
 * /rules/0/code: unknown finding code "CTK-CPAHT-001" (did you mean
 * "CTK-CPATH-001"?).  On failure *into may hold some of the file's
 * rules. */
bool ctk_config_load_lint(const char *path, bool site_config, ctk_policy_t *into, bool *found,
                          ctk_errlist_t *errs, ctk_error_t *err);
/* Would "env" (top-level or an SDK's) take NAME=VALUE in a config whose
 * module_name is module_name?  NULL when it would, else why not (static
 * text): not a variable name, a variable the generated module sets itself
 * (PATH, CUDA_HOME, <MODULE_NAME>_VERSION, NVCC_CCBIN...), LDFLAGS and
 * the other flags, an empty value, a newline or control character, a '~'
 * the shell would expand. */
const char *ctk_config_env_refusal(const char *module_name, const char *name, const char *value);

/* Would "properties" take NAME: VALUE?  NULL when it would, else why not
 * (static text): a name or value that is not a word of letters, digits,
 * '.', '_' and '-' of at most 64 bytes. */
const char *ctk_config_property_refusal(const char *name, const char *value);

/* The properties a module of sdk gets, in order: the top level's (an SDK
 * property of the same name gives the value), then the SDK's other ones.
 * Fills out[] (room for cfg->n_properties + sdk->n_properties entries) with
 * borrowed pointers and returns how many. */
size_t ctk_config_properties(const ctk_config_t *cfg, const ctk_sdk_conf_t *sdk,
                             const ctk_kv_t **out);

/* Render a config as JSON text in the schema's key order (for `scan`).
 * Caller frees. */
char *ctk_config_dump(const ctk_config_t *cfg, ctk_error_t *err);

#endif
