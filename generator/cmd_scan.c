/* cmd_scan.c - `ctkgen scan` (being written). SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "cli.h"
#include "cmds.h"

static const ctk_opt_t scan_opts[] = {
    { "help", 'h', NULL, CTK_OPT_HELP_ID, "show this help" },
    { NULL, 0, NULL, 0, NULL },
};

const ctk_cmd_doc_t ctk_cmd_scan_doc = { "scan", "[options]", "(not yet available)", NULL, scan_opts };

int ctk_cmd_scan(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return ctk_cli_usage("scan", "not yet available");
}
