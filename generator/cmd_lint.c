/* cmd_lint.c - `ctkgen lint` (being written). SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "cli.h"
#include "cmds.h"

static const ctk_opt_t lint_opts[] = {
    { "help", 'h', NULL, CTK_OPT_HELP_ID, "show this help" },
    { NULL, 0, NULL, 0, NULL },
};

const ctk_cmd_doc_t ctk_cmd_lint_doc = { "lint", "[options]", "(not yet available)", NULL, lint_opts };

int ctk_cmd_lint(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return ctk_cli_usage("lint", "not yet available");
}
