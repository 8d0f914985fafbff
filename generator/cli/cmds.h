/* cmds.h - the subcommands main() dispatches to.
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_CMDS_H
#define CTK_CMDS_H

#include "cli.h"
#include "config.h"
#include "sdk.h"
#include "validate.h"

#include <stdbool.h>

/* Each takes argv starting at the command's name and returns an exit code. */
int ctk_cmd_generate(int argc, char **argv);
extern const ctk_cmd_doc_t ctk_cmd_generate_doc;
int ctk_cmd_validate(int argc, char **argv);
extern const ctk_cmd_doc_t ctk_cmd_validate_doc;
int ctk_cmd_scan(int argc, char **argv);
extern const ctk_cmd_doc_t ctk_cmd_scan_doc;
int ctk_cmd_lint(int argc, char **argv);
extern const ctk_cmd_doc_t ctk_cmd_lint_doc;

/* validate + progress on stderr + table or JSON on stdout; shared by
 * `validate` and `generate --validate`.  Returns the exit code. */
#define CTK_MAX_PARTITIONS 64
typedef struct {
    ctk_vopts_t v;
    bool json;
    const char *launcher;     /* --launcher; NULL: the site config's, else local */
    const char *partitions[CTK_MAX_PARTITIONS]; /* --partition, in order */
    size_t n_partitions;
    double queue_timeout_s;   /* --queue-timeout; 0: not given */
    double run_timeout_s;     /* --run-timeout; 0: not given */
    const char *stage_dir;    /* --stage-dir */
    const char *html;         /* --html FILE */
    double cache_ttl_s;       /* --cache-ttl; 0: not given */
    const char *modulepath;   /* --modulepath */
    bool inherit_modulepath;  /* --inherit-modulepath */
} ctk_validate_cli_t;

/* The launcher options validate and generate --validate share: ids for
 * their option tables, and the entries themselves. */
enum {
    CTK_VOPT_LAUNCHER = 0x300,
    CTK_VOPT_PARTITION,
    CTK_VOPT_QUEUE_TIMEOUT,
    CTK_VOPT_RUN_TIMEOUT,
    CTK_VOPT_STAGE_DIR,
    CTK_VOPT_HTML,
    CTK_VOPT_CACHE_TTL,
    CTK_VOPT_MODULEPATH,
    CTK_VOPT_INHERIT_MODULEPATH,
};
#define CTK_VOPT_ENTRIES                                                                                       \
    { "launcher", 0, "local|slurm", CTK_VOPT_LAUNCHER,                                                         \
      "where the CUDA probes launch: here (local, the default) or on Slurm partitions (slurm)" },             \
    { "partition", 0, "NAME", CTK_VOPT_PARTITION,                                                             \
      "with --launcher slurm: a partition to launch on (again for more; all-gpu: every partition with gpu GRES)" }, \
    { "queue-timeout", 0, "SECONDS", CTK_VOPT_QUEUE_TIMEOUT,                                                  \
      "with --launcher slurm: cancel a job still pending after SECONDS and report it not run (default: 600)" }, \
    { "run-timeout", 0, "SECONDS", CTK_VOPT_RUN_TIMEOUT,                                                      \
      "with --launcher slurm: cancel every job not finished SECONDS after the first was submitted" },         \
    { "stage-dir", 0, "DIR", CTK_VOPT_STAGE_DIR,                                                              \
      "with --launcher slurm: where probes are staged; the compute nodes must see it at the same path "       \
      "(default: the site config's, else <cache dir>/stage)" },                                              \
    { "cache-ttl", 0, "SECONDS", CTK_VOPT_CACHE_TTL,                                                          \
      "with --launcher slurm: reuse a partition's cached probe runs this long (default: 86400)" },            \
    { "html", 0, "FILE", CTK_VOPT_HTML, "also write the results as a self-contained HTML page to FILE" },        \
    { "modulepath", 0, "DIRS", CTK_VOPT_MODULEPATH,                                                           \
      "where the modules a generated one requires (host_compiler.module) are found: absolute dirs joined "   \
      "by ':', searched before the site config's validation.modulepath" },                                    \
    { "inherit-modulepath", 0, NULL, CTK_VOPT_INHERIT_MODULEPATH,                                             \
      "search this shell's MODULEPATH too, after those" }

/* Take one of the options above into o; false when id is not one of them.
 * *rc is CTK_EXIT_OK, or CTK_EXIT_USAGE after the usage error was printed. */
bool ctk_validate_cli_option(ctk_validate_cli_t *o, const char *cmd, int id, const char *arg, int *rc);
/* Whether any of them was given (generate: they go with --validate). */
bool ctk_validate_cli_launcher_given(const ctk_validate_cli_t *o);
int ctk_validate_and_report(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, const ctk_validate_cli_t *o);

#endif
