/* gen_lmod.c - random but valid Lua modulefiles and module sessions.
 * SPDX-License-Identifier: MIT
 *
 * The generator of the differential fuzz target against real Lmod
 * (tests/lmod_fuzz.sh).  Usage: gen_lmod SEED DIR
 * Writes, deterministically for SEED (any 64-bit number):
 *   DIR/mf/mN/1.lua   1-4 modulefiles (N = 0..3)
 *   DIR/sessions      one case in tests/data/lmod-diff/sessions' format:
 *                     a starting environment and 2-7 load/unload commands
 * so `CTK_LMOD_DIFF_DATA=DIR tests/lmod_diff.sh` runs it again.
 *
 * The grammar: prepend_path/append_path/remove_path (positional and table
 * forms, ':' and ';' delimiters, priorities 0/10/20, force=true) over a
 * small pool of variables, with values of 1-3 entries drawn from a pool
 * holding duplicates, empty entries, trailing and doubled slashes, entries
 * already in the starting PATH; setenv/unsetenv/pushenv (pushenv of false
 * included) over another pool; family(); set_alias/unset_alias and
 * set_shell_function/unset_shell_function; load() of a later module (no
 * cycles); statements guarded by mode() and isloaded(); values read with
 * os.getenv.  One statement a line, so a failing case can be reduced line
 * by line.
 *
 * Left out, because the sandbox is known to differ there (docs/lmod-differences.md B9; the
 * corpus cases marked `differs` cover it): depends_on(), whose module-level
 * reference counts Lmod keeps in _ModuleTable_; and pushenv() of "" (B15),
 * whose stack entry Lmod 8.6.19 mishandles on unload.  CTK_LMOD_FUZZ_ALL=1
 * puts them back. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng;

static uint64_t next(void)
{
    /* splitmix64 */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned pick(unsigned n)
{
    return (unsigned)(next() % n);
}

