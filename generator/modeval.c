/* modeval.c - evaluate a Lua modulefile as Lmod's `module load` would.
 * SPDX-License-Identifier: MIT
 *
 * The modulefile runs in the luahost sandbox; the Lmod functions are host
 * functions (luahost.h) that record each operation and keep a model of
 * every variable touched.  Path variables follow Lmod 8.6's Var.lua with
 * its default settings (see modeval.h): one entry per distinct value, each
 * with a reference count, a priority and an index; the value is the
 * entries ordered by (priority, index), where prepends take indices below
 * every existing one and appends above.
 */
#include <ctkconf.h>

#include "modeval.h"
#include "luahost.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Modulefiles are small; these leave a thousandfold margin. */
#define MODEVAL_MEM_LIMIT ((size_t)16 << 20)
#define MODEVAL_INSTR_LIMIT 10000000UL
#define MODEVAL_TIME_LIMIT_MS 2000UL

/* ---- the variable model ----------------------------------------------------- */
typedef struct {
    char *val;      /* regularised entry; "" is an empty entry */
    long long idx;  /* position key: prepends negative, appends past the end */
    long prio;      /* prepend: -priority; append: priority */
    int num;        /* reference count */
} pent_t;

typedef struct {
    char *name;
    char *delim;    /* fixed when Lmod would create its Var: the first call's */
    bool is_path;   /* Lmod's type 'path' (else 'var': set/unset) */
    char *value;    /* current value, NULL: unset */
    pent_t *ents;
    size_t n, cap;
    long long imin, imax;
} var_t;

typedef struct {
    const char *label;
    const char *full_name;
    char *sn;             /* full_name up to its last '/' */
    const char *version;  /* after it; "" if none */
    const ctk_strlist_t *env;
    var_t *vars;
    size_t n_vars, cap_vars;
    size_t cap_ops;
    ctk_modeval_t *ev;
} st_t;

static const char *initial_env(const st_t *st, const char *name)
{
    size_t i, n = strlen(name);

    if (!st->env)
        return NULL;
    for (i = st->env->len; i-- > 0;) { /* the last entry wins, as in env(1) */
        const char *e = st->env->items[i];

        if (strncmp(e, name, n) == 0 && e[n] == '=')
            return e + n + 1;
    }
    return NULL;
}

static var_t *find_var(st_t *st, const char *name)
{
    size_t i;

    for (i = 0; i < st->n_vars; i++)
        if (strcmp(st->vars[i].name, name) == 0)
            return &st->vars[i];
    return NULL;
}

/* What getenv() would say inside Lmod at this point of the load. */
static const char *cur_env(st_t *st, const char *name)
{
    var_t *v = find_var(st, name);

    return v ? v->value : initial_env(st, name);
}

static void pents_clear(var_t *v)
{
    size_t i;

    for (i = 0; i < v->n; i++)
        free(v->ents[i].val);
    v->n = 0;
}

