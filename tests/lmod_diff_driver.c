/* lmod_diff_driver.c - run a session of module commands through the sandbox.
 * SPDX-License-Identifier: MIT
 *
 * The sandbox half of the differential test against real Lmod
 * (tests/lmod_diff.sh, tests/lmod_fuzz.sh): what `module load`/`module
 * unload` would leave in the environment, computed with modeval alone.
 *
 * Usage: lmod_diff_driver [--shell] [-e NAME=VALUE]... [CMD NAME]...
 *   -e NAME=VALUE  the starting environment (MODULEPATH among it)
 *   CMD            load | unload
 * Each command, in turn:
 *   load NAME    ctk_modeval_find() on the current MODULEPATH, then
 *                ctk_modeval_run() in load mode (follow on, user_name =
 *                NAME, initial_env = the current environment), and
 *                ctk_modeval_apply() of the result;
 *   unload NAME  the loaded module NAME names (a full name, or a name
 *                without its version, looked up in LOADEDMODULES with its
 *                file from _LMFILES_, as Lmod does) evaluated in unload
 *                mode and applied; not loaded: nothing, as Lmod.
 * A command that fails (not found, an error) changes nothing: Lmod
 * discards the whole command.
 *
 * Output: a line "#status CMD NAME ok|warned|error" per command (warned:
 * Lmod would exit 1 after emitting the changes), then the final
 * environment, sorted, as NAME=VALUE lines; the aliases and shell
 * functions that are set follow as "#alias NAME=VALUE" and
 * "#function NAME=BODY".  With --shell the environment, aliases and
 * functions are printed as bash code instead ('unset' for a starting
 * variable that is gone, 'export', 'alias', function definitions in the
 * form `lmod bash` prints them), for a shell started with the same
 * environment to eval, so the test compares what bash makes of both.
 * Exit 0 (whatever the commands did), 2 usage, 70 internal error. */
#include <ctkconf.h>

#include "error.h"
#include "modeval.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODULEFILE (4u << 20)

typedef struct {
    char *name;
    char *value;
} pair_t;

typedef struct {
    pair_t *items;
    size_t len;
} pairs_t;

static void die(const char *what)
{
    fprintf(stderr, "lmod_diff_driver: %s\n", what);
    exit(70);
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    if (!d)
        die("out of memory");
    return d;
}

/* Set (value non-NULL) or remove a name in an alias/function table. */
static void pairs_set(pairs_t *p, const char *name, const char *value)
{
    size_t i;

    for (i = 0; i < p->len; i++)
        if (strcmp(p->items[i].name, name) == 0)
            break;
    if (i == p->len) {
        if (!value)
            return;
        p->items = realloc(p->items, (p->len + 1) * sizeof *p->items);
        if (!p->items)
            die("out of memory");
        p->items[p->len].name = xstrdup(name);
        p->items[p->len].value = NULL;
        p->len++;
    }
    free(p->items[i].value);
    if (value) {
        p->items[i].value = xstrdup(value);
        return;
    }
    free(p->items[i].name);
    p->items[i] = p->items[--p->len];
}

static void pairs_fini(pairs_t *p)
{
    size_t i;

    for (i = 0; i < p->len; i++) {
        free(p->items[i].name);
        free(p->items[i].value);
    }
    free(p->items);
}

