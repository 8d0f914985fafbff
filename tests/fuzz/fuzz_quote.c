/* fuzz_quote.c - fuzz target: quoting strings into Lua, Tcl and .pc files.
 * SPDX-License-Identifier: MIT
 *
 * The input (up to its first NUL, as a config string would be) is quoted
 * for each format.  Either the quoter refuses it with CTK_E_QUOTE, or the
 * format reads the quoted text back as exactly the input:
 *   Lua  the literal is evaluated by the embedded Lua (emit(<literal>));
 *   Tcl  the word is read back by the rules of a Tcl double-quoted word
 *        (only backslash escapes of \ " $ [ ] { } and \n \t may appear; no unescaped
 *        $ [ or "), which is what makes it inert when sourced;
 *   .pc  "Cflags: -I<fragment>" is resolved by libpkgconf and must give
 *        exactly one argument, "-I" + input (libpkgconf folds "//" to "/"
 *        in absolute -I paths, which names the same directory). */
#include <ctkconf.h>

#include "fuzz.h"
#include "luahost.h"
#include "pc.h"
#include "quote.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_lua(const char *s)
{
    ctk_error_t err;
    char *lit, *src, *out;
    size_t n, outlen = 0;

    ctk_error_init(&err);
    lit = ctk_quote_lua(s, "fuzz", &err);
    if (!lit) {
        FUZZ_ASSERT(err.code == CTK_E_QUOTE);
        return;
    }
    n = strlen(lit) + 16;
    src = malloc(n);
    FUZZ_ASSERT(src != NULL);
    snprintf(src, n, "emit(%s)", lit);
    out = ctk_lua_render("fuzz", src, strlen(src), NULL, NULL, &outlen, &err);
    FUZZ_ASSERT(out != NULL);
    FUZZ_ASSERT(outlen == strlen(s) && memcmp(out, s, outlen) == 0);
    free(out);
    free(src);
    free(lit);
}

/* Read a Tcl double-quoted word back; NULL if it is not inert. */
static char *tcl_unquote(const char *w)
{
    size_t n = strlen(w), i, o = 0;
    char *out;

    if (n < 2 || w[0] != '"' || w[n - 1] != '"')
        return NULL;
    if (!(out = malloc(n)))
        return NULL;
    for (i = 1; i < n - 1; i++) {
        char c = w[i];

        if (c == '\\') {
            char e = w[++i];

            if (i >= n - 1 || !strchr("\\\"$[]{}nt", e)) {
                free(out);
                return NULL;
            }
            out[o++] = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else if (c == '$' || c == '[' || c == '"') {
            free(out);
            return NULL;
        } else {
            out[o++] = c;
        }
    }
    out[o] = '\0';
    return out;
}

static void check_tcl(const char *s)
{
    ctk_error_t err;
    char *word, *back;

    ctk_error_init(&err);
    word = ctk_quote_tcl(s, "fuzz", &err);
    if (!word) {
        FUZZ_ASSERT(err.code == CTK_E_QUOTE);
        return;
    }
    back = tcl_unquote(word);
    FUZZ_ASSERT(back != NULL);
    FUZZ_ASSERT(strcmp(back, s) == 0);
    free(back);
    free(word);
}

/* s with every run of '/' folded to one when s is absolute (caller frees) */
static char *fold_slashes(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    bool fold = s[0] == '/';

    FUZZ_ASSERT(out != NULL);
    for (; *s; s++)
        if (!fold || *s != '/' || o == out || o[-1] != '/')
            *o++ = *s;
    *o = '\0';
    return out;
}

static char pcdir[64];

static void check_pc(const char *s)
{
    ctk_error_t err;
    ctk_pc_result_t r;
    char *frag, *want, path[128];
    const char *dirs[1] = {pcdir};
    FILE *fp;

    ctk_error_init(&err);
    frag = ctk_quote_pc(s, "fuzz", &err);
    if (!frag) {
        FUZZ_ASSERT(err.code == CTK_E_QUOTE);
        return;
    }
    snprintf(path, sizeof path, "%s/fz.pc", pcdir);
    fp = fopen(path, "w");
    FUZZ_ASSERT(fp != NULL);
    fprintf(fp, "Name: fz\nDescription: fuzz\nVersion: 1\nCflags: -I%s\n", frag);
    FUZZ_ASSERT(fclose(fp) == 0);
    ctk_pc_result_init(&r);
    FUZZ_ASSERT(ctk_pc_resolve(dirs, 1, "fz", &r, &err));
    FUZZ_ASSERT(r.cflags.len == 1);
    want = fold_slashes(s);
    FUZZ_ASSERT(strncmp(r.cflags.items[0], "-I", 2) == 0 && strcmp(r.cflags.items[0] + 2, want) == 0);
    free(want);
    ctk_pc_result_fini(&r);
    free(frag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    FUZZ_ASSERT(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    if (!pcdir[0]) {
        const char *t = getenv("TMPDIR");

        snprintf(pcdir, sizeof pcdir, "%s/ctkfuzzXXXXXX", t && strlen(t) < 40 ? t : "/tmp");
        FUZZ_ASSERT(mkdtemp(pcdir) != NULL);
    }
    check_lua(s);
    check_tcl(s);
    check_pc(s);
    free(s);
    return 0;
}
