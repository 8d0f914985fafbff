/* cmds.h - the subcommands main() dispatches to.
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_CMDS_H
#define CTK_CMDS_H

#include "cli.h"

/* Each takes argv starting at the command's name and returns an exit code. */
int ctk_cmd_generate(int argc, char **argv);
extern const ctk_cmd_doc_t ctk_cmd_generate_doc;

#endif