static bool chance(unsigned percent)
{
    return pick(100) < percent;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const path_vars[] = { "PATH", "MANPATH", "FP_A", "FP_B", "LD_LIBRARY_PATH" };
static const char *const entries[] = { "/p1", "/p2", "/p3", "/p1/", "/p2//", "/q/./r", "",
                                       "/usr/bin", "/bin", "/p3", "/s p" };
static const char *const scalar_vars[] = { "SV_A", "SV_B", "CC", "FP_A" };
static const char *const scalars[] = { "v1", "v2", "a b", "", "/x/y", "x:y", "42" };
static const char *const aliases[] = { "fa", "fb" };
static const char *const funcs[] = { "ff", "fg" };
static bool all;
static unsigned n_mods;

/* 1-3 entries joined with delim */
static void path_value(FILE *f, char delim)
{
    unsigned i, n = 1 + pick(3);

    fputc('"', f);
    for (i = 0; i < n; i++) {
        if (i)
            fputc(delim, f);
        fputs(entries[pick(N_OF(entries))], f);
    }
    fputc('"', f);
}

static void path_stmt(FILE *f)
{
    static const char *const fn[] = { "prepend_path", "append_path", "remove_path" };
    const char *name = fn[pick(3)], *var = path_vars[pick(N_OF(path_vars))];
    char delim = (strcmp(var, "PATH") != 0 && chance(15)) ? ';' : ':';

    if (chance(35)) {
        fprintf(f, "%s{\"%s\", ", name, var);
        path_value(f, delim);
        if (delim != ':')
            fprintf(f, ", delim=\"%c\"", delim);
        if (name[0] == 'r') {
            if (chance(40))
                fputs(", force=true", f);
        } else if (chance(60)) {
            static const int pr[] = { 0, 10, 20 };

            fprintf(f, ", priority=%d", pr[pick(3)]);
        }
        fputs("}", f);
    } else {
        fprintf(f, "%s(\"%s\", ", name, var);
        path_value(f, delim);
        if (delim != ':')
            fprintf(f, ", \"%c\"", delim);
        fputs(")", f);
    }
}

static void scalar_value(FILE *f)
{
    fprintf(f, "\"%s\"", scalars[pick(N_OF(scalars))]);
}

/* pushenv's value: not "" unless all (B15: Lmod's stack loses an empty
 * value on unload) */
static void push_value(FILE *f)
{
    const char *v;

    do
        v = scalars[pick(N_OF(scalars))];
    while (!all && !*v);
    fprintf(f, "\"%s\"", v);
}

/* one statement, no newline; idx: this module's number */
static void stmt(FILE *f, unsigned idx, int depth)
{
    unsigned r = pick(100);
    const char *sv = scalar_vars[pick(N_OF(scalar_vars))];

    if (r < 40) {
        path_stmt(f);
    } else if (r < 50) {
        fprintf(f, "setenv(\"%s\", ", sv);
        if (chance(20))
            fputs(chance(50) ? "false" : "7", f);
        else
            scalar_value(f);
        fputs(")", f);
    } else if (r < 54) {
        fprintf(f, "unsetenv(\"%s\")", sv);
    } else if (r < 64) {
        fprintf(f, "pushenv(\"%s\", ", chance(50) ? "CC" : sv);
        if (chance(20))
            fputs("false", f);
        else if (chance(20))
            fputs("7", f);
        else
            push_value(f);
        fputs(")", f);
    } else if (r < 68) {
        /* two modules may share a family: Lmod swaps one for the other */
        fprintf(f, "family(\"fam%u\")", pick(2));
    } else if (r < 73) {
        const char *a = aliases[pick(N_OF(aliases))];

        if (chance(70))
            fprintf(f, "set_alias(\"%s\", \"echo %s%u\")", a, a, idx);
        else
            fprintf(f, "unset_alias(\"%s\")", a);
    } else if (r < 77) {
        const char *fn = funcs[pick(N_OF(funcs))];

        if (chance(70))
            fprintf(f, "set_shell_function(\"%s\", \"echo %s %u\", \"echo\")", fn, fn, idx);
        else
            fprintf(f, "unset_shell_function(\"%s\")", fn);
    } else if (r < 83 && idx + 1 < n_mods) {
        static const char *const ld[] = { "load", "load", "try_load", "always_load", "prereq", "depends_on" };
        const char *how = ld[pick(all ? 6 : 5)];

        fprintf(f, "%s(\"m%u\")", how, idx + 1 + pick(n_mods - idx - 1));
    } else if (r < 90 && depth == 0) {
        unsigned other = pick(n_mods);

        if (chance(50) || other == idx)
            fprintf(f, "if mode() == \"%s\" then ", chance(50) ? "load" : "unload");
        else
            fprintf(f, "if isloaded(\"m%u\") then ", other);
        stmt(f, idx, depth + 1);
        if (chance(40)) {
            fputs(" else ", f);
            stmt(f, idx, depth + 1);
        }
        fputs(" end", f);
    } else {
        /* a value read from the environment */
        const char *from = chance(30) ? "PATH" : scalar_vars[pick(N_OF(scalar_vars))];

        if (chance(50))
            fprintf(f, "setenv(\"%s\", os.getenv(\"%s\") or \"unset\")", sv, from);
        else
            fprintf(f, "prepend_path(\"%s\", os.getenv(\"%s\") or \"/unset\")",
                    path_vars[1 + pick(N_OF(path_vars) - 1)], from);
    }
}

static int mkdirs(const char *path)
{
    char buf[4096], *p;

    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int main(int argc, char **argv)
{
    char path[4096];
    uint64_t seed;
    unsigned i, n_cmds;
    bool loaded[4] = { false };
    FILE *f;
    char *end;

    if (argc != 3) {
        fprintf(stderr, "usage: gen_lmod SEED DIR\n");
        return 2;
    }
    errno = 0;
    seed = strtoull(argv[1], &end, 10);
    if (errno || *end) {
        fprintf(stderr, "gen_lmod: bad seed '%s'\n", argv[1]);
        return 2;
    }
    all = getenv("CTK_LMOD_FUZZ_ALL") && strcmp(getenv("CTK_LMOD_FUZZ_ALL"), "1") == 0;
    rng = seed;
    n_mods = 1 + pick(4);
    for (i = 0; i < n_mods; i++) {
        unsigned j, n = 1 + pick(8);

        snprintf(path, sizeof path, "%s/mf/m%u", argv[2], i);
        if (mkdirs(path) != 0) {
            perror(path);
            return 1;
        }
        snprintf(path, sizeof path, "%s/mf/m%u/1.lua", argv[2], i);
        if (!(f = fopen(path, "w"))) {
            perror(path);
            return 1;
        }
        fprintf(f, "-- gen_lmod seed %" PRIu64 " module m%u\n", seed, i);
        for (j = 0; j < n; j++) {
            stmt(f, i, 0);
            fputc('\n', f);
        }
        if (fclose(f) != 0)
            return 1;
    }
    snprintf(path, sizeof path, "%s/sessions", argv[2]);
    if (!(f = fopen(path, "w"))) {
        perror(path);
        return 1;
    }
    fprintf(f, "# gen_lmod seed %" PRIu64 "\ncase seed-%" PRIu64 "\n", seed, seed);
    /* the starting environment: some of the variables already set */
    if (chance(50))
        fprintf(f, "env PATH=/usr/bin:/bin%s\n", chance(30) ? ":/usr/bin" : chance(30) ? "/:/p1" : "");
    if (chance(40))
        fprintf(f, "env FP_A=%s:%s%s\n", entries[pick(N_OF(entries))], entries[pick(N_OF(entries))],
                chance(30) ? ":" : "");
    if (chance(30))
        fprintf(f, "env MANPATH=%s\n", chance(50) ? "/usr/share/man" : ":/m");
    if (chance(40))
        fprintf(f, "env CC=cc\n");
    if (chance(30))
        fprintf(f, "env SV_A=%s\n", scalars[pick(N_OF(scalars))]);
    n_cmds = 2 + pick(6);
    for (i = 0; i < n_cmds; i++) {
        unsigned m = pick(n_mods);

        /* mostly loads of modules not loaded and unloads of loaded ones */
        if (loaded[m] && chance(75)) {
            fprintf(f, "unload m%u\n", m);
            loaded[m] = false;
        } else {
            fprintf(f, "load m%u\n", m);
            loaded[m] = true;
        }
    }
    fputs("end\n", f);
    return fclose(f) != 0;
}