static void var_fini(var_t *v)
{
    pents_clear(v);
    free(v->ents);
    free(v->name);
    free(v->delim);
    free(v->value);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Lmod's path_regularize(): trim blanks, "//" -> "/", "/./" -> "/", drop
 * one trailing "/", leading "~" -> $HOME, drop "." components (a leading
 * "./" too); "" for an empty entry; a trailing "//" after a name is kept. */
static char *regularize(const char *in, const char *home, ctk_error_t *err)
{
    size_t n = strlen(in), i, start, ncomp = 0;
    bool dbl = n >= 3 && in[n - 1] == '/' && in[n - 2] == '/' && in[n - 3] != '/';
    const char *b = in, *e = in + n;
    ctk_buf_t t, u, o;
    char *result = NULL, **comp = NULL, *p;

    ctk_buf_init(&t);
    ctk_buf_init(&u);
    ctk_buf_init(&o);
    while (b < e && is_space(*b))
        b++;
    while (e > b && is_space(e[-1]))
        e--;
    for (; b < e; b++)
        if (!(*b == '/' && t.len && t.data[t.len - 1] == '/'))
            ctk_buf_append(&t, b, 1);
    for (i = 0; i < t.len;) {
        if (t.len - i >= 3 && memcmp(t.data + i, "/./", 3) == 0) {
            ctk_buf_append(&u, "/", 1);
            i += 3;
        } else {
            ctk_buf_append(&u, t.data + i, 1);
            i++;
        }
    }
    if (u.len && u.data[u.len - 1] == '/')
        u.data[--u.len] = '\0';
    if (u.len && u.data[0] == '~') {
        ctk_buf_puts(&o, home ? home : "~");
        ctk_buf_append(&o, u.data + 1, u.len - 1);
        ctk_buf_fini(&u);
        u = o;
        ctk_buf_init(&o);
    }
    if (t.failed || u.failed || o.failed)
        goto nomem;
    if (u.len == 0) {
        result = ctk_strdup("", err);
        goto out;
    }
    /* split on '/', in place */
    comp = calloc(u.len + 1, sizeof *comp);
    if (!comp)
        goto nomem;
    comp[ncomp++] = u.data;
    for (p = u.data; *p; p++)
        if (*p == '/') {
            *p = '\0';
            comp[ncomp++] = p + 1;
        }
    if (strcmp(comp[0], ".") == 0) {
        for (start = 1; start < ncomp && strcmp(comp[start], ".") == 0; start++)
            ;
        ctk_buf_puts(&o, start < ncomp ? comp[start] : ".");
        start++;
    } else {
        ctk_buf_puts(&o, comp[0]);
        start = 1;
    }
    for (i = start; i < ncomp; i++) {
        if (strcmp(comp[i], ".") == 0)
            continue;
        ctk_buf_append(&o, "/", 1);
        ctk_buf_puts(&o, comp[i]);
    }
    if (dbl)
        ctk_buf_puts(&o, "//");
    if (o.failed)
        goto nomem;
    result = ctk_buf_take(&o, NULL);
    if (!result)
        goto nomem;
    goto out;
nomem:
    ctk_error_nomem(err);
out:
    free(comp);
    ctk_buf_fini(&t);
    ctk_buf_fini(&u);
    ctk_buf_fini(&o);
    return result;
}

/* Lmod's path2pathA(): split on delim (literally), regularise each entry,
 * keep at most one trailing empty entry; "" is one empty entry. */
static bool split_path(const st_t *st, const char *value, const char *delim, ctk_strlist_t *out,
                       ctk_error_t *err)
{
    const char *home = initial_env(st, "HOME");
    size_t dl = strlen(delim), last;
    const char *p = value, *q;

    if (*value == '\0')
        return ctk_strlist_push(out, "", err);
    for (;;) {
        char *piece, *r;

        q = strstr(p, delim);
        piece = ctk_strndup(p, q ? (size_t)(q - p) : strlen(p), err);
        if (!piece)
            return false;
        r = regularize(piece, home, err);
        free(piece);
        if (!r || !ctk_strlist_take(out, r, err))
            return false;
        if (!q)
            break;
        p = q + dl;
    }
    for (last = out->len; last > 0 && out->items[last - 1][0] == '\0'; last--)
        ;
    while (out->len > last + 1)
        free(out->items[--out->len]);
    return true;
}

static pent_t *find_ent(var_t *v, const char *val)
{
    size_t i;

    for (i = 0; i < v->n; i++)
        if (strcmp(v->ents[i].val, val) == 0)
            return &v->ents[i];
    return NULL;
}

static bool add_ent(var_t *v, const char *val, long long idx, long prio, ctk_error_t *err)
{
    char *s;

    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        pent_t *e = realloc(v->ents, cap * sizeof *e);

        if (!e) {
            ctk_error_nomem(err);
            return false;
        }
        v->ents = e;
        v->cap = cap;
    }
    if (!(s = ctk_strdup(val, err)))
        return false;
    v->ents[v->n].val = s;
    v->ents[v->n].idx = idx;
    v->ents[v->n].prio = prio;
    v->ents[v->n].num = 1;
    v->n++;
    return true;
}

/* Lmod's l_extract(): the entries of the variable's current value. */
static bool extract(st_t *st, var_t *v, ctk_error_t *err)
{
    ctk_strlist_t a;
    size_t i;
    bool ok = false;

    ctk_strlist_init(&a);
    pents_clear(v);
    v->imin = 1;
    v->imax = 0;
    if (v->value && *v->value && !split_path(st, v->value, v->delim, &a, err))
        goto out;
    for (i = 0; i < a.len; i++) {
        pent_t *e = find_ent(v, a.items[i]);

        if (e)
            e->num++;
        else if (!add_ent(v, a.items[i], (long long)i + 1, 0, err))
            goto out;
        v->imax = (long long)i + 1;
    }
    v->is_path = true;
    ok = true;
out:
    ctk_strlist_fini(&a);
    return ok;
}

