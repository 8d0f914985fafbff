/* vjob.c - what the parts of validate share: small steps and readers.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "vjob.h"

#include "checks.h"
#include "env.h"
#include "error.h"
#include "proc.h"
#include "util.h"
#include "verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ctk_vjob_write_text(const char *dir, const char *name, const char *data, size_t len,
                         ctk_error_t *err)
{
    char *p = ctk_path_join(dir, name, err);
    FILE *f;
    bool ok = false;

    if (!p)
        return false;
    f = fopen(p, "wb");
    if (!f) {
        ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    if (fwrite(data, 1, len, f) != len) {
        ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot write: %s", strerror(errno));
        fclose(f);
        goto out;
    }
    if (fclose(f) != 0) {
        ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot write: %s", strerror(errno));
        goto out;
    }
    ok = true;
out:
    free(p);
    return ok;
}

const char *ctk_vjob_first_error_line(const char *text, char *buf, size_t bufsz)
{
    const char *p = text, *best = NULL, *eol;
    size_t n;

    buf[0] = '\0';
    if (!text)
        return buf;
    while (*p) {
        eol = strchr(p, '\n');
        n = eol ? (size_t)(eol - p) : strlen(p);
        if (!best && n > 0)
            best = p; /* fallback: the first non-empty line */
        if (memmem(p, n, "error", 5) || memmem(p, n, "fatal", 5) ||
            memmem(p, n, "cannot find", 11) || memmem(p, n, "undefined reference", 19)) {
            best = p;
            break;
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    if (best) {
        eol = strchr(best, '\n');
        n = eol ? (size_t)(eol - best) : strlen(best);
        if (n >= bufsz)
            n = bufsz - 1;
        memcpy(buf, best, n);
        buf[n] = '\0';
    }
    return buf;
}

int ctk_vjob_var_line(const vjob_t *j, const ctk_vart_t *a, const char *name)
{
    return ctk_check_line_of(j->text[a->kind], name);
}

bool ctk_vjob_lib_in_dir(const char *lib, const char *dir)
{
    char *rl = ctk_realpath(lib), *rd = ctk_realpath(dir), *slash, *own = NULL;
    const char *base = strrchr(lib, '/');
    bool in = false;

    if (rl && rd && (slash = strrchr(rl, '/'))) {
        *slash = '\0';
        in = strcmp(rl, rd) == 0;
    }
    if (!in && base && (own = ctk_path_join(dir, base + 1, NULL)))
        in = ctk_same_file(lib, own);
    free(own);
    free(rl);
    free(rd);
    return in;
}

char *ctk_vjob_tool_output(const vctx_t *c, const char *const *argv, const char *cwd)
{
    ctk_proc_spec_t spec = {0};
    ctk_proc_result_t r;
    char *out = NULL;

    ctk_proc_result_init(&r);
    spec.argv = argv;
    spec.envp = c->base_envp;
    spec.cwd = cwd;
    spec.timeout_s = c->timeout;
    if (ctk_proc_run(&spec, &r, NULL) && ctk_proc_ok(&r)) {
        out = r.out;
        r.out = NULL;
    }
    ctk_proc_result_fini(&r);
    return out;
}

bool ctk_vjob_run_step(vjob_t *j, const char *const *argv, ctk_env_t *env, ctk_proc_result_t *r)
{
    ctk_proc_spec_t spec = {0};

    spec.argv = argv;
    if (!(spec.envp = ctk_env_envp(env, j->err)))
        return false;
    spec.cwd = j->dir;
    spec.timeout_s = j->c->timeout;
    spec.max_output = 256u << 10;
    return ctk_proc_run(&spec, r, j->err);
}

bool ctk_vjob_pc_env(vjob_t *j, ctk_env_t *env)
{
    const ctk_env_t *from = &j->c->base;

    if (j->pre[0] && !j->sdk->conf->host_compiler_ccbin)
        from = j->have_pre[0] ? &j->pre_env[0] : &j->pre_env[1];
    return ctk_env_copy(env, from, j->err);
}

void ctk_vjob_trace_file(const char *line, size_t len, char *buf, size_t size)
{
    const char *b = line, *e = line + len;

    if (len && line[0] == '(' && (e = memchr(line, ')', len))) {
        b = line + 1;
    } else if (len && line[len - 1] == ')' && (b = memchr(line, '(', len)) && b[1] == '/') {
        b++;
        e = line + len - 1;
    } else {
        b = line;
        e = line + len;
    }
    if (b >= e || *b != '/' || (size_t)(e - b) >= size) {
        buf[0] = '\0';
        return;
    }
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
}