static int cmp_pair(const void *a, const void *b)
{
    return strcmp(((const pair_t *)a)->name, ((const pair_t *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of NAME in an environment list; NULL if unset. */
static const char *env_get(const ctk_strlist_t *env, const char *name)
{
    size_t i, n = strlen(name);

    for (i = 0; i < env->len; i++)
        if (strncmp(env->items[i], name, n) == 0 && env->items[i][n] == '=')
            return env->items[i] + n + 1;
    return NULL;
}

/* The i-th ':'-separated field of s (a copy); NULL past the end. */
static char *field(const char *s, size_t idx)
{
    const char *e;

    for (; idx > 0; idx--) {
        s = strchr(s, ':');
        if (!s)
            return NULL;
        s++;
    }
    e = strchr(s, ':');
    return e ? strndup(s, (size_t)(e - s)) : xstrdup(s);
}

/* The loaded module NAME names, as Lmod's unload finds it: its full name
 * and file, from LOADEDMODULES and _LMFILES_. */
static bool find_loaded(const ctk_strlist_t *env, const char *name, char **full, char **file)
{
    const char *lm = env_get(env, "LOADEDMODULES"), *lf = env_get(env, "_LMFILES_");
    size_t i;
    char *f;

    *full = *file = NULL;
    if (!lm || !lf || !*lm)
        return false;
    for (i = 0; (f = field(lm, i)) != NULL; i++) {
        const char *slash = strrchr(f, '/');
        bool hit = strcmp(f, name) == 0 ||
                   (slash && strlen(name) == (size_t)(slash - f) &&
                    strncmp(f, name, (size_t)(slash - f)) == 0);

        if (hit) {
            *full = f;
            *file = field(lf, i);
            return *file != NULL;
        }
        free(f);
    }
    return false;
}

static void print_squoted(const char *s)
{
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

/* s without a trailing ';' and the blanks after it (Lmod's Bash.lua:
 * v:gsub(";%s*$","")); caller frees */
static char *strip_semicolon(const char *s)
{
    char *d = xstrdup(s);
    size_t n = strlen(d);

    while (n > 0 && strchr(" \t\n\r\f\v", d[n - 1]))
        n--;
    if (n > 0 && d[n - 1] == ';')
        d[n - 1] = '\0';
    return d;
}

static bool valid_name(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static const char *status_of(const ctk_modeval_t *ev)
{
    return !ev ? "error" : ev->warned ? "warned" : "ok";
}

int main(int argc, char **argv)
{
    ctk_strlist_t env, start;
    pairs_t aliases = {0}, functions = {0};
    bool shell = false;
    int i;
    size_t k;

    ctk_strlist_init(&env);
    ctk_strlist_init(&start);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shell") == 0) {
            shell = true;
        } else if (strcmp(argv[i], "-e") == 0 && i + 1 < argc && strchr(argv[i + 1], '=')) {
            if (!ctk_strlist_push(&env, argv[i + 1], NULL) ||
                !ctk_strlist_push(&start, argv[i + 1], NULL))
                die("out of memory");
            i++;
        } else {
            break;
        }
    }
    if ((argc - i) % 2 != 0) {
        fprintf(stderr, "usage: lmod_diff_driver [--shell] [-e NAME=VALUE]... [load|unload NAME]...\n");
        return 2;
    }
    for (; i < argc; i += 2) {
        const char *cmd = argv[i], *name = argv[i + 1];
        ctk_modeval_opts_t opts = {0};
        ctk_modeval_t *ev = NULL;
        ctk_error_t err;
        char *file = NULL, *full = NULL, *src = NULL;
        size_t len = 0;

        ctk_error_init(&err);
        if (strcmp(cmd, "load") == 0) {
            opts.mode = CTK_MODE_LOAD;
            if (!ctk_modeval_find(env_get(&env, "MODULEPATH") ? env_get(&env, "MODULEPATH") : "",
                                  name, &file, &full, &err)) {
                if (ctk_error_is_set(&err))
                    die(err.text);
                printf("#status %s %s error\n", cmd, name);
                printf("#why %s %s: not found on MODULEPATH\n", cmd, name);
                continue;
            }
        } else if (strcmp(cmd, "unload") == 0) {
            opts.mode = CTK_MODE_UNLOAD;
            if (!find_loaded(&env, name, &full, &file)) {
                free(full);
                free(file);
                printf("#status %s %s ok\n", cmd, name);
                continue;
            }
        } else {
            fprintf(stderr, "lmod_diff_driver: unknown command '%s'\n", cmd);
            return 2;
        }
        src = ctk_file_read(file, MAX_MODULEFILE, &len, &err);
        if (src) {
            opts.initial_env = &env;
            opts.follow = true;
            opts.user_name = name;
            ev = ctk_modeval_run(file, src, len, full, &opts, &err);
        }
        printf("#status %s %s %s\n", cmd, name, status_of(ev));
        if (!ev) {
            /* one line: an error text may span several */
            char *nl;

            while ((nl = strchr(err.text, '\n')) != NULL)
                *nl = ' ';
            printf("#why %s %s: %s:%d: %s\n", cmd, name, err.source, err.line, err.text);
        } else {
            ctk_error_t aerr;

            ctk_error_init(&aerr);
            if (!ctk_modeval_apply(ev, &env, &aerr))
                die(aerr.text);
            for (k = 0; k < ev->n_aliases; k++)
                pairs_set(&aliases, ev->aliases[k].name, ev->aliases[k].value);
            for (k = 0; k < ev->n_functions; k++)
                pairs_set(&functions, ev->functions[k].name, ev->functions[k].value);
            for (k = 0; k < ev->not_run.len; k++)
                printf("#not-run %s %s: %s\n", cmd, name, ev->not_run.items[k]);
        }
        ctk_modeval_free(ev);
        free(src);
        free(file);
        free(full);
    }

    /* qsort() of no elements may get a NULL base, which it must not */
    if (env.len)
        qsort(env.items, env.len, sizeof *env.items, cmp_str);
    if (aliases.len)
        qsort(aliases.items, aliases.len, sizeof *aliases.items, cmp_pair);
    if (functions.len)
        qsort(functions.items, functions.len, sizeof *functions.items, cmp_pair);
    if (!shell) {
        for (k = 0; k < env.len; k++)
            printf("%s\n", env.items[k]);
        for (k = 0; k < aliases.len; k++)
            printf("#alias %s=%s\n", aliases.items[k].name, aliases.items[k].value);
        for (k = 0; k < functions.len; k++)
            printf("#function %s=%s\n", functions.items[k].name, functions.items[k].value);
        goto out;
    }
    for (k = 0; k < start.len; k++) {
        char *name = xstrdup(start.items[k]);

        *strchr(name, '=') = '\0';
        if (!env_get(&env, name))
            printf("unset %s\n", name);
        free(name);
    }
    for (k = 0; k < env.len; k++) {
        char *name = xstrdup(env.items[k]), *eq = strchr(name, '=');

        *eq = '\0';
        if (!valid_name(name)) {
            /* bash cannot hold it: the difference must still show */
            printf("#note non-identifier variable set: %s\n", name);
        } else {
            printf("export %s=", name);
            print_squoted(eq + 1);
            putchar('\n');
        }
        free(name);
    }
    for (k = 0; k < aliases.len; k++) {
        char *v = strip_semicolon(aliases.items[k].value);

        printf("alias %s=", aliases.items[k].name);
        print_squoted(v);
        putchar('\n');
        free(v);
    }
    for (k = 0; k < functions.len; k++) {
        /* as Lmod's Bash.lua: body less a trailing ';' and one trailing newline */
        char *v = strip_semicolon(functions.items[k].value);
        size_t n = strlen(v);

        if (n && v[n - 1] == '\n')
            v[n - 1] = '\0';
        printf("%s () { %s; \n};\n", functions.items[k].name, v);
        free(v);
    }
out:
    pairs_fini(&aliases);
    pairs_fini(&functions);
    ctk_strlist_fini(&env);
    ctk_strlist_fini(&start);
    return 0;
}