/* A variable as Lmod's Var:new(name, nil, nodups, delim) makes it. */
static var_t *get_var(st_t *st, const char *name, const char *delim, ctk_error_t *err)
{
    var_t *v = find_var(st, name);
    const char *init;

    if (v)
        return v;
    if (st->n_vars == st->cap_vars) {
        size_t cap = st->cap_vars ? st->cap_vars * 2 : 16;
        var_t *nv = realloc(st->vars, cap * sizeof *nv);

        if (!nv) {
            ctk_error_nomem(err);
            return NULL;
        }
        st->vars = nv;
        st->cap_vars = cap;
    }
    init = initial_env(st, name);
    v = &st->vars[st->n_vars];
    memset(v, 0, sizeof *v);
    v->name = ctk_strdup(name, err);
    v->delim = ctk_strdup(delim ? delim : ":", err);
    v->value = init ? ctk_strdup(init, err) : NULL;
    if (!v->name || !v->delim || (init && !v->value) || !extract(st, v, err)) {
        var_fini(v);
        return NULL;
    }
    st->n_vars++;
    return v;
}

static int cmp_ent(const void *a, const void *b)
{
    const pent_t *x = *(const pent_t *const *)a, *y = *(const pent_t *const *)b;

    if (x->prio != y->prio)
        return x->prio < y->prio ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Lmod's Var:expand(): recompute v->value from the entries. */
static bool expand(var_t *v, ctk_error_t *err)
{
    pent_t **order = NULL;
    ctk_buf_t b;
    size_t i;
    bool ok = false;

    ctk_buf_init(&b);
    free(v->value);
    v->value = NULL;
    if (v->n == 0)
        return true;
    if (!(order = malloc(v->n * sizeof *order))) {
        ctk_error_nomem(err);
        return false;
    }
    for (i = 0; i < v->n; i++)
        order[i] = &v->ents[i];
    qsort(order, v->n, sizeof *order, cmp_ent);
    if (v->n == 1 && order[0]->val[0] == '\0') {
        ctk_buf_puts(&b, v->delim);
        ctk_buf_puts(&b, v->delim);
    } else {
        for (i = 0; i < v->n; i++) {
            if (i)
                ctk_buf_puts(&b, v->delim);
            ctk_buf_puts(&b, order[i]->val);
        }
        if (order[v->n - 1]->val[0] == '\0')
            ctk_buf_puts(&b, v->delim);
    }
    if (b.failed) {
        ctk_error_nomem(err);
        goto out;
    }
    if (strcmp(v->name, "PATH") == 0) {
        /* Lmod drops empty PATH entries (the current directory) */
        size_t r, w = 0;

        for (r = 0; r < b.len; r++) {
            if (b.data[r] == ':' && (w == 0 || b.data[w - 1] == ':'))
                continue;
            b.data[w++] = b.data[r];
        }
        if (w && b.data[w - 1] == ':')
            w--;
        b.data[w] = '\0';
        b.len = w;
    }
    if (!(v->value = ctk_buf_take(&b, NULL))) {
        ctk_error_nomem(err);
        goto out;
    }
    ok = true;
out:
    ctk_buf_fini(&b);
    free(order);
    return ok;
}

/* Lmod's l_insertFunc() with nodups: one entry per value. */
static bool insert(var_t *v, const char *val, long long idx, long prio, ctk_error_t *err)
{
    pent_t *e = find_ent(v, val);

    if (!e)
        return add_ent(v, val, idx, prio, err);
    if (prio < 0 && e->prio < prio)
        prio = e->prio;
    else if (prio > 0 && e->prio > prio)
        prio = e->prio;
    e->num++;
    e->idx = idx;   /* LMOD_TMOD_PATH_RULE=no: the entry moves */
    e->prio = prio;
    return true;
}

typedef enum { P_PREPEND, P_APPEND, P_REMOVE } pathop_t;

static bool path_op(st_t *st, pathop_t op, const char *name, const char *value, const char *delim,
                    long priority, bool force, ctk_error_t *err)
{
    var_t *v = get_var(st, name, delim, err);
    ctk_strlist_t a;
    size_t i;
    bool ok = false;

    ctk_strlist_init(&a);
    if (!v)
        goto out;
    if (op == P_REMOVE && !v->is_path) {
        ok = true; /* Lmod's Var:remove() leaves a set variable alone */
        goto out;
    }
    if (!v->is_path && !extract(st, v, err))
        goto out;
    if (!split_path(st, value, v->delim, &a, err))
        goto out;
    switch (op) {
    case P_PREPEND: {
        long long imin = v->imin < 0 ? v->imin : 0;

        for (i = a.len; i-- > 0;) /* LMOD_PREPEND_BLOCK=normal */
            if (!insert(v, a.items[i], --imin, -priority, err))
                goto out;
        v->imin = imin;
        break;
    }
    case P_APPEND:
        for (i = 0; i < a.len; i++)
            if (!insert(v, a.items[i], ++v->imax, priority, err))
                goto out;
        break;
    case P_REMOVE:
        for (i = 0; i < a.len; i++) {
            pent_t *e = find_ent(v, a.items[i]);

            if (!e)
                continue;
            e->num = force ? 0 : e->num - 1;
            if (e->num < 1) {
                free(e->val);
                *e = v->ents[--v->n];
            }
        }
        break;
    }
    ok = expand(v, err);
out:
    ctk_strlist_fini(&a);
    return ok;
}

/* setenv/pushenv/unsetenv: value NULL unsets. */
static bool set_var(st_t *st, const char *name, const char *value, ctk_error_t *err)
{
    var_t *v = get_var(st, name, NULL, err);
    char *s = NULL;

    if (!v || (value && !(s = ctk_strdup(value, err))))
        return false;
    free(v->value);
    v->value = s;
    v->is_path = false;
    return true;
}

/* ---- recording ------------------------------------------------------------- */
static bool dup_opt(const char *s, char **out, ctk_error_t *err)
{
    *out = NULL;
    return !s || (*out = ctk_strdup(s, err)) != NULL;
}

static bool add_op(st_t *st, ctk_modop_kind_t kind, const char *name, const char *value,
                   const char *delim, long priority, bool force, int line, ctk_error_t *err)
{
    ctk_modeval_t *ev = st->ev;
    ctk_modop_t *op;

    if (ev->n_ops == st->cap_ops) {
        size_t cap = st->cap_ops ? st->cap_ops * 2 : 32;
        ctk_modop_t *ops = realloc(ev->ops, cap * sizeof *ops);

        if (!ops) {
            ctk_error_nomem(err);
            return false;
        }
        ev->ops = ops;
        st->cap_ops = cap;
    }
    op = &ev->ops[ev->n_ops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->priority = priority;
    op->force = force;
    op->line = line;
    if (!dup_opt(name, &op->name, err) || !dup_opt(value, &op->value, err) ||
        !dup_opt(delim, &op->delim, err)) {
        free(op->name);
        free(op->value);
        free(op->delim);
        return false;
    }
    ev->n_ops++;
    return true;
}

/* ---- argument checking ------------------------------------------------------- */
static bool fail(const ctk_lua_call_t *c, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(const ctk_lua_call_t *c, ctk_error_t *err, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ctk_error_set(err, CTK_E_TEMPLATE, NULL, ctk_lua_call_line(c), 0, "%s: %s",
                  ctk_lua_call_name(c), text);
    return false;
}

static const char *type_name(ctk_lua_type_t t)
{
    static const char *const names[] = { "nil", "boolean", "number", "string", "table", "function" };

    return names[t];
}

/* A string without NUL bytes (environment values cannot hold them). */
static bool val_str(const ctk_lua_call_t *c, const ctk_lua_val_t *v, const char *what,
                    const char **out, ctk_error_t *err)
{
    if (v->type != CTK_LUA_STRING)
        return fail(c, err, "%s is a %s, not a string", what, type_name(v->type));
    if (strlen(v->str) != v->len)
        return fail(c, err, "%s holds a NUL byte", what);
    *out = v->str;
    return true;
}

static bool arg_str(const ctk_lua_call_t *c, size_t i, ctk_lua_val_t *v, const char **out,
                    ctk_error_t *err)
{
    char what[32];

    ctk_lua_call_arg(c, i, v);
    snprintf(what, sizeof what, "argument %zu", i);
    return val_str(c, v, what, out, err);
}

/* A variable name as Lmod takes it: trimmed; must not be empty. */
static char *var_name(const ctk_lua_call_t *c, const char *s, ctk_error_t *err)
{
    const char *b = s, *e = s + strlen(s);

    while (b < e && is_space(*b))
        b++;
    while (e > b && is_space(e[-1]))
        e--;
    if (b == e) {
        fail(c, err, "empty variable name");
        return NULL;
    }
    if (memchr(b, '=', (size_t)(e - b))) {
        fail(c, err, "variable name '%.*s' holds '='", (int)(e - b), b);
        return NULL;
    }
    return ctk_strndup(b, (size_t)(e - b), err);
}

/* All arguments joined, strings and numbers only (help, messages). */
static char *join_args(const ctk_lua_call_t *c, bool numbers_ok, ctk_error_t *err)
{
    size_t i, n = ctk_lua_call_nargs(c);
    ctk_buf_t b;
    ctk_lua_val_t v;
    char *r;

    ctk_buf_init(&b);
    for (i = 1; i <= n; i++) {
        ctk_lua_call_arg(c, i, &v);
        if (v.type != CTK_LUA_STRING && !(numbers_ok && v.type == CTK_LUA_NUMBER)) {
            ctk_buf_fini(&b);
            fail(c, err, "argument %zu is a %s, not a string", i, type_name(v.type));
            return NULL;
        }
        ctk_buf_append(&b, v.str, strlen(v.str));
    }
    if (b.failed || !(r = ctk_buf_take(&b, NULL))) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return r;
}

/* ---- the Lmod functions ----------------------------------------------------- */
/* prepend_path / append_path / remove_path, string or table form. */
/* A path operation looks each of its paths up among the variable's
 * entries, then sorts them and rebuilds the value: charge that work, so a
 * loop growing a variable stops on the budget, not after hours. */
static void charge_path_op(const ctk_lua_call_t *c, const var_t *v, const char *value,
                           const char *delim)
{
    unsigned long paths = 1, n;
    size_t dl = strlen(delim);
    const char *p;

    if (!v)
        return;
    for (p = strstr(value, delim); p; p = strstr(p + dl, delim))
        paths++;
    n = (unsigned long)v->n;
    ctk_lua_call_charge(c, (paths + 16) * n + (v->value ? strlen(v->value) : 0) / 32);
}

static bool fn_path(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c);
    pathop_t op = fname[0] == 'p' ? P_PREPEND : fname[0] == 'a' ? P_APPEND : P_REMOVE;
    ctk_modop_kind_t kind = op == P_PREPEND  ? CTK_MODOP_PREPEND_PATH
                          : op == P_APPEND ? CTK_MODOP_APPEND_PATH
                                           : CTK_MODOP_REMOVE_PATH;
    const char *name, *value, *delim = ":";
    ctk_lua_val_t a1, a2, d, p, f;
    long priority = 0;
    bool force = false, ok;
    char *nm;

    (void)ret;
    ctk_lua_call_arg(c, 1, &a1);
    if (ctk_lua_call_nargs(c) == 1 && a1.type == CTK_LUA_TABLE) {
        size_t i, n = ctk_lua_call_len(c, 1);

        for (i = 1; i <= (n > 2 ? n : 2); i++) {
            char what[32];
            const char *s;

            ctk_lua_call_elem(c, 1, i, &a2);
            snprintf(what, sizeof what, "element %zu", i);
            if (!val_str(c, &a2, what, &s, err))
                return false;
        }
        ctk_lua_call_elem(c, 1, 1, &a1);
        ctk_lua_call_elem(c, 1, 2, &a2);
        name = a1.str;
        value = a2.str;
        ctk_lua_call_field(c, 1, "delim", &d);
        if (d.type != CTK_LUA_NIL && !val_str(c, &d, "delim", &delim, err))
            return false;
        ctk_lua_call_field(c, 1, "priority", &p);
        if (p.type != CTK_LUA_NIL) {
            if (!p.is_num || !(p.num == 0 || (p.num >= 10 && p.num < 1e9)))
                return fail(c, err, "priority must be 0 or a number >= 10");
            priority = (long)p.num;
        }
        ctk_lua_call_field(c, 1, "force", &f);
        force = f.truthy;
    } else {
        if (!arg_str(c, 1, &a1, &name, err) || !arg_str(c, 2, &a2, &value, err))
            return false;
        ctk_lua_call_arg(c, 3, &d);
        if (d.type != CTK_LUA_NIL && !val_str(c, &d, "delimiter (argument 3)", &delim, err))
            return false;
    }
    if (!*delim)
        return fail(c, err, "empty delimiter");
    if (!(nm = var_name(c, name, err)))
        return false;
    ok = add_op(st, kind, nm, value, delim, priority, force, ctk_lua_call_line(c), err) &&
         path_op(st, op, nm, value, delim, priority, force, err);
    if (ok)
        charge_path_op(c, find_var(st, nm), value, delim);
    free(nm);
    return ok;
}

/* setenv(name, value[, respect]) / pushenv(name, value) / unsetenv(name[, value, respect]) */
static bool fn_env(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c), *name, *value = NULL;
    ctk_lua_val_t a1, a2, a3;
    ctk_modop_kind_t kind = fname[0] == 's' ? CTK_MODOP_SETENV
                          : fname[0] == 'p' ? CTK_MODOP_PUSHENV
                                            : CTK_MODOP_UNSETENV;
    bool ok;
    char *nm;

    (void)ret;
    if (!arg_str(c, 1, &a1, &name, err))
        return false;
    ctk_lua_call_arg(c, 2, &a2);
    ctk_lua_call_arg(c, 3, &a3);
    if (kind != CTK_MODOP_UNSETENV) {
        if (a2.type == CTK_LUA_NIL)
            return fail(c, err, "missing value for '%s'", name);
        if (a2.type == CTK_LUA_BOOL)
            value = kind == CTK_MODOP_PUSHENV && !a2.truthy ? NULL : a2.truthy ? "true" : "false";
        else if (a2.type == CTK_LUA_STRING || a2.type == CTK_LUA_NUMBER)
            value = a2.str;
        else
            return fail(c, err, "value is a %s, not a string", type_name(a2.type));
        if (value && strlen(value) != a2.len)
            return fail(c, err, "value holds a NUL byte");
    }
    if (!(nm = var_name(c, name, err)))
        return false;
    ok = true;
    if (kind == CTK_MODOP_SETENV && a3.truthy && cur_env(st, nm)) {
        /* setenv(name, value, true): respect a value already set */
    } else if (kind == CTK_MODOP_UNSETENV && a3.truthy &&
               !(a2.type == CTK_LUA_STRING && cur_env(st, nm) &&
                 strcmp(cur_env(st, nm), a2.str) == 0)) {
        /* unsetenv(name, value, true): only if it still has that value */
    } else {
        ok = add_op(st, kind, nm, value, NULL, 0, false, ctk_lua_call_line(c), err) &&
             set_var(st, nm, value, err);
    }
    free(nm);
    return ok;
}

static bool fn_family(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    ctk_lua_val_t a;
    const char *name;
    char *var = NULL, *var_v = NULL, *fam = NULL, *q;
    bool ok = false;

    (void)ret;
    if (!arg_str(c, 1, &a, &name, err))
        return false;
    if (!*name || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                      strlen(name))
        return fail(c, err, "family name '%s' is not a valid variable name part", name);
    if (!add_op(st, CTK_MODOP_FAMILY, name, NULL, NULL, 0, false, ctk_lua_call_line(c), err))
        goto out;
    if (!(fam = ctk_strdup(name, err)) || !(var = ctk_printf(err, "LMOD_FAMILY_%s", name)))
        goto out;
    for (q = var; *q; q++)
        *q = (char)toupper((unsigned char)*q);
    if (!(var_v = ctk_printf(err, "%s_VERSION", var)))
        goto out;
    if (!set_var(st, var, st->sn, err) || !set_var(st, var_v, st->version, err))
        goto out;
    free(st->ev->family);
    st->ev->family = fam;
    fam = NULL;
    ok = true;
out:
    free(fam);
    free(var);
    free(var_v);
    return ok;
}

/* conflict, prereq, prereq_any, depends_on, load, always_load, try_load */
static bool fn_modules(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    static const struct {
        const char *fn;
        ctk_modop_kind_t kind;
    } kinds[] = {
        { "conflict", CTK_MODOP_CONFLICT },       { "prereq", CTK_MODOP_PREREQ },
        { "prereq_any", CTK_MODOP_PREREQ_ANY },   { "depends_on", CTK_MODOP_DEPENDS_ON },
        { "load", CTK_MODOP_LOAD },               { "always_load", CTK_MODOP_ALWAYS_LOAD },
        { "try_load", CTK_MODOP_TRY_LOAD },
    };
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c), *name;
    ctk_modop_kind_t kind = CTK_MODOP_LOAD;
    ctk_strlist_t *list;
    ctk_lua_val_t a;
    size_t i;

    (void)ret;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(fname, kinds[i].fn) == 0)
            kind = kinds[i].kind;
    list = kind == CTK_MODOP_CONFLICT ? &st->ev->conflicts
         : (kind == CTK_MODOP_PREREQ || kind == CTK_MODOP_PREREQ_ANY) ? &st->ev->prereqs
                                                                      : &st->ev->loads;
    for (i = 1; i <= ctk_lua_call_nargs(c); i++) {
        if (!arg_str(c, i, &a, &name, err))
            return false;
        if (!add_op(st, kind, name, NULL, NULL, 0, false, ctk_lua_call_line(c), err) ||
            !ctk_strlist_push(list, name, err))
            return false;
    }
    return true;
}

