/* cmd_scan.c - `ctkgen scan`: directory trees -> a site config for review.
 * SPDX-License-Identifier: MIT
 *
 * Walks the given directories (none: the standard install places), prints
 * one stderr line per decision and a summary, and writes the config JSON
 * to stdout or, atomically, to -o FILE.  Finding no toolkit is exit 4 and
 * writes nothing.  The config names a "default" only when --default asks:
 * without one, generate picks the highest version, which stays right when
 * the admin deletes SDKs from the file; a "default" naming a deleted SDK
 * would make the whole config invalid.
 */
#include <ctkconf.h>

#include "cli.h"
#include "cmd_common.h"
#include "cmds.h"
#include "config.h"
#include "discover.h"
#include "util.h"
#include "write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_OUTPUT = 'o',
    OPT_MAX_DEPTH = 0x100,
    OPT_DEFAULT,
};

static const ctk_opt_t scan_opts[] = {
    { "output", 'o', "FILE", OPT_OUTPUT, "write the config to FILE (atomically) instead of stdout" },
    { "max-depth", 0, "N", OPT_MAX_DEPTH, "look at most N levels below each DIR (default: 8; 0: DIR itself)" },
    { "default", 0, "VERSION", OPT_DEFAULT,
      "make VERSION, the module version of a toolkit found, the config's \"default\" (without it: no \"default\")" },
    { "help", 'h', NULL, CTK_OPT_HELP_ID, "show this help" },
    { NULL, 0, NULL, 0, NULL },
};

static const char *const scan_docs[] = { "scan.md", "site-config.md", NULL };

const ctk_cmd_doc_t ctk_cmd_scan_doc = {
    "scan",
    "[-o FILE] [--default VERSION] [options] [DIR...]",
    "Find the CUDA toolkits installed under each DIR and write a site config\n"
    "describing them, ready for review and for 'ctkgen generate -c'.",
    "With no DIR: /usr/local/cuda, /usr/local/cuda-*, /opt/cuda,\n"
    "/opt/nvidia/hpc_sdk, and /usr itself for Debian's nvidia-cuda-toolkit.\n"
    "Recognises standalone installs (runfile, deb, rpm, --installpath), NVIDIA\n"
    "HPC SDK releases (cuda/X.Y with math_libs/X.Y and comm_libs), conda\n"
    "environments, NVIDIA's cu13 wheel tree (site-packages/nvidia/cu13), Debian's\n"
    "nvidia-cuda-toolkit and Spack prefixes; the version is the toolkit's own\n"
    "(version.json, version.txt, CUDART_VERSION, nvcc --version).  A CUDA\n"
    "runtime without nvcc (CUDA 12 per-component wheels) is reported as\n"
    "runtime-only and left out.  A bin/nvcc that is a wrapper script of another\n"
    "toolkit's nvcc (/usr/local/bin/nvcc) leads to that toolkit, read, never run;\n"
    "/usr/local, /usr, /opt and / are never toolkits by themselves.  stderr gets\n"
    "one line per decision: found, duplicate, wrapper, runtime-only, broken,\n"
    "unreadable, dangling, loop (with -v also depth), a warning for each\n"
    "toolkit whose nvcc another user can change (it stays in the config), then\n"
    "a summary.  Problems are reported and\n"
    "skipped, never fatal.\n"
    "The config has no \"default\" unless --default names one: generate then\n"
    "makes the highest version the default (the first of equals), and an SDK\n"
    "deleted from the file leaves the config valid.  See scan.md.  Exit 4\n"
    "when no toolkit is found.\n",
    scan_opts,
    scan_docs,
};

/* The module version of scanned SDK i: its name, else its X.Y. */
static const char *modver(const ctk_config_t *cfg, size_t i)
{
    return cfg->sdks[i].module_version ? cfg->sdks[i].module_version : cfg->sdks[i].version;
}

