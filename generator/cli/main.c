/* main.c - ctkgen entry point: global options and dispatch to cmd_*.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "cli.h"
#include "cmds.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const ctk_cmd_doc_t *doc;
    int (*run)(int argc, char **argv);
} command_t;

static const command_t commands[] = {
    { &ctk_cmd_generate_doc, ctk_cmd_generate },
    { &ctk_cmd_validate_doc, ctk_cmd_validate },
    { &ctk_cmd_scan_doc, ctk_cmd_scan },
    { &ctk_cmd_lint_doc, ctk_cmd_lint },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_main_help(void)
{
    static const char *const docs[] = { "site-config.md", NULL };
    size_t i;

    printf("Usage: ctkgen [-v|-q] <command> [options] [args]\n"
           "Publish installed NVIDIA CUDA toolkits as Lmod and Environment Modules\n"
           "modulefiles and pkg-config files.\n\n"
           "Global options (-v and -q may also follow the command name):\n"
           "  -v, --verbose   say more (each file, each toolkit found)\n"
           "  -q, --quiet     only errors: no notes, no warnings\n"
           "  -h, --help      this text\n"
           "  -V, --version   print the version\n\n"
           "Commands:\n");
    for (i = 0; i < N_COMMANDS; i++)
        ctk_cli_print_command(commands[i].doc->name, commands[i].doc->summary);
    ctk_cli_print_command("help", "show help for a command (ctkgen help generate)");
    ctk_cli_print_command("version", "print the version");
    printf("\nWith no config, 'ctkgen generate' scans the standard install places\n"
           "(/usr/local/cuda, /usr/local/cuda-*, /opt/cuda, /opt/nvidia/hpc_sdk, and\n"
           "/usr for Debian's packages) and writes into ./ctkgen-out.  A site config\n"
           "(every key in site-config.md, under Documentation) says exactly what to\n"
           "publish.\n\n");
    ctk_cli_print_exit_codes(NULL);
    ctk_cli_print_docs(docs);
}

static const command_t *find_command(const char *name)
{
    size_t i;

    for (i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].doc->name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const command_t *cmd;
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
            ctk_cli_verbosity = CTK_VERBOSE;
        } else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
            ctk_cli_verbosity = CTK_QUIET;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            print_main_help();
            return CTK_EXIT_OK;
        } else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
            printf("ctkgen %s\n", PACKAGE_VERSION);
            return CTK_EXIT_OK;
        } else {
            return ctk_cli_usage(NULL, "unknown global option '%s'", argv[i]);
        }
    }
    if (i >= argc)
        return ctk_cli_usage(NULL, "no command given (commands: generate, validate, scan, lint, help, version)");
    /* help and version take no options but --help, and nothing more */
    if (!strcmp(argv[i], "version") || !strcmp(argv[i], "help")) {
        bool help = !strcmp(argv[i], "help");
        const char *arg = i + 1 < argc ? argv[i + 1] : NULL;

        if (arg && (!strcmp(arg, "-h") || !strcmp(arg, "--help")) && i + 2 == argc) {
            print_main_help();
            return CTK_EXIT_OK;
        }
        if (!help && arg)
            return ctk_cli_usage(NULL, "version: unexpected argument '%s'", arg);
        if (help && i + 2 < argc)
            return ctk_cli_usage(NULL, "help: unexpected argument '%s' (help takes one command)",
                                 argv[i + 2]);
        if (!help) {
            printf("ctkgen %s\n", PACKAGE_VERSION);
            return CTK_EXIT_OK;
        }
        if (!arg) {
            print_main_help();
            return CTK_EXIT_OK;
        }
        cmd = find_command(arg);
        if (!cmd)
            return ctk_cli_usage(NULL, "help: no such command '%s'", arg);
        ctk_cli_print_help(cmd->doc);
        return CTK_EXIT_OK;
    }
    cmd = find_command(argv[i]);
    if (!cmd)
        return ctk_cli_usage(NULL, "no such command '%s' (commands: generate, validate, scan, lint, help, version)", argv[i]);
    ctk_cli_command = cmd->doc->name;
    return cmd->run(argc - i, argv + i);
}