/* whatis, help, LmodMessage, LmodWarning, LmodError */
static bool fn_text(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c);
    bool lmod = strncmp(fname, "Lmod", 4) == 0;
    char *text = join_args(c, lmod, err), *h;
    ctk_modop_kind_t kind;
    bool ok = false;

    (void)ret;
    if (!text)
        return false;
    if (strcmp(fname, "LmodError") == 0) {
        /* the module refuses to load: nothing it did takes effect */
        ctk_error_set(err, CTK_E_TEMPLATE, NULL, ctk_lua_call_line(c), 0, "LmodError: %s", text);
        goto out;
    }
    kind = strcmp(fname, "whatis") == 0  ? CTK_MODOP_WHATIS
         : strcmp(fname, "help") == 0    ? CTK_MODOP_HELP
         : strcmp(fname, "LmodWarning") == 0 ? CTK_MODOP_WARNING
                                          : CTK_MODOP_MESSAGE;
    if (!add_op(st, kind, NULL, text, NULL, 0, false, ctk_lua_call_line(c), err))
        goto out;
    if (kind == CTK_MODOP_WHATIS) {
        ok = ctk_strlist_push(&st->ev->whatis, text, err);
    } else if (kind == CTK_MODOP_HELP) {
        h = ctk_printf(err, "%s%s", st->ev->help ? st->ev->help : "", text);
        if (h) {
            free(st->ev->help);
            st->ev->help = h;
            ok = true;
        }
    } else {
        ok = ctk_strlist_push(&st->ev->messages, text, err);
    }