/* Make want the config's default: it must be the module version of one of
 * the SDKs found.  Otherwise a usage error naming them. */
static int set_default(ctk_config_t *cfg, const char *want, ctk_error_t *err)
{
    ctk_buf_t have;
    size_t i;
    int rc;

    for (i = 0; i < cfg->n_sdks; i++) {
        if (strcmp(modver(cfg, i), want) == 0) {
            char *d = ctk_strdup(want, err);

            if (!d)
                return ctk_cli_error(err);
            free(cfg->default_version);
            cfg->default_version = d;
            return CTK_EXIT_OK;
        }
    }
    ctk_buf_init(&have);
    for (i = 0; i < cfg->n_sdks; i++)
        ctk_buf_printf(&have, "%s%s", i ? ", " : "", modver(cfg, i));
    if (have.failed) {
        ctk_buf_fini(&have);
        ctk_error_nomem(err);
        return ctk_cli_error(err);
    }
    rc = ctk_cli_usage("scan", "--default %s names no toolkit found; the choices: %s", want,
                       have.data);
    ctk_buf_fini(&have);
    return rc;
}

/* Write the config text json to output (atomically), or to stdout. */
static bool emit(const char *output, const char *json, ctk_error_t *err)
{
    if (output) {
        if (!ctk_write_file_atomic(output, json, strlen(json), err)) {
            ctk_cmd_explain_denied(output, false, "write it elsewhere with -o FILE (or to stdout, without -o)", err);
            return false;
        }
        ctk_cli_info("wrote %s", output);
        return true;
    }
    fputs(json, stdout);
    if (fflush(stdout) != 0) {
        ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "cannot write to stdout: %s", strerror(errno));
        return false;
    }
    return true;
}

int ctk_cmd_scan(int argc, char **argv)
{
    const char *output = NULL, *want_default = NULL, *arg;
    ctk_scan_t *res = NULL;
    ctk_error_t err;
    char *json = NULL;
    size_t i, n_dirs;
    int id, rc = CTK_EXIT_OK, max_depth = -1;

    optind = 1;
    while ((id = ctk_cli_next_opt(argc, argv, &ctk_cmd_scan_doc, &arg)) != -1) {
        switch (id) {
        case OPT_OUTPUT: output = arg; break;
        case OPT_DEFAULT: want_default = arg; break;
        case OPT_MAX_DEPTH:
            if (ctk_cmd_parse_depth("scan", arg, &max_depth) != CTK_EXIT_OK)
                return CTK_EXIT_USAGE;
            break;
        case CTK_OPT_HELP_ID:
            ctk_cli_print_help(&ctk_cmd_scan_doc);
            return CTK_EXIT_OK;
        default:
            return CTK_EXIT_USAGE;
        }
    }
    if (output && !*output)
        return ctk_cli_usage("scan", "--output needs a file name");
    if (want_default && !*want_default)
        return ctk_cli_usage("scan", "--default needs a module version");
    for (i = (size_t)optind; i < (size_t)argc; i++)
        if (!*argv[i])
            return ctk_cli_usage("scan", "an empty directory name");
    n_dirs = (size_t)(argc - optind);

    ctk_error_init(&err);
    if (!(res = ctk_cmd_run_scan(argv + optind, n_dirs, max_depth, true, &err)))
        goto fail;
    if (res->cfg->n_sdks == 0) {
        ctk_cmd_no_toolkit(argv + optind, n_dirs,
                           "name the directories that hold one (ctkgen scan DIR...), or describe it in a site "
                           "config", &err);
        goto fail;
    }
    if (want_default && (rc = set_default(res->cfg, want_default, &err)) != CTK_EXIT_OK)
        goto done;
    if (!(json = ctk_config_dump(res->cfg, &err)) || !emit(output, json, &err))
        goto fail;
    goto done;
fail:
    rc = ctk_cli_error(&err);
done:
    free(json);
    ctk_scan_free(res);
    return rc;
}