out:
    free(text);
    return ok;
}

/* myModuleName, myModuleVersion, myModuleFullName, myModuleUsrName,
 * myFileName, mode */
static bool fn_info(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c), *s;

    if (strcmp(fname, "myModuleName") == 0)
        s = st->sn;
    else if (strcmp(fname, "myModuleVersion") == 0)
        s = st->version;
    else if (strcmp(fname, "myFileName") == 0)
        s = st->label;
    else if (strcmp(fname, "mode") == 0)
        s = "load";
    else
        s = st->full_name;
    if (!ctk_lua_ret_str(ret, s, strlen(s))) {
        ctk_error_nomem(err);
        return false;
    }
    return true;
}

static bool fn_getenv(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    ctk_lua_val_t a;
    const char *name, *v;

    ctk_lua_call_arg(c, 1, &a);
    if (a.type != CTK_LUA_STRING && a.type != CTK_LUA_NUMBER)
        return fail(c, err, "argument 1 is a %s, not a string", type_name(a.type));
    name = a.str;
    v = strlen(name) == a.len ? cur_env(st, name) : NULL;
    if (!v) {
        ctk_lua_ret_nil(ret);
        return true;
    }
    if (!ctk_lua_ret_str(ret, v, strlen(v))) {
        ctk_error_nomem(err);
        return false;
    }
    return true;
}

static bool fn_isloaded(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    ctk_lua_val_t a;
    const char *name;

    (void)ud;
    if (!arg_str(c, 1, &a, &name, err))
        return false;
    ctk_lua_ret_bool(ret, false); /* dependencies are recorded, never loaded */
    return true;
}

/* Lmod's pathJoin(): non-empty arguments joined by '/', inner leading and
 * trailing slashes dropped, then path_regularize(). */
static bool fn_pathjoin(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    size_t i, n = ctk_lua_call_nargs(c), parts = 0;
    ctk_buf_t b, piece;
    ctk_lua_val_t a;
    char *r = NULL;
    bool ok = false;

    ctk_buf_init(&b);
    ctk_buf_init(&piece);
    for (i = 1; i <= n; i++) {
        const char *s, *e;

        ctk_lua_call_arg(c, i, &a);
        if (!a.truthy || (a.type == CTK_LUA_STRING && a.len == 0))
            continue;
        if (a.type != CTK_LUA_STRING) {
            fail(c, err, "argument %zu is a %s, not a string", i, type_name(a.type));
            goto out;
        }
        s = a.str;
        e = s + strlen(s);
        while (s < e && is_space(*s))
            s++;
        while (e > s && is_space(e[-1]))
            e--;
        if (i > 1 && s < e && *s == '/')
            s++;
        piece.len = 0;
        for (; s < e; s++)
            if (!(*s == '/' && piece.len && piece.data[piece.len - 1] == '/'))
                ctk_buf_append(&piece, s, 1);
        if (piece.len && piece.data[piece.len - 1] == '/') {
            if (piece.len > 1)
                piece.len--;
            else if (i != 1)
                piece.len = 0;
        }
        if (piece.len == 0)
            continue;
        if (parts++)
            ctk_buf_append(&b, "/", 1);
        ctk_buf_append(&b, piece.data, piece.len);
    }
    if (b.failed || piece.failed || !ctk_buf_puts(&b, "")) {
        ctk_error_nomem(err);
        goto out;
    }
    if (!(r = regularize(b.data ? b.data : "", initial_env(st, "HOME"), err)))
        goto out;
    /* Lmod's path_regularize("") gives " " */
    if (!ctk_lua_ret_str(ret, *r ? r : " ", *r ? strlen(r) : 1)) {
        ctk_error_nomem(err);
        goto out;
    }
    ok = true;
out:
    free(r);
    ctk_buf_fini(&b);
    ctk_buf_fini(&piece);
    return ok;
}

static const ctk_lua_reg_t lmod_fns[] = {
    { "prepend_path", fn_path },      { "append_path", fn_path },
    { "remove_path", fn_path },       { "setenv", fn_env },
    { "pushenv", fn_env },            { "unsetenv", fn_env },
    { "family", fn_family },          { "conflict", fn_modules },
    { "prereq", fn_modules },         { "prereq_any", fn_modules },
    { "depends_on", fn_modules },     { "load", fn_modules },
    { "always_load", fn_modules },    { "try_load", fn_modules },
    { "whatis", fn_text },            { "help", fn_text },
    { "LmodMessage", fn_text },       { "LmodWarning", fn_text },
    { "LmodError", fn_text },         { "myModuleName", fn_info },
    { "myModuleVersion", fn_info },   { "myModuleFullName", fn_info },
    { "myModuleUsrName", fn_info },   { "myFileName", fn_info },
    { "mode", fn_info },              { "os.getenv", fn_getenv },
    { "isloaded", fn_isloaded },      { "pathJoin", fn_pathjoin },
    { NULL, NULL }
};

/* ---- public ------------------------------------------------------------------ */
ctk_modeval_t *ctk_modeval_lua(const char *path_label, const char *src, size_t len,
                               const char *full_name, const ctk_strlist_t *initial_env,
                               ctk_error_t *err)
{
    ctk_lua_limits_t lim = { MODEVAL_MEM_LIMIT, MODEVAL_INSTR_LIMIT, MODEVAL_TIME_LIMIT_MS };
    ctk_modeval_t *ev = NULL, *result = NULL;
    const char *slash = strrchr(full_name, '/');
    st_t st;
    size_t i;

    memset(&st, 0, sizeof st);
    st.label = path_label;
    st.full_name = full_name;
    st.env = initial_env;
    st.version = slash ? slash + 1 : "";
    st.sn = ctk_strndup(full_name, slash ? (size_t)(slash - full_name) : strlen(full_name), err);
    if (!st.sn)
        goto out;
    if (!(ev = calloc(1, sizeof *ev))) {
        ctk_error_nomem(err);
        goto out;
    }
    ctk_strlist_init(&ev->conflicts);
    ctk_strlist_init(&ev->prereqs);
    ctk_strlist_init(&ev->loads);
    ctk_strlist_init(&ev->whatis);
    ctk_strlist_init(&ev->messages);
    st.ev = ev;
    if (!ctk_lua_run(path_label, src, len, lmod_fns, &st, CTK_LUA_ALLOW_GLOBALS, &lim, err))
        goto out;
    if (st.n_vars && !(ev->vars = calloc(st.n_vars, sizeof *ev->vars))) {
        ctk_error_nomem(err);
        goto out;
    }
    for (i = 0; i < st.n_vars; i++) { /* hand name and value over */
        ev->vars[i].name = st.vars[i].name;
        ev->vars[i].value = st.vars[i].value;
        st.vars[i].name = st.vars[i].value = NULL;
    }
    ev->n_vars = st.n_vars;
    result = ev;
    ev = NULL;
out:
    for (i = 0; i < st.n_vars; i++)
        var_fini(&st.vars[i]);
    free(st.vars);
    free(st.sn);
    ctk_modeval_free(ev);
    return result;
}

bool ctk_modeval_get(const ctk_modeval_t *ev, const char *name, const char **value)
{
    size_t i;

    for (i = 0; ev && i < ev->n_vars; i++) {
        if (strcmp(ev->vars[i].name, name) == 0) {
            if (value)
                *value = ev->vars[i].value;
            return true;
        }
    }
    return false;
}

const char *ctk_modop_kind_name(ctk_modop_kind_t kind)
{
    static const char *const names[] = {
        "setenv", "pushenv", "unsetenv", "prepend_path", "append_path", "remove_path",
        "family", "conflict", "prereq", "prereq_any", "depends_on", "load", "always_load",
        "try_load", "whatis", "help", "LmodMessage", "LmodWarning"
    };

    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

void ctk_modeval_free(ctk_modeval_t *ev)
{
    size_t i;

    if (!ev)
        return;
    for (i = 0; i < ev->n_vars; i++) {
        free(ev->vars[i].name);
        free(ev->vars[i].value);
    }
    free(ev->vars);
    for (i = 0; i < ev->n_ops; i++) {
        free(ev->ops[i].name);
        free(ev->ops[i].value);
        free(ev->ops[i].delim);
    }
    free(ev->ops);
    free(ev->family);
    ctk_strlist_fini(&ev->conflicts);
    ctk_strlist_fini(&ev->prereqs);
    ctk_strlist_fini(&ev->loads);
    ctk_strlist_fini(&ev->whatis);
    ctk_strlist_fini(&ev->messages);
    free(ev->help);
    free(ev);
}
