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
#include <dirent.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Modulefiles are small; these leave a thousandfold margin. */
#define MODEVAL_MEM_LIMIT ((size_t)16 << 20)
#define MODEVAL_INSTR_LIMIT 10000000UL
#define MODEVAL_TIME_LIMIT_MS 2000UL
/* The Lmod release whose behaviour this follows (docs/lmod-semantics.md). */
#define LMOD_VERSION "8.6.19"

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

/* A pushenv() stack: the regularised base64 entries of __LMOD_STACK_<name>,
 * top first ("false" for a pushed false). */
typedef struct {
    char *name;
    ctk_strlist_t ents;
    bool had;       /* the variable was set when first touched */
} pstack_t;

/* The module being evaluated (one per level of following). */
typedef struct frame {
    const char *label;      /* its file: myFileName() */
    const char *full_name;
    char *sn;               /* full_name up to its last '/' */
    const char *version;    /* after it; "" if none */
    const char *user_name;  /* what was typed */
    ctk_modmode_t mode;
    int depth;
    bool breaking;          /* LmodBreak() was called */
    struct frame *up;
} frame_t;

typedef struct {
    frame_t *fr;
    const ctk_strlist_t *env;
    bool follow, lenient;
    const ctk_modeval_opts_t *opts;  /* tcl_to_lua */
    ctk_lua_reg_t *fns;              /* what the module sees: lmod_impl's names, each to dispatch() */
    var_t *vars;
    size_t n_vars, cap_vars;
    pstack_t *stacks;
    size_t n_stacks;
    ctk_strlist_t loaded, files;  /* LOADEDMODULES, _LMFILES_ as they stand */
    ctk_strlist_t swaps;          /* family swaps due: "old sn", "new sn", "new as typed" */
    ctk_modop_kind_t dep_kind;    /* load_any/depends_on_any: the kind deps record; 0: as called */
    bool mods_changed;
    size_t n_followed;            /* modules evaluated besides the first */
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

/* in as path_regularize()'s first steps leave it, into u: blanks trimmed,
 * "//" and "/./" as "/", one trailing "/" dropped, a leading "~" as home.
 * False when out of memory. */
static bool squeeze(const char *in, const char *home, ctk_buf_t *u)
{
    const char *b = in, *e = in + strlen(in);
    ctk_buf_t t, o;
    bool ok;

    ctk_buf_init(&t);
    while (b < e && is_space(*b))
        b++;
    while (e > b && is_space(e[-1]))
        e--;
    for (; b < e; b++)
        if (!(*b == '/' && t.len && t.data[t.len - 1] == '/'))
            ctk_buf_append(&t, b, 1);
    for (size_t i = 0; i < t.len;) {
        if (t.len - i >= 3 && memcmp(t.data + i, "/./", 3) == 0) {
            ctk_buf_append(u, "/", 1);
            i += 3;
        } else {
            ctk_buf_append(u, t.data + i, 1);
            i++;
        }
    }
    if (u->len && u->data[u->len - 1] == '/')
        u->data[--u->len] = '\0';
    if (u->len && u->data[0] == '~') {
        ctk_buf_init(&o);
        ctk_buf_puts(&o, home ? home : "~");
        ctk_buf_append(&o, u->data + 1, u->len - 1);
        ctk_buf_fini(u);
        *u = o;
    }
    ok = !t.failed && !u->failed;
    ctk_buf_fini(&t);
    return ok;
}

/* The '/'-separated components of s, len bytes (split in place), joined
 * again into o without its "." components; leading "." components alone
 * are ".".  False when out of memory. */
static bool drop_dot_components(char *s, size_t len, ctk_buf_t *o)
{
    char **comp = calloc(len + 1, sizeof *comp), *p;
    size_t ncomp = 0, start, i;

    if (!comp)
        return false;
    comp[ncomp++] = s;
    for (p = s; *p; p++)
        if (*p == '/') {
            *p = '\0';
            comp[ncomp++] = p + 1;
        }
    if (strcmp(comp[0], ".") == 0) {
        for (start = 1; start < ncomp && strcmp(comp[start], ".") == 0; start++)
            ;
        ctk_buf_puts(o, start < ncomp ? comp[start] : ".");
        start++;
    } else {
        ctk_buf_puts(o, comp[0]);
        start = 1;
    }
    for (i = start; i < ncomp; i++) {
        if (strcmp(comp[i], ".") == 0)
            continue;
        ctk_buf_append(o, "/", 1);
        ctk_buf_puts(o, comp[i]);
    }
    free(comp);
    return !o->failed;
}

/* Lmod's path_regularize(): trim blanks, "//" -> "/", "/./" -> "/", drop
 * one trailing "/", leading "~" -> $HOME, drop "." components (a leading
 * "./" too); "" for an empty entry; a trailing "//" after a name is kept. */
static char *regularize(const char *in, const char *home, ctk_error_t *err)
{
    size_t n = strlen(in);
    bool dbl = n >= 3 && in[n - 1] == '/' && in[n - 2] == '/' && in[n - 3] != '/';
    ctk_buf_t u, o;
    char *result = NULL;

    ctk_buf_init(&u);
    ctk_buf_init(&o);
    if (!squeeze(in, home, &u))
        goto nomem;
    if (u.len == 0) {
        result = ctk_strdup("", err);
        goto out;
    }
    if (!drop_dot_components(u.data, u.len, &o))
        goto nomem;
    if (dbl)
        ctk_buf_puts(&o, "//");
    if (o.failed || !(result = ctk_buf_take(&o, NULL)))
        goto nomem;
    goto out;
nomem:
    ctk_error_nomem(err);
out:
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

/* The number Lmod keeps for entry in one of its tables
 * ("entry:N;entry:N"), read as its l_extract_Lmod_var_table() reads it:
 * the table is split on ';', each item's key is its text up to the first
 * ':' (all of it when it has none) and its number the text up to the next
 * ':'; a later item of the same key replaces an earlier one.  So an entry
 * holding ':' or ';' is never found (Lmod then counts it once), nor is a
 * number Lua would not read. */
static bool lmod_table_get(const char *table, const char *entry, long *out)
{
    size_t n = strlen(entry);
    const char *p = table;
    bool found = false;

    while (p && *p) {
        const char *end = strchr(p, ';'), *colon = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t klen = colon && colon < p + len ? (size_t)(colon - p) : len;

        if (klen == n && strncmp(p, entry, n) == 0) {
            const char *num = p + klen + 1, *stop;
            char buf[32], *e;
            size_t k = 0;

            found = false; /* this item decides */
            if (klen < len) {
                stop = memchr(num, ':', (size_t)(p + len - num));
                k = (size_t)((stop ? stop : p + len) - num);
            }
            if (k > 0 && k < sizeof buf) {
                memcpy(buf, num, k);
                buf[k] = '\0';
                *out = strtol(buf, &e, 10);
                found = *e == '\0';
            }
        }
        p = end ? end + 1 : NULL;
    }
    return found;
}

static const char *lmod_table(const st_t *st, const char *prefix, const char *name, char *buf,
                              size_t bufsz)
{
    if ((size_t)snprintf(buf, bufsz, "%s%s", prefix, name) >= bufsz)
        return NULL;
    return initial_env(st, buf);
}

/* Lmod's l_extract(): the entries of the variable's current value, with
 * the counts and priorities Lmod recorded for them. */
static bool extract(st_t *st, var_t *v, ctk_error_t *err)
{
    char rbuf[512], pbuf[512];
    const char *refs = lmod_table(st, "__LMOD_REF_COUNT_", v->name, rbuf, sizeof rbuf);
    const char *prios = lmod_table(st, "__LMOD_Priority_", v->name, pbuf, sizeof pbuf);
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
        long num, prio;

        if (e) {
            e->num++;
        } else {
            if (!add_ent(v, a.items[i], (long long)i + 1, 0, err))
                goto out;
            e = &v->ents[v->n - 1];
            if (refs && lmod_table_get(refs, a.items[i], &num))
                e->num = (int)(num < 0 ? 0 : num > 1000000 ? 1000000 : num);
            if (prios && lmod_table_get(prios, *a.items[i] ? a.items[i] : " ", &prio))
                e->prio = prio;
        }
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

/* The arguments of a path operation, in either form. */
typedef struct {
    const char *name, *value, *delim;
    long priority;
    bool force;
} path_args_t;

/* The table form: {name, value, delim=, priority=, force=}. */
static bool path_args_table(const ctk_lua_call_t *c, path_args_t *pa, ctk_error_t *err)
{
    size_t i, n = ctk_lua_call_len(c, 1);
    ctk_lua_val_t a1, a2, d, p, f;

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
    pa->name = a1.str;
    pa->value = a2.str;
    ctk_lua_call_field(c, 1, "delim", &d);
    if (d.type != CTK_LUA_NIL && !val_str(c, &d, "delim", &pa->delim, err))
        return false;
    ctk_lua_call_field(c, 1, "priority", &p);
    if (p.type != CTK_LUA_NIL) {
        if (!p.is_num || !(p.num == 0 || (p.num >= 10 && p.num < 1e9)))
            return fail(c, err, "priority must be 0 or a number >= 10");
        pa->priority = (long)p.num;
    }
    ctk_lua_call_field(c, 1, "force", &f);
    pa->force = f.truthy;
    return true;
}

/* The arguments, as a table or as (name, value[, delimiter]). */
static bool path_args(const ctk_lua_call_t *c, path_args_t *pa, ctk_error_t *err)
{
    ctk_lua_val_t a1, a2, d;

    *pa = (path_args_t){.delim = ":"};
    ctk_lua_call_arg(c, 1, &a1);
    if (ctk_lua_call_nargs(c) == 1 && a1.type == CTK_LUA_TABLE) {
        if (!path_args_table(c, pa, err))
            return false;
    } else {
        if (!arg_str(c, 1, &a1, &pa->name, err) || !arg_str(c, 2, &a2, &pa->value, err))
            return false;
        ctk_lua_call_arg(c, 3, &d);
        if (d.type != CTK_LUA_NIL && !val_str(c, &d, "delimiter (argument 3)", &pa->delim, err))
            return false;
    }
    if (!*pa->delim)
        return fail(c, err, "empty delimiter");
    return true;
}

static bool fn_path(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c);
    pathop_t op = fname[0] == 'p' ? P_PREPEND : fname[0] == 'a' ? P_APPEND : P_REMOVE;
    bool unload = st->fr->mode == CTK_MODE_UNLOAD;
    ctk_modop_kind_t kind = op == P_PREPEND  ? CTK_MODOP_PREPEND_PATH
                          : op == P_APPEND ? CTK_MODOP_APPEND_PATH
                                           : CTK_MODOP_REMOVE_PATH;
    path_args_t pa;
    bool ok;
    char *nm;

    (void)ret;
    if (!path_args(c, &pa, err) || !(nm = var_name(c, pa.name, err)))
        return false;
    /* unload: prepend and append are undone by one count; remove_path
     * does the same again */
    ok = add_op(st, kind, nm, pa.value, pa.delim, pa.priority, pa.force, ctk_lua_call_line(c), err) &&
         path_op(st, unload ? P_REMOVE : op, nm, pa.value, pa.delim, pa.priority, pa.force && op == P_REMOVE, err);
    if (ok)
        charge_path_op(c, find_var(st, nm), pa.value, pa.delim);
    free(nm);
    return ok;
}

/* ---- pushenv() stacks -------------------------------------------------------- */
static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const char *s, ctk_error_t *err)
{
    size_t n = strlen(s), i, o = 0;
    char *r = malloc((n + 2) / 3 * 4 + 1);

    if (!r) {
        ctk_error_nomem(err);
        return NULL;
    }
    for (i = 0; i < n; i += 3) {
        unsigned v = (unsigned)(unsigned char)s[i] << 16;

        if (i + 1 < n)
            v |= (unsigned)(unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        r[o++] = b64chars[(v >> 18) & 63];
        r[o++] = b64chars[(v >> 12) & 63];
        r[o++] = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
        r[o++] = i + 2 < n ? b64chars[v & 63] : '=';
    }
    r[o] = '\0';
    return r;
}

/* Lmod's decode64: characters outside the alphabet are skipped. */
static char *b64_decode(const char *s, ctk_error_t *err)
{
    size_t n = strlen(s), o = 0;
    unsigned v = 0;
    int bits = 0;
    char *r = malloc(n + 1);

    if (!r) {
        ctk_error_nomem(err);
        return NULL;
    }
    for (; *s && *s != '='; s++) {
        const char *q = strchr(b64chars, *s);

        if (!q || !*q)
            continue;
        v = (v << 6) | (unsigned)(q - b64chars);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            r[o++] = (char)((v >> bits) & 0xff);
        }
    }
    r[o] = '\0';
    return r;
}

/* The stack of name, made as Lmod's Var:new(stackName) would at first
 * touch: from __LMOD_STACK_<name>, or (seed) from name's own value when
 * there is no stack yet. */
static pstack_t *get_stack(st_t *st, const char *name, bool seed, ctk_error_t *err)
{
    char buf[512];
    const char *cur;
    pstack_t *ps, *ns;
    size_t i;

    for (i = 0; i < st->n_stacks; i++)
        if (strcmp(st->stacks[i].name, name) == 0)
            return &st->stacks[i];
    if (!(ns = realloc(st->stacks, (st->n_stacks + 1) * sizeof *ns))) {
        ctk_error_nomem(err);
        return NULL;
    }
    st->stacks = ns;
    ps = &ns[st->n_stacks];
    memset(ps, 0, sizeof *ps);
    ctk_strlist_init(&ps->ents);
    if (!(ps->name = ctk_strdup(name, err)))
        return NULL;
    st->n_stacks++;
    cur = lmod_table(st, "__LMOD_STACK_", name, buf, sizeof buf);
    ps->had = cur != NULL;
    if (cur && *cur)
        return split_path(st, cur, ":", &ps->ents, err) ? ps : NULL;
    /* Lmod seeds the stack with name's value, base64; "" gives no entry */
    if (!cur && seed && (cur = cur_env(st, name)) != NULL && *cur) {
        char *e = b64_encode(cur, err);

        if (!e || !ctk_strlist_take(&ps->ents, e, err))
            return NULL;
    }
    return ps;
}

/* pushenv(name, value): value NULL pushes false (and unsets name). */
static bool push_env(st_t *st, const char *name, const char *value, ctk_error_t *err)
{
    pstack_t *ps = get_stack(st, name, true, err);
    char *e;
    size_t i;

    if (!ps)
        return false;
    if (!(e = value ? b64_encode(value, err) : ctk_strdup("false", err)) ||
        !ctk_strlist_take(&ps->ents, e, err))
        return false;
    for (i = ps->ents.len - 1; i > 0; i--) { /* to the top */
        char *t = ps->ents.items[i];

        ps->ents.items[i] = ps->ents.items[i - 1];
        ps->ents.items[i - 1] = t;
    }
    return set_var(st, name, value, err);
}

/* popenv(name): drop the top; name takes the new top's value. */
static bool pop_env(st_t *st, const char *name, ctk_error_t *err)
{
    pstack_t *ps = get_stack(st, name, false, err);
    char *v = NULL;
    bool ok;

    if (!ps)
        return false;
    if (ps->ents.len) {
        free(ps->ents.items[0]);
        memmove(ps->ents.items, ps->ents.items + 1, (ps->ents.len - 1) * sizeof *ps->ents.items);
        ps->ents.len--;
    }
    if (ps->ents.len && strcmp(ps->ents.items[0], "false") != 0 &&
        !(v = b64_decode(ps->ents.items[0], err)))
        return false;
    ok = set_var(st, name, v, err);
    free(v);
    return ok;
}

/* setenv(name, value[, respect]) / pushenv(name, value) / unsetenv(name[, value, respect]);
 * in unload mode: unsetenv (respecting a value set since), popenv, nothing. */
static bool fn_env(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c), *name, *value = NULL, *cur;
    ctk_lua_val_t a1, a2, a3;
    ctk_modop_kind_t kind = fname[0] == 's' ? CTK_MODOP_SETENV
                          : fname[0] == 'p' ? CTK_MODOP_PUSHENV
                                            : CTK_MODOP_UNSETENV;
    bool ok, unload = st->fr->mode == CTK_MODE_UNLOAD;
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
        if (a2.type == CTK_LUA_STRING && strlen(value) != a2.len)
            return fail(c, err, "value holds a NUL byte");
        if (kind == CTK_MODOP_PUSHENV && a2.type == CTK_LUA_NUMBER && !unload)
            /* Lmod 8.6.19's base64 encoder takes strings only: the load fails */
            return fail(c, err, "value is a number; Lmod refuses to push it (give a string)");
    }
    if (!(nm = var_name(c, name, err)))
        return false;
    if (!add_op(st, kind, nm, value, NULL, 0, false, ctk_lua_call_line(c), err)) {
        free(nm);
        return false;
    }
    cur = cur_env(st, nm);
    ok = true;
    if (kind == CTK_MODOP_PUSHENV)
        ok = unload ? pop_env(st, nm, err) : push_env(st, nm, value, err);
    else if (kind == CTK_MODOP_UNSETENV && unload)
        ; /* Lmod's unload of unsetenv does nothing */
    else if (kind == CTK_MODOP_SETENV && unload) {
        /* unsetenv(name, value, respect): respect holds the third argument */
        if (!(a3.truthy && !(cur && strcmp(cur, value) == 0)))
            ok = set_var(st, nm, NULL, err);
    } else if (kind == CTK_MODOP_SETENV && a3.truthy && cur) {
        /* setenv(name, value, true): respect a value already set */
    } else if (kind == CTK_MODOP_UNSETENV && a3.truthy &&
               !(a2.type == CTK_LUA_STRING && cur && strcmp(cur, a2.str) == 0)) {
        /* unsetenv(name, value, true): only if it still has that value */
    } else {
        ok = set_var(st, nm, value, err);
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
    if (st->fr->mode == CTK_MODE_UNLOAD) {
        ok = set_var(st, var, NULL, err) && set_var(st, var_v, NULL, err);
        goto out;
    }
    {
        const char *held = cur_env(st, var); /* another module of the family: swapped out after */

        if (held && strcmp(held, st->fr->sn) != 0 && st->follow &&
            (!ctk_strlist_push(&st->swaps, held, err) || !ctk_strlist_push(&st->swaps, st->fr->sn, err) ||
             !ctk_strlist_push(&st->swaps, st->fr->user_name, err)))
            goto out;
    }
    if (!set_var(st, var, st->fr->sn, err) || !set_var(st, var_v, st->fr->version, err))
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

/* ---- loaded modules and following them -------------------------------------- */
static bool eval_file(st_t *st, const char *file, const char *full, const char *user,
                      ctk_modmode_t mode, ctk_error_t *err);
static bool follow_inherit(st_t *st, const char *file, const char *full, ctk_error_t *err);

/* Index in st->loaded of the module name names (its full name, or its
 * sn when name has no version of its own); -1 if none. */
static long loaded_index(const st_t *st, const char *name)
{
    size_t i, n = strlen(name);

    for (i = st->loaded.len; i-- > 0;) {
        const char *m = st->loaded.items[i], *slash = strrchr(m, '/');

        if (strcmp(m, name) == 0 || (slash && (size_t)(slash - m) == n && strncmp(m, name, n) == 0))
            return (long)i;
    }
    return -1;
}

static void list_drop(ctk_strlist_t *l, size_t i)
{
    if (i >= l->len)
        return;
    free(l->items[i]);
    memmove(l->items + i, l->items + i + 1, (l->len - i - 1) * sizeof *l->items);
    l->len--;
}

/* Record the module as loaded (at the end) or gone. */
static bool mark_loaded(st_t *st, const char *full, const char *file, bool loaded, ctk_error_t *err)
{
    long i = loaded_index(st, full);

    if (i >= 0) {
        list_drop(&st->loaded, (size_t)i);
        list_drop(&st->files, (size_t)i);
    }
    st->mods_changed = true;
    if (!loaded)
        return true;
    while (st->files.len < st->loaded.len) /* _LMFILES_ shorter than LOADEDMODULES */
        if (!ctk_strlist_push(&st->files, "", err))
            return false;
    return ctk_strlist_push(&st->loaded, full, err) && ctk_strlist_push(&st->files, file, err);
}

static bool add_dep(st_t *st, ctk_modop_kind_t kind, const char *name, const char *file,
                    const char *why, int line, ctk_error_t *err)
{
    ctk_modeval_t *ev = st->ev;
    ctk_moddep_t *d = realloc(ev->deps, (ev->n_deps + 1) * sizeof *d);

    if (!d) {
        ctk_error_nomem(err);
        return false;
    }
    ev->deps = d;
    d = &d[ev->n_deps];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->line = line;
    if (!(d->name = ctk_strdup(name, err)) || !dup_opt(file, &d->file, err) || !dup_opt(why, &d->why, err)) {
        free(d->name);
        free(d->file);
        return false;
    }
    ev->n_deps++;
    return true;
}

/* A Tcl modulefile: does not end in .lua and starts with the magic cookie. */
static bool is_tcl_file(const char *file, const char *text)
{
    size_t n = strlen(file);

    return !(n > 4 && strcmp(file + n - 4, ".lua") == 0) && strncmp(text, "#%Module", 8) == 0;
}

#define FOLLOW_MAX_DEPTH 16
#define FOLLOW_MAX_MODULES 256
#define MODULEFILE_MAX_BYTES ((size_t)4 << 20)

/* Only files any user may read are followed: a root ctkgen must not show
 * what a module made it read (in an error quoting the text) when the
 * user who wrote the module could not read it. */
static bool world_readable(const char *file)
{
    struct stat sb;

    return stat(file, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & S_IROTH);
}

static bool eval_src(st_t *st, const char *file, const char *src, size_t len, const char *full,
                     const char *user, ctk_modmode_t mode, bool mark, ctk_error_t *err);

/* A module file's text as Lua: read (any user must be able to), and, for
 * a Tcl modulefile, translated by opts->tcl_to_lua.  NULL with *why
 * (caller frees) when it cannot be evaluated; NULL with err set (and no
 * *why) when out of memory. */
static char *module_source(st_t *st, const char *file, const char *full, size_t *len, char **why,
                           ctk_error_t *err)
{
    char *text, *lua;
    ctk_error_t e;

    *why = NULL;
    if (!world_readable(file)) {
        *why = ctk_strdup("not readable by every user: not evaluated", err);
        return NULL;
    }
    ctk_error_init(&e);
    if (!(text = ctk_file_read(file, MODULEFILE_MAX_BYTES, len, &e))) {
        *why = ctk_printf(err, "could not be read: %s", e.text);
        return NULL;
    }
    if (!is_tcl_file(file, text))
        return text;
    free(text);
    if (!st->opts || !st->opts->tcl_to_lua) {
        *why = ctk_strdup("a Tcl modulefile: the Lua sandbox does not evaluate it", err);
        return NULL;
    }
    ctk_error_init(&e);
    if (!(lua = st->opts->tcl_to_lua(st->opts->tcl_ud, file, full, len, &e))) {
        if (e.code == CTK_E_NOMEM)
            ctk_error_nomem(err);
        else
            *why = ctk_printf(err, "a Tcl modulefile its reader refused: %s", e.text);
    }
    return lua;
}

/* Evaluate the module name resolves to on the current MODULEPATH in mode;
 * *found says whether there was one.  Lmod's errors in it are ours. */
static bool follow_module(st_t *st, ctk_modop_kind_t kind, const char *name, ctk_modmode_t mode,
                          int line, bool *found, ctk_error_t *err)
{
    const char *mp = cur_env(st, "MODULEPATH");
    char *file = NULL, *full = NULL, *text = NULL, *why = NULL;
    bool ok = false;
    size_t len;
    long i;

    *found = false;
    if (mode == CTK_MODE_UNLOAD && (i = loaded_index(st, name)) >= 0 &&
        (size_t)i < st->files.len && *st->files.items[i]) {
        if (!(file = ctk_strdup(st->files.items[i], err)) ||
            !(full = ctk_strdup(st->loaded.items[i], err)))
            goto out;
    } else if (!ctk_modeval_find(mp ? mp : "", name, &file, &full, err)) {
        if (ctk_error_is_set(err))
            goto out;
        ok = add_dep(st, kind, name, NULL, "not found on MODULEPATH", line, err);
        goto out;
    }
    *found = true;
    if ((st->fr ? st->fr->depth + 1 : 0) >= FOLLOW_MAX_DEPTH || st->n_followed >= FOLLOW_MAX_MODULES) {
        ok = add_dep(st, kind, name, file, "too deep: modules load each other in a loop", line, err);
        goto out;
    }
    if (!(text = module_source(st, file, full, &len, &why, err))) {
        ok = why && add_dep(st, kind, name, file, why, line, err);
        goto out;
    }
    if (!add_dep(st, kind, name, file, NULL, line, err))
        goto out;
    st->n_followed++;
    ok = eval_src(st, file, text, len, full, name, mode, true, err);
out:
    free(file);
    free(full);
    free(text);
    free(why);
    return ok;
}

/* What Lmod does with one module name of conflict(), prereq(), load() and
 * the rest in the current mode.  *done: it is (or stays) loaded, for
 * load_any and prereq_any. */
static bool relate(st_t *st, ctk_modop_kind_t kind, const char *name, int line, bool *done,
                   ctk_error_t *err)
{
    ctk_modop_kind_t as = st->dep_kind ? st->dep_kind : kind; /* what the file called */
    bool unload = st->fr->mode == CTK_MODE_UNLOAD, loaded = loaded_index(st, name) >= 0, found;

    *done = loaded;
    switch (kind) {
    case CTK_MODOP_CONFLICT:
        if (!unload && loaded) {
            ctk_error_set(err, CTK_E_TEMPLATE, NULL, line, 0,
                          "conflict: cannot load %s while %s is loaded", st->fr->full_name, name);
            return false;
        }
        return true;
    case CTK_MODOP_PREREQ:
    case CTK_MODOP_PREREQ_ANY:
        if (unload || loaded)
            return unload || add_dep(st, as, name, NULL, "already loaded", line, err);
        if (st->follow && !st->lenient) {
            ctk_error_set(err, CTK_E_TEMPLATE, NULL, line, 0,
                          "%s: cannot load %s without %s loaded first", ctk_modop_kind_name(kind),
                          st->fr->full_name, name);
            return false;
        }
        break;
    case CTK_MODOP_ALWAYS_LOAD:
        if (unload)
            return true;
        break;
    case CTK_MODOP_DEPENDS_ON:
    case CTK_MODOP_DEPENDS_ON_ANY:
        if (!unload && loaded)
            return add_dep(st, as, name, NULL, "already loaded", line, err);
        break;
    default:
        break;
    }
    if (!st->follow)
        return add_dep(st, as, name, NULL, "not followed", line, err);
    if (unload || kind == CTK_MODOP_UNLOAD) {
        *done = false;
        if (!loaded)
            return true;
        return follow_module(st, as, name, CTK_MODE_UNLOAD, line, &found, err);
    }
    /* load() of a loaded module reloads it: eval_src() unloads it first */
    if (!follow_module(st, as, name, CTK_MODE_LOAD, line, &found, err))
        return false;
    *done = found;
    if (!found && !st->lenient && (kind == CTK_MODOP_LOAD || kind == CTK_MODOP_ALWAYS_LOAD)) {
        ctk_error_set(err, CTK_E_TEMPLATE, NULL, line, 0,
                      "load: module %s is unknown (not found on MODULEPATH)", name);
        return false;
    }
    return true;
}

/* What the Lmod function fname does to modules. */
static ctk_modop_kind_t modop_kind(const char *fname)
{
    static const struct {
        const char *fn;
        ctk_modop_kind_t kind;
    } kinds[] = {
        { "conflict", CTK_MODOP_CONFLICT },       { "prereq", CTK_MODOP_PREREQ },
        { "prereq_any", CTK_MODOP_PREREQ_ANY },   { "depends_on", CTK_MODOP_DEPENDS_ON },
        { "load", CTK_MODOP_LOAD },               { "always_load", CTK_MODOP_ALWAYS_LOAD },
        { "try_load", CTK_MODOP_TRY_LOAD },       { "try_add", CTK_MODOP_TRY_LOAD },
        { "load_any", CTK_MODOP_LOAD_ANY },       { "depends_on_any", CTK_MODOP_DEPENDS_ON_ANY },
        { "unload", CTK_MODOP_UNLOAD },           { "always_unload", CTK_MODOP_UNLOAD },
    };
    ctk_modop_kind_t kind = CTK_MODOP_LOAD;

    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(fname, kinds[i].fn) == 0)
            kind = kinds[i].kind;
    return kind;
}

/* load_any, depends_on_any: the first of the n modules that can be
 * loaded. */
static bool load_first(st_t *st, const ctk_lua_call_t *c, ctk_modop_kind_t kind, size_t n, int line,
                       ctk_error_t *err)
{
    bool done = false;
    ctk_lua_val_t a;

    for (size_t i = 1; i <= n && !done; i++) {
        bool ok;

        ctk_lua_call_arg(c, i, &a);
        st->dep_kind = kind;
        ok = relate(st, kind == CTK_MODOP_LOAD_ANY ? CTK_MODOP_TRY_LOAD : CTK_MODOP_DEPENDS_ON, a.str, line,
                    &done, err);
        st->dep_kind = 0;
        if (!ok)
            return false;
    }
    if (!done && n && st->follow && !st->lenient)
        return fail(c, err, "none of these modules could be loaded");
    return true;
}

/* prereq_any: one of the n modules loaded already will do. */
static bool prereq_one_of(st_t *st, const ctk_lua_call_t *c, size_t n, int line, ctk_error_t *err)
{
    bool done = false;
    ctk_lua_val_t a;
    size_t i;

    for (i = 1; i <= n && !done; i++) {
        ctk_lua_call_arg(c, i, &a);
        done = loaded_index(st, a.str) >= 0;
    }
    if (!done && n && st->follow && !st->lenient)
        return fail(c, err, "cannot load %s without one of these loaded first", st->fr->full_name);
    for (i = 1; i <= n && !done; i++) {
        ctk_lua_call_arg(c, i, &a);
        if (!relate(st, CTK_MODOP_PREREQ_ANY, a.str, line, &done, err))
            return false;
    }
    return true;
}

/* conflict, prereq, prereq_any, depends_on, depends_on_any, load,
 * always_load, try_load, try_add, load_any, unload, always_unload */
static bool fn_modules(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *name;
    ctk_modop_kind_t kind = modop_kind(ctk_lua_call_name(c));
    ctk_strlist_t *list;
    ctk_lua_val_t a;
    size_t i, n = ctk_lua_call_nargs(c);
    int line = ctk_lua_call_line(c);
    bool done = false, unload = st->fr->mode == CTK_MODE_UNLOAD;

    (void)ret;
    list = kind == CTK_MODOP_CONFLICT ? &st->ev->conflicts
         : (kind == CTK_MODOP_PREREQ || kind == CTK_MODOP_PREREQ_ANY) ? &st->ev->prereqs
                                                                      : &st->ev->loads;
    for (i = 1; i <= n; i++) /* names first: a bad argument fails before anything is done */
        if (!arg_str(c, i, &a, &name, err))
            return false;
    for (i = 1; i <= n; i++) {
        ctk_lua_call_arg(c, i, &a);
        if (!add_op(st, kind, a.str, NULL, NULL, 0, false, line, err) ||
            (kind != CTK_MODOP_UNLOAD && !ctk_strlist_push(list, a.str, err)))
            return false;
    }
    if (!unload && (kind == CTK_MODOP_LOAD_ANY || kind == CTK_MODOP_DEPENDS_ON_ANY))
        return load_first(st, c, kind, n, line, err);
    if (!unload && kind == CTK_MODOP_PREREQ_ANY)
        return prereq_one_of(st, c, n, line, err);
    for (i = 1; i <= n; i++) {
        ctk_lua_call_arg(c, i, &a);
        if (!relate(st, kind, a.str, line, &done, err))
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
    if (strcmp(fname, "LmodError") == 0 && st->fr->mode == CTK_MODE_LOAD) {
        /* the module refuses to load: nothing it did takes effect */
        ctk_error_set(err, CTK_E_TEMPLATE, NULL, ctk_lua_call_line(c), 0, "LmodError: %s", text);
        goto out;
    }
    kind = strcmp(fname, "whatis") == 0  ? CTK_MODOP_WHATIS
         : strcmp(fname, "help") == 0    ? CTK_MODOP_HELP
         : strcmp(fname, "LmodWarning") == 0 || strcmp(fname, "LmodError") == 0 ? CTK_MODOP_WARNING
                                          : CTK_MODOP_MESSAGE;
    if (kind == CTK_MODOP_WARNING) /* Lmod prints what it did, then fails */
        st->ev->warned = true;
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
 * myFileName, mode, myShellName, myShellType, LmodVersion */
static bool fn_info(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const frame_t *fr = st->fr;
    const char *fname = ctk_lua_call_name(c), *s;

    if (strcmp(fname, "myModuleName") == 0)
        s = fr->sn;
    else if (strcmp(fname, "myModuleVersion") == 0)
        s = fr->version;
    else if (strcmp(fname, "myFileName") == 0)
        s = fr->label;
    else if (strcmp(fname, "myModuleUsrName") == 0)
        s = fr->user_name;
    else if (strcmp(fname, "mode") == 0)
        s = fr->mode == CTK_MODE_UNLOAD ? "unload" : "load";
    else if (strcmp(fname, "myShellName") == 0)
        s = "bash";
    else if (strcmp(fname, "myShellType") == 0)
        s = "sh";
    else if (strcmp(fname, "LmodVersion") == 0)
        s = LMOD_VERSION;
    else
        s = fr->full_name;
    if (!ctk_lua_ret_str(ret, s, strlen(s))) {
        ctk_error_nomem(err);
        return false;
    }
    return true;
}

/* What Lmod puts in its own environment, which os.getenv() sees. */
static const char *lmod_own_env(const char *name)
{
    static const char *const own[][2] = {
        { "LMOD_VERSION", LMOD_VERSION }, { "LMOD_VERSION_MAJOR", "8" },
        { "LMOD_VERSION_MINOR", "6" },    { "LMOD_VERSION_SUBMINOR", "19" },
        { "ModuleTool", "Lmod" },         { "ModuleToolVersion", LMOD_VERSION },
    };
    size_t i;

    for (i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strcmp(own[i][0], name) == 0)
            return own[i][1];
    return NULL;
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
    if (!v && strlen(name) == a.len)
        v = lmod_own_env(name);
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

/* Whether name names a module being loaded now (the file itself included). */
static bool pending(const st_t *st, const char *name)
{
    size_t n = strlen(name);
    const frame_t *f;

    for (f = st->fr; f; f = f->up)
        if (f->mode == CTK_MODE_LOAD &&
            (strcmp(f->full_name, name) == 0 || (strlen(f->sn) == n && strcmp(f->sn, name) == 0)))
            return true;
    return false;
}

/* isloaded(name), isPending(name): from LOADEDMODULES as it stands / the
 * modules being loaded now (the file itself included). */
static bool fn_isloaded(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    ctk_lua_val_t a;
    const char *name;
    bool yes = false;

    if (!arg_str(c, 1, &a, &name, err))
        return false;
    /* a module being loaded counts as loaded, in Lmod too */
    yes = pending(st, name) || (strcmp(ctk_lua_call_name(c), "isPending") != 0 && loaded_index(st, name) >= 0);
    ctk_lua_ret_bool(ret, yes);
    return true;
}

/* isAvail(name): the file it resolves to on MODULEPATH, or false. */
static bool fn_isavail(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *mp = cur_env(st, "MODULEPATH"), *name;
    char *file = NULL, *full = NULL;
    ctk_lua_val_t a;
    bool ok = true;

    if (!arg_str(c, 1, &a, &name, err))
        return false;
    ctk_lua_call_charge(c, 2000); /* directory reads */
    if (ctk_modeval_find(mp ? mp : "", name, &file, &full, err))
        ok = ctk_lua_ret_str(ret, file, strlen(file)) || (ctk_error_nomem(err), false);
    else if (ctk_error_is_set(err))
        ok = false;
    else
        ctk_lua_ret_bool(ret, false);
    free(file);
    free(full);
    return ok;
}

/* isDir(path) (symlinks followed), isFile(path) (a regular file or a
 * symlink): read-only, one stat. */
static bool fn_isfs(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    ctk_lua_val_t a;
    const char *path;
    struct stat sb;
    bool dir = strcmp(ctk_lua_call_name(c), "isDir") == 0;

    (void)ud;
    if (!arg_str(c, 1, &a, &path, err))
        return false;
    ctk_lua_call_charge(c, 500);
    if (dir)
        ctk_lua_ret_bool(ret, stat(path, &sb) == 0 && S_ISDIR(sb.st_mode));
    else
        ctk_lua_ret_bool(ret, lstat(path, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)));
    return true;
}

/* userInGroups(g...), userInGroup(g...): one of ctkgen's groups, or root. */
static bool fn_ingroups(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    gid_t gids[256];
    int n = getgroups(256, gids), k;
    size_t i;
    bool yes = geteuid() == 0;

    (void)ud;
    for (i = 1; i <= ctk_lua_call_nargs(c) && !yes; i++) {
        ctk_lua_val_t a;
        const char *g;
        struct group *gr;

        if (!arg_str(c, i, &a, &g, err))
            return false;
        ctk_lua_call_charge(c, 500);
        gr = getgrnam(g);
        for (k = 0; gr && k < n && !yes; k++)
            yes = gids[k] == gr->gr_gid;
        yes = yes || (gr && gr->gr_gid == getegid());
    }
    ctk_lua_ret_bool(ret, yes);
    return true;
}

/* extensions, add_property, remove_property, complete, uncomplete:
 * recorded; none changes the environment. */
static bool fn_record(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c), *a1s, *a2s = NULL;
    ctk_lua_val_t a1, a2;
    ctk_modop_kind_t kind = strcmp(fname, "extensions") == 0        ? CTK_MODOP_EXTENSIONS
                          : strcmp(fname, "add_property") == 0      ? CTK_MODOP_ADD_PROPERTY
                          : strcmp(fname, "remove_property") == 0   ? CTK_MODOP_REMOVE_PROPERTY
                          : strcmp(fname, "complete") == 0          ? CTK_MODOP_COMPLETE
                                                                    : CTK_MODOP_UNCOMPLETE;
    int line = ctk_lua_call_line(c);
    size_t i;

    (void)ret;
    if (kind == CTK_MODOP_EXTENSIONS) {
        for (i = 1; i <= ctk_lua_call_nargs(c); i++)
            if (!arg_str(c, i, &a1, &a1s, err) ||
                !add_op(st, kind, NULL, a1s, NULL, 0, false, line, err) ||
                !ctk_strlist_push(&st->ev->extensions, a1s, err))
                return false;
        return true;
    }
    if (!arg_str(c, 1, &a1, &a1s, err))
        return false;
    ctk_lua_call_arg(c, 2, &a2);
    if ((a2.type != CTK_LUA_NIL || kind != CTK_MODOP_REMOVE_PROPERTY) && !arg_str(c, 2, &a2, &a2s, err))
        return false;
    if (kind == CTK_MODOP_COMPLETE || kind == CTK_MODOP_UNCOMPLETE) {
        ctk_lua_val_t a3; /* Lmod wants shell, command and arguments, all strings */
        const char *a3s;

        if (!arg_str(c, 3, &a3, &a3s, err))
            return false;
    }
    if (!add_op(st, kind, a1s, a2s, NULL, 0, false, line, err))
        return false;
    if (kind == CTK_MODOP_ADD_PROPERTY && st->fr->mode == CTK_MODE_LOAD) {
        char *p = ctk_printf(err, "%s=%s", a1s, a2s ? a2s : "");

        return p && ctk_strlist_take(&st->ev->properties, p, err);
    }
    return true;
}

/* Set (value) or drop (NULL) an alias or a shell function in the result. */
static bool put_named(ctk_modvar_t **arr, size_t *n, const char *name, const char *value,
                      ctk_error_t *err)
{
    ctk_modvar_t *a;
    char *v = NULL;
    size_t i;

    if (value && !(v = ctk_strdup(value, err)))
        return false;
    for (i = 0; i < *n; i++)
        if (strcmp((*arr)[i].name, name) == 0) {
            free((*arr)[i].value);
            (*arr)[i].value = v;
            return true;
        }
    if (!(a = realloc(*arr, (*n + 1) * sizeof *a))) {
        free(v);
        ctk_error_nomem(err);
        return false;
    }
    *arr = a;
    a[*n].value = v;
    if (!(a[*n].name = ctk_strdup(name, err))) {
        free(v);
        return false;
    }
    (*n)++;
    return true;
}

/* set_alias(name, value), unset_alias(name), set_shell_function(name,
 * bash, csh), unset_shell_function(name); the set forms are undone in
 * unload mode, the unset forms do nothing there. */
static bool fn_alias(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c), *name, *value = NULL, *csh;
    bool func = strstr(fname, "function") != NULL, set = strncmp(fname, "set_", 4) == 0;
    bool unload = st->fr->mode == CTK_MODE_UNLOAD;
    ctk_modop_kind_t kind = func ? (set ? CTK_MODOP_SET_SHELL_FUNCTION : CTK_MODOP_UNSET_SHELL_FUNCTION)
                                 : (set ? CTK_MODOP_SET_ALIAS : CTK_MODOP_UNSET_ALIAS);
    ctk_lua_val_t a1, a2, a3;
    char *nm;
    bool ok;

    (void)ret;
    if (!arg_str(c, 1, &a1, &name, err))
        return false;
    if (set) {
        ctk_lua_call_arg(c, 2, &a2);
        if (!func && (a2.type == CTK_LUA_NUMBER || a2.type == CTK_LUA_BOOL))
            value = a2.type == CTK_LUA_BOOL ? (a2.truthy ? "true" : "false") : a2.str;
        else if (!arg_str(c, 2, &a2, &value, err))
            return false;
        if (func && !arg_str(c, 3, &a3, &csh, err))
            return false;
    }
    if (!(nm = var_name(c, name, err)))
        return false;
    ok = add_op(st, kind, nm, value, NULL, 0, false, ctk_lua_call_line(c), err);
    if (ok && !(unload && !set))
        ok = func ? put_named(&st->ev->functions, &st->ev->n_functions, nm, unload ? NULL : value, err)
                  : put_named(&st->ev->aliases, &st->ev->n_aliases, nm, unload ? NULL : value, err);
    free(nm);
    return ok;
}

/* execute, capture, subprocess, source_sh, os.execute, mkdir_recursive:
 * never run.  Recorded with what they would have run; capture and
 * subprocess give "" and the file goes on. */
static bool fn_notrun(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *fname = ctk_lua_call_name(c);
    ctk_lua_val_t a;
    ctk_buf_t b;
    char *what;
    bool ok;
    size_t i;

    ctk_buf_init(&b);
    ctk_lua_call_arg(c, 1, &a);
    if (strcmp(fname, "execute") == 0) {
        ctk_lua_val_t cmd;

        if (a.type != CTK_LUA_TABLE)
            return fail(c, err, "argument 1 is a %s, not a table {cmd=..., modeA={...}}", type_name(a.type));
        ctk_lua_call_field(c, 1, "cmd", &cmd);
        ctk_buf_printf(&b, "execute{cmd=\"%.200s\"}", cmd.type == CTK_LUA_STRING ? cmd.str : "?");
    } else {
        ctk_buf_printf(&b, "%s(", fname);
        for (i = 1; i <= ctk_lua_call_nargs(c) && i <= 3; i++) {
            ctk_lua_call_arg(c, i, &a);
            ctk_buf_printf(&b, "%s\"%.200s\"", i > 1 ? ", " : "",
                           a.type == CTK_LUA_STRING || a.type == CTK_LUA_NUMBER ? a.str : "?");
        }
        ctk_buf_puts(&b, ")");
    }
    if (b.failed || !(what = ctk_buf_take(&b, NULL))) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return false;
    }
    ok = add_op(st, CTK_MODOP_NOT_RUN, fname, what, NULL, 0, false, ctk_lua_call_line(c), err) &&
         ctk_strlist_take(&st->ev->not_run, what, err);
    if (ok && (strcmp(fname, "capture") == 0 || strcmp(fname, "subprocess") == 0))
        ok = ctk_lua_ret_str(ret, "", 0) || (ctk_error_nomem(err), false);
    return ok;
}

/* LmodBreak([msg]): load mode: stop here and drop the module's changes;
 * unload mode: nothing. */
static bool fn_break(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;

    ctk_lua_val_t a;
    const char *msg;

    (void)ret;
    if (!arg_str(c, 1, &a, &msg, err)) /* Lmod: the message must be a string */
        return false;
    if (!add_op(st, CTK_MODOP_BREAK, NULL, msg, NULL, 0, false, ctk_lua_call_line(c), err))
        return false;
    if (st->fr->mode == CTK_MODE_UNLOAD)
        return true;
    st->fr->breaking = true;
    ctk_error_set(err, CTK_E_TEMPLATE, NULL, ctk_lua_call_line(c), 0, "LmodBreak");
    return false;
}

/* requireFullName(): load mode: an error unless the full name was typed. */
static bool fn_fullname(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;

    (void)ret;
    if (st->fr->mode == CTK_MODE_LOAD && strcmp(st->fr->user_name, st->fr->full_name) != 0)
        return fail(c, err, "this module must be loaded by its full name: module load %s",
                    st->fr->full_name);
    return true;
}

/* os.date([format]) and os.time(): the clock, read-only. */
static bool fn_date(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    time_t now = time(NULL);
    char out[256];
    ctk_lua_val_t a;
    const char *fmt = "%c";
    struct tm tm;
    size_t n;

    (void)ud;
    if (strcmp(ctk_lua_call_name(c), "os.time") == 0) {
        snprintf(out, sizeof out, "%lld", (long long)now);
        return ctk_lua_ret_str(ret, out, strlen(out)) || (ctk_error_nomem(err), false);
    }
    ctk_lua_call_arg(c, 1, &a);
    if (a.type != CTK_LUA_NIL && !arg_str(c, 1, &a, &fmt, err))
        return false;
    if (*fmt == '!') {
        fmt++;
        gmtime_r(&now, &tm);
    } else {
        localtime_r(&now, &tm);
    }
    if (strncmp(fmt, "*t", 2) == 0)
        return fail(c, err, "os.date(\"*t\") is not supported here");
    /* the module's own format: strftime() writes at most sizeof out */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    n = strftime(out, sizeof out, fmt, &tm);
#pragma GCC diagnostic pop
    return ctk_lua_ret_str(ret, out, n) || (ctk_error_nomem(err), false);
}

/* path_regularize(path) */
static bool fn_regularize(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    ctk_lua_val_t a;
    const char *p;
    char *r;
    bool ok;

    if (!arg_str(c, 1, &a, &p, err))
        return false;
    if (!(r = regularize(p, initial_env(st, "HOME"), err)))
        return false;
    ok = ctk_lua_ret_str(ret, *r ? r : " ", *r ? strlen(r) : 1) || (ctk_error_nomem(err), false);
    free(r);
    return ok;
}

/* inherit(): the module of the same name next on MODULEPATH, after the
 * directory that holds this file, evaluated in the current mode. */
static bool fn_inherit(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *mp = cur_env(st, "MODULEPATH"), *p, *label = st->fr->label;
    size_t fl = strlen(st->fr->full_name);
    ctk_buf_t rest;
    char *file = NULL, *full = NULL;
    bool ok = false, after = false;

    (void)ret;
    if (!add_op(st, CTK_MODOP_INHERIT, st->fr->full_name, NULL, NULL, 0, false, ctk_lua_call_line(c), err))
        return false;
    ctk_buf_init(&rest);
    for (p = mp ? mp : ""; *p;) { /* the MODULEPATH entries after this file's */
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);

        if (after && n)
            ctk_buf_printf(&rest, "%s%.*s", rest.len ? ":" : "", (int)n, p);
        else if (n && strncmp(label, p, n) == 0 && label[n] == '/' &&
                 strncmp(label + n + 1, st->fr->full_name, fl) == 0)
            after = true;
        p += n + (e ? 1 : 0);
    }
    if (rest.failed) {
        ctk_error_nomem(err);
    } else if (!ctk_modeval_find(rest.data ? rest.data : "", st->fr->full_name, &file, &full, err)) {
        ok = !ctk_error_is_set(err) &&
             add_dep(st, CTK_MODOP_INHERIT, st->fr->full_name, NULL, "nothing to inherit on MODULEPATH",
                     ctk_lua_call_line(c), err);
    } else {
        ok = follow_inherit(st, file, full, err);
    }
    free(file);
    free(full);
    ctk_buf_fini(&rest);
    return ok;
}

/* One argument of pathJoin() as it joins, into piece: blanks trimmed,
 * one leading '/' dropped but for the first, "//" as "/", and one
 * trailing '/' dropped (a lone "/" is kept first and dropped after). */
static void piece_of(ctk_buf_t *piece, const char *s, bool first)
{
    const char *e = s + strlen(s);

    while (s < e && is_space(*s))
        s++;
    while (e > s && is_space(e[-1]))
        e--;
    if (!first && s < e && *s == '/')
        s++;
    piece->len = 0;
    for (; s < e; s++)
        if (!(*s == '/' && piece->len && piece->data[piece->len - 1] == '/'))
            ctk_buf_append(piece, s, 1);
    if (piece->len && piece->data[piece->len - 1] == '/') {
        if (piece->len > 1)
            piece->len--;
        else if (!first)
            piece->len = 0;
    }
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
        ctk_lua_call_arg(c, i, &a);
        if (!a.truthy || (a.type == CTK_LUA_STRING && a.len == 0))
            continue;
        if (a.type != CTK_LUA_STRING) {
            fail(c, err, "argument %zu is a %s, not a string", i, type_name(a.type));
            goto out;
        }
        piece_of(&piece, a.str, i == 1);
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

/* The Lmod functions, by name. */
static const ctk_lua_reg_t lmod_impl[] = {
    { "prepend_path", fn_path },      { "append_path", fn_path },
    { "remove_path", fn_path },       { "setenv", fn_env },
    { "pushenv", fn_env },            { "unsetenv", fn_env },
    { "family", fn_family },          { "conflict", fn_modules },
    { "prereq", fn_modules },         { "prereq_any", fn_modules },
    { "depends_on", fn_modules },     { "load", fn_modules },
    { "always_load", fn_modules },    { "try_load", fn_modules },
    { "try_add", fn_modules },        { "load_any", fn_modules },
    { "depends_on_any", fn_modules }, { "unload", fn_modules },
    { "always_unload", fn_modules },
    { "whatis", fn_text },            { "help", fn_text },
    { "LmodMessage", fn_text },       { "LmodMsgRaw", fn_text },
    { "LmodWarning", fn_text },       { "LmodError", fn_text },
    { "LmodBreak", fn_break },        { "requireFullName", fn_fullname },
    { "myModuleName", fn_info },      { "myModuleVersion", fn_info },
    { "myModuleFullName", fn_info },  { "myModuleUsrName", fn_info },
    { "myFileName", fn_info },        { "mode", fn_info },
    { "myShellName", fn_info },       { "myShellType", fn_info },
    { "LmodVersion", fn_info },       { "os.getenv", fn_getenv },
    { "os.date", fn_date },           { "os.time", fn_date },
    { "isloaded", fn_isloaded },      { "isPending", fn_isloaded },
    { "isAvail", fn_isavail },        { "isDir", fn_isfs },
    { "isFile", fn_isfs },            { "userInGroups", fn_ingroups },
    { "userInGroup", fn_ingroups },   { "pathJoin", fn_pathjoin },
    { "path_regularize", fn_regularize },
    { "extensions", fn_record },      { "add_property", fn_record },
    { "remove_property", fn_record }, { "complete", fn_record },
    { "uncomplete", fn_record },      { "set_alias", fn_alias },
    { "unset_alias", fn_alias },      { "set_shell_function", fn_alias },
    { "unset_shell_function", fn_alias },
    { "execute", fn_notrun },         { "capture", fn_notrun },
    { "subprocess", fn_notrun },      { "source_sh", fn_notrun },
    { "os.execute", fn_notrun },      { "mkdir_recursive", fn_notrun },
    { "inherit", fn_inherit },
    { NULL, NULL }
};

/* Call the Lmod function the chunk named.  In unload mode Lmod only warns
 * about a call it refuses (arguments that are not strings, a missing
 * value) and goes on with the file: so does this. */
static bool dispatch(void *ud, const ctk_lua_call_t *c, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    st_t *st = ud;
    const char *name = ctk_lua_call_name(c);
    const ctk_lua_reg_t *r;
    int line;

    for (r = lmod_impl; r->name && strcmp(r->name, name) != 0; r++)
        ;
    if (!r->name) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "%s: not an Lmod function", name);
        return false;
    }
    if (r->fn(ud, c, ret, err))
        return true;
    if (st->fr->mode != CTK_MODE_UNLOAD || err->code != CTK_E_TEMPLATE || st->fr->breaking)
        return false;
    line = err->line ? err->line : ctk_lua_call_line(c);
    st->ev->warned = true;
    if (!add_op(st, CTK_MODOP_WARNING, NULL, err->text, NULL, 0, false, line, err) ||
        !ctk_strlist_push(&st->ev->messages, err->text, err))
        return false;
    ctk_error_init(err);
    return true;
}


/* Lmod's helpers written in Lua, run before each modulefile: the string
 * methods Lmod adds (reachable as ("x"):trim(), not as string.trim), the
 * file-name helpers, hierarchyA, the version selectors and the rest of
 * the sandbox's small functions. */
static const char prelude[] =
    "local S = ...\n"
    "function S.trim(s)\n"
    "  local a = s:find('%S')\n"
    "  if not a then return '' end\n"
    "  local b = s:find('%s+$') or (#s + 1)\n"
    "  return s:sub(a, b - 1)\n"
    "end\n"
    "function S.split(s, pat)\n"
    "  pat = pat or '%s+'\n"
    "  local pos, done = 1, false\n"
    "  return function()\n"
    "    if done then return nil end\n"
    "    local a, b = s:find(pat, pos)\n"
    "    if not a then done = true; return s:sub(pos) end\n"
    "    if b < a then b = a; a = a + 1; if b > #s then done = true; return s:sub(pos) end end\n"
    "    local piece = s:sub(pos, a - 1)\n"
    "    pos = b + 1\n"
    "    return piece\n"
    "  end\n"
    "end\n"
    "function S.escape(s) return (s:gsub('[%-%.%+%[%]%(%)%$%^%%%?%*]', '%%%0')) end\n"
    "function S.caseIndependent(s)\n"
    "  return (s:gsub('.', function(c)\n"
    "    if c:find('%a') then return '[' .. c:upper() .. c:lower() .. ']' end\n"
    "    if c:find('[%-%.%+%[%]%(%)%$%^%%%?%*]') then return '%' .. c end\n"
    "    return c end))\n"
    "end\n"
    "function S.multiEscaped(s)\n"
    "  return (s:gsub('[ \\t?\\\\{}|<>!;#^$&*\"\\'`()~%[%]]', '\\\\%0'))\n"
    "end\n"
    "function S.doubleQuoteString(s) return '\"' .. s:gsub('\"', '\\\\\"') .. '\"' end\n"
    "function S.atSymbolEscaped(s) return (s:gsub('@', '\\\\@')) end\n"
    "function splitFileName(p)\n"
    "  local d, f = p:match('^(.*/)([^/]*)$')\n"
    "  if not d then return './', p end\n"
    "  return d, f\n"
    "end\n"
    "function dirname(p) local d = splitFileName(p); return d end\n"
    "function barefilename(p) local _, f = splitFileName(p); return f end\n"
    "function extname(p) return p:match('(%.[^./]*)$') or '' end\n"
    "function removeExt(p) return (p:gsub('%.[^./]*$', '')) end\n"
    "function abspath(p)\n"
    "  local out = {}\n"
    "  for part in p:split('/') do\n"
    "    if part == '..' then if #out > 0 then out[#out] = nil end\n"
    "    elseif part ~= '' and part ~= '.' then out[#out + 1] = part end\n"
    "  end\n"
    "  return '/' .. table.concat(out, '/')\n"
    "end\n"
    "function hierarchyA(pkg, levels)\n"
    "  if levels < 1 then return {} end\n"
    "  local fn = myFileName():gsub('%.lua$', '')\n"
    "  pkg = path_regularize((pkg:gsub('%.lua$', '')))\n"
    "  local i, j = fn:find(pkg, 1, true)\n"
    "  if j == #fn then fn = fn:sub(1, i - 1) end\n"
    "  fn = path_regularize(fn)\n"
    "  local n = 1\n"
    "  for _ in pkg:gmatch('/') do n = n + 1 end\n"
    "  local a = {}\n"
    "  for d in fn:split('/') do a[#a + 1] = d end\n"
    "  local b, top = {}, #a\n"
    "  for l = 1, levels do\n"
    "    local bb = {}\n"
    "    for k = 1, n do bb[k] = a[top - n + k] end\n"
    "    b[l] = table.concat(bb, '/')\n"
    "    top = top - n\n"
    "  end\n"
    "  return b\n"
    "end\n"
    "function atleast(m) return m end\n"
    "function between(m) return m end\n"
    "function latest(m) return m end\n"
    "function is_spider() return false end\n"
    "function colorize(_, ...) return table.concat({...}, ' ') end\n"
    "function color_banner() end\n"
    "unpack = table.unpack\n"
    "function UUIDString() return '00000000-0000-0000-0000-000000000000' end\n"
    /* the TACC package helper Lmod's StandardPackage registers */
    "local pkgm = {}\n"
    "function pkgm.pkgName(o) return o._pkgName end\n"
    "function pkgm.pkgVersion(o) return o._pkgVersion end\n"
    "function pkgm.pkgDisplayName(o) return o._display_name end\n"
    "function pkgm.pkgBase(o) return o._pkgBase end\n"
    "local function hier_parts(o, a, level, fix)\n"
    "  if level > 0 then\n"
    "    local h = hierarchyA(o._pkgNameVer, level)\n"
    "    for i = level, 1, -1 do a[#a + 1] = fix and (h[i]:gsub('/', '-'):gsub('%.', '_')) or h[i] end\n"
    "  end\n"
    "end\n"
    "function pkgm.setStandardPaths(o, ...)\n"
    "  local std = { DIR = '', BIN = 'bin', LIB = 'lib', INC = 'include', DOC = 'doc', MAN = 'man' }\n"
    "  local site = (os.getenv('LMOD_SITE_NAME') or 'LMOD'):upper()\n"
    "  for _, key in ipairs({...}) do\n"
    "    local k = key:upper()\n"
    "    if std[k] == nil then LmodError('setStandardPaths: unknown key ' .. key) end\n"
    "    local path = pathJoin(o._pkgBase, std[k])\n"
    "    setenv(site .. '_' .. o._display_name:upper() .. '_' .. k, path)\n"
    "    if k == 'BIN' then prepend_path('PATH', path) end\n"
    "    if k == 'MAN' then prepend_path('MANPATH', path) end\n"
    "  end\n"
    "end\n"
    "function pkgm.moduleDir(o)\n"
    "  local level, digits = o.level or 0, o.digit_rule or 2\n"
    "  local a = { os.getenv('MODULEPATH_ROOT'), ({ [0] = 'Compiler', [1] = 'MPI' })[level] }\n"
    "  hier_parts(o, a, level, false)\n"
    "  local patt = '(' .. ('%d+%.'):rep(digits - 1) .. '%d+)%.?'\n"
    "  a[#a + 1] = pathJoin(o._pkgName, o._pkgVersion:match(patt))\n"
    "  return pathJoin(table.unpack(a))\n"
    "end\n"
    "Pkg = {}\n"
    "function Pkg.new(_, t)\n"
    "  local o = {}\n"
    "  for k, v in pairs(t) do o[k] = v end\n"
    "  for k, f in pairs(pkgm) do o[k] = f end\n"
    "  o._pkgName, o._pkgVersion, o._pkgNameVer = myModuleName(), myModuleVersion(), myModuleFullName()\n"
    "  o._display_name = o.display_name or o._pkgName\n"
    "  o._pkgRoot = o.pkgRoot or os.getenv('SITE_PACKAGE_ROOT') or '/opt/apps'\n"
    "  local a = { o._pkgRoot }\n"
    "  hier_parts(o, a, o.level or 0, true)\n"
    "  a[#a + 1] = o._pkgNameVer\n"
    "  o._pkgBase = pathJoin(table.unpack(a))\n"
    "  whatis('Name: ' .. o._display_name)\n"
    "  whatis('Version: ' .. o._pkgVersion)\n"
    "  for _, k in ipairs({ 'Category', 'Description', 'URL', 'Keywords', 'License' }) do\n"
    "    if type(o[k]) == 'string' then whatis(k .. ': ' .. o[k]) end\n"
    "  end\n"
    "  if o.help then help(o.help, '\\nVersion ' .. o._pkgVersion .. '\\n') end\n"
    "  return o\n"
    "end\n";

/* What the module sees: every name of lmod_impl, each to dispatch(). */
static ctk_lua_reg_t *dispatch_table(ctk_error_t *err)
{
    size_t n = sizeof lmod_impl / sizeof lmod_impl[0], i;
    ctk_lua_reg_t *t = malloc(n * sizeof *t);

    if (!t) {
        ctk_error_nomem(err);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        t[i].name = lmod_impl[i].name;
        t[i].fn = lmod_impl[i].name ? dispatch : NULL;
    }
    return t;
}

/* ---- evaluating a file ----------------------------------------------------------- */
typedef struct {
    var_t *vars;
    size_t n_vars;
    pstack_t *stacks;
    size_t n_stacks;
    ctk_strlist_t loaded, files;
} snap_t;

static bool list_copy(ctk_strlist_t *to, const ctk_strlist_t *from, ctk_error_t *err)
{
    size_t i;

    ctk_strlist_init(to);
    for (i = 0; i < from->len; i++)
        if (!ctk_strlist_push(to, from->items[i], err))
            return false;
    return true;
}

static bool var_copy(var_t *to, const var_t *from, ctk_error_t *err)
{
    size_t i;

    *to = *from;
    to->ents = NULL;
    to->n = to->cap = 0;
    to->name = to->delim = to->value = NULL;
    if (!(to->name = ctk_strdup(from->name, err)) || !dup_opt(from->delim, &to->delim, err) ||
        !dup_opt(from->value, &to->value, err))
        return false;
    for (i = 0; i < from->n; i++) {
        if (!add_ent(to, from->ents[i].val, from->ents[i].idx, from->ents[i].prio, err))
            return false;
        to->ents[i].num = from->ents[i].num;
    }
    return true;
}

static void stacks_free(pstack_t *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(s[i].name);
        ctk_strlist_fini(&s[i].ents);
    }
    free(s);
}

static void vars_free(var_t *v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        var_fini(&v[i]);
    free(v);
}

static void snap_fini(snap_t *sn)
{
    vars_free(sn->vars, sn->n_vars);
    stacks_free(sn->stacks, sn->n_stacks);
    ctk_strlist_fini(&sn->loaded);
    ctk_strlist_fini(&sn->files);
    memset(sn, 0, sizeof *sn);
}

/* A copy of what LmodBreak() puts back. */
static bool snap_take(const st_t *st, snap_t *sn, ctk_error_t *err)
{
    size_t i;

    memset(sn, 0, sizeof *sn);
    if (!list_copy(&sn->loaded, &st->loaded, err) || !list_copy(&sn->files, &st->files, err))
        goto fail;
    if (st->n_vars && !(sn->vars = calloc(st->n_vars, sizeof *sn->vars)))
        goto nomem;
    for (; sn->n_vars < st->n_vars; sn->n_vars++)
        if (!var_copy(&sn->vars[sn->n_vars], &st->vars[sn->n_vars], err)) {
            sn->n_vars++;
            goto fail;
        }
    if (st->n_stacks && !(sn->stacks = calloc(st->n_stacks, sizeof *sn->stacks)))
        goto nomem;
    for (i = 0; i < st->n_stacks; i++) {
        sn->n_stacks++;
        sn->stacks[i].had = st->stacks[i].had;
        if (!(sn->stacks[i].name = ctk_strdup(st->stacks[i].name, err)) ||
            !list_copy(&sn->stacks[i].ents, &st->stacks[i].ents, err))
            goto fail;
    }
    return true;
nomem:
    ctk_error_nomem(err);
fail:
    snap_fini(sn);
    return false;
}

static void snap_restore(st_t *st, snap_t *sn)
{
    vars_free(st->vars, st->n_vars);
    stacks_free(st->stacks, st->n_stacks);
    ctk_strlist_fini(&st->loaded);
    ctk_strlist_fini(&st->files);
    st->vars = sn->vars;
    st->n_vars = st->cap_vars = sn->n_vars;
    st->stacks = sn->stacks;
    st->n_stacks = sn->n_stacks;
    st->loaded = sn->loaded;
    st->files = sn->files;
    memset(sn, 0, sizeof *sn);
}

/* Unload the loaded module whose name (sn) is sn, if any. */
static bool unload_sn(st_t *st, const char *sn, ctk_error_t *err)
{
    long k = loaded_index(st, sn);
    char *file, *full;
    bool ok;

    if (k < 0 || (size_t)k >= st->files.len || !*st->files.items[k])
        return true;
    file = ctk_strdup(st->files.items[k], err);
    full = file ? ctk_strdup(st->loaded.items[k], err) : NULL;
    ok = full && eval_file(st, file, full, NULL, CTK_MODE_UNLOAD, err);
    free(file);
    free(full);
    return ok;
}

/* Lmod's automatic family swap, after a load: the old member and the new
 * one are unloaded, and the new one loaded again by the name it was
 * given. */
static bool family_swaps(st_t *st, ctk_error_t *err)
{
    while (st->swaps.len >= 3) {
        char *old = st->swaps.items[st->swaps.len - 3], *nsn = st->swaps.items[st->swaps.len - 2];
        char *typed = st->swaps.items[st->swaps.len - 1], *msg;
        bool found, ok;

        st->swaps.len -= 3;
        msg = ctk_printf(err, "Lmod is automatically replacing \"%s\" with \"%s\"", old, nsn);
        ok = msg && ctk_strlist_take(&st->ev->messages, msg, err) && unload_sn(st, old, err) &&
             unload_sn(st, nsn, err) &&
             follow_module(st, CTK_MODOP_LOAD, typed, CTK_MODE_LOAD, 0, &found, err);
        free(old);
        free(nsn);
        free(typed);
        if (!ok)
            return false;
    }
    return true;
}

/* Evaluate src as the module full in mode, on top of the state; mark:
 * record it as loaded/unloaded after (not for inherit()). */
static bool eval_src(st_t *st, const char *file, const char *src, size_t len, const char *full,
                     const char *user, ctk_modmode_t mode, bool mark, ctk_error_t *err)
{
    ctk_lua_limits_t lim = { MODEVAL_MEM_LIMIT, MODEVAL_INSTR_LIMIT, MODEVAL_TIME_LIMIT_MS };
    const char *slash = strrchr(full, '/');
    frame_t fr;
    snap_t sn;
    bool ok = false, ran;
    ctk_error_t e;

    memset(&fr, 0, sizeof fr);
    memset(&sn, 0, sizeof sn);
    fr.label = file;
    fr.full_name = full;
    fr.user_name = user ? user : full;
    fr.version = slash ? slash + 1 : "";
    fr.mode = mode;
    fr.up = st->fr;
    fr.depth = st->fr ? st->fr->depth + 1 : 0;
    if (!(fr.sn = ctk_strndup(full, slash ? (size_t)(slash - full) : strlen(full), err)))
        return false;
    if (mode == CTK_MODE_LOAD && mark && !unload_sn(st, fr.sn, err))
        goto out; /* loading a module whose name is loaded replaces that one */
    if (mode == CTK_MODE_LOAD && !snap_take(st, &sn, err))
        goto out;
    st->fr = &fr;
    ctk_error_init(&e);
    ran = ctk_lua_run_prelude(file, prelude, sizeof prelude - 1, src, len, st->fns, st,
                              CTK_LUA_ALLOW_GLOBALS, &lim, &e);
    st->fr = fr.up;
    if (!ran && fr.breaking) {        /* LmodBreak: this module's changes are dropped */
        snap_restore(st, &sn);
        if (!fr.up)
            st->ev->broke = true;
        ok = true;
        goto out;
    }
    if (!ran && !(mode == CTK_MODE_UNLOAD && e.code == CTK_E_TEMPLATE)) {
        *err = e;                     /* unload ignores errors and keeps what ran */
        goto out;
    }
    ok = (!mark || mark_loaded(st, full, file, mode == CTK_MODE_LOAD, err)) &&
         (mode == CTK_MODE_UNLOAD || !mark || family_swaps(st, err));
out:
    snap_fini(&sn);
    free(fr.sn);
    return ok;
}

/* A loaded module's file, evaluated again (to unload or reload it); one
 * that cannot be read is left alone, as Lmod leaves a module whose file
 * is gone. */
static bool eval_file(st_t *st, const char *file, const char *full, const char *user,
                      ctk_modmode_t mode, ctk_error_t *err)
{
    size_t len;
    char *why = NULL, *src = module_source(st, file, full, &len, &why, err);
    bool ok;

    if (!src) {
        ok = why && add_dep(st, CTK_MODOP_LOAD, full, file, why, 0, err) &&
             (mode == CTK_MODE_LOAD || mark_loaded(st, full, file, false, err));
        free(why);
        return ok;
    }
    ok = eval_src(st, file, src, len, full, user, mode, true, err);
    free(src);
    return ok;
}

static bool follow_inherit(st_t *st, const char *file, const char *full, ctk_error_t *err)
{
    size_t len;
    char *why = NULL, *src = module_source(st, file, full, &len, &why, err);
    bool ok;

    if (!src) {
        ok = why && add_dep(st, CTK_MODOP_INHERIT, full, file, why, 0, err);
        free(why);
        return ok;
    }
    ok = add_dep(st, CTK_MODOP_INHERIT, full, file, NULL, 0, err) &&
         eval_src(st, file, src, len, full, st->fr->user_name, st->fr->mode, false, err);
    free(src);
    return ok;
}

/* ---- the result -------------------------------------------------------------------- */
static bool put_var(ctk_modvar_t **arr, size_t *n, const char *name, const char *value,
                    ctk_error_t *err)
{
    return put_named(arr, n, name, value, err);
}

/* __LMOD_REF_COUNT_<V> and __LMOD_Priority_<V> of a path variable, where
 * they differ from what the environment had (Lmod's Var:expand()). */
static bool path_tables(st_t *st, const var_t *v, ctk_error_t *err)
{
    char rn[512], pn[512];
    const char *old_r = lmod_table(st, "__LMOD_REF_COUNT_", v->name, rn, sizeof rn);
    const char *old_p = lmod_table(st, "__LMOD_Priority_", v->name, pn, sizeof pn);
    pent_t **order = NULL;
    ctk_buf_t r, p;
    size_t i, j;
    bool ok = false;

    if (strlen(v->name) + 20 > sizeof rn)
        return true;
    ctk_buf_init(&r);
    ctk_buf_init(&p);
    if (v->n && !(order = malloc(v->n * sizeof *order))) {
        ctk_error_nomem(err);
        return false;
    }
    for (i = 0; i < v->n; i++)
        order[i] = &v->ents[i];
    if (v->n)
        qsort(order, v->n, sizeof *order, cmp_ent);
    for (i = 0; i < v->n; i++)
        if (*order[i]->val)
            ctk_buf_printf(&r, "%s%s:%d", r.len ? ";" : "", order[i]->val, order[i]->num);
    for (i = 0; i < v->n; i++) /* by entry: a selection sort over the few with a priority */
        order[i] = &v->ents[i];
    for (i = 0; i < v->n; i++) {
        size_t best = i;

        for (j = i + 1; j < v->n; j++)
            if (strcmp(order[j]->val, order[best]->val) < 0)
                best = j;
        if (best != i) {
            pent_t *t = order[i];

            order[i] = order[best];
            order[best] = t;
        }
        if (order[i]->prio) /* Lmod keys an empty entry as " " here */
            ctk_buf_printf(&p, "%s%s:%ld", p.len ? ";" : "", *order[i]->val ? order[i]->val : " ",
                           order[i]->prio);
    }
    if (r.failed || p.failed) {
        ctk_error_nomem(err);
        goto out;
    }
    if (r.len ? !old_r || strcmp(old_r, r.data) != 0 : old_r != NULL)
        if (!put_var(&st->ev->lmod_vars, &st->ev->n_lmod_vars, rn, r.len ? r.data : NULL, err))
            goto out;
    if (p.len ? !old_p || strcmp(old_p, p.data) != 0 : old_p != NULL)
        if (!put_var(&st->ev->lmod_vars, &st->ev->n_lmod_vars, pn, p.len ? p.data : NULL, err))
            goto out;
    ok = true;
out:
    free(order);
    ctk_buf_fini(&r);
    ctk_buf_fini(&p);
    return ok;
}

static char *join_list(const ctk_strlist_t *l, const char *sep, ctk_error_t *err)
{
    ctk_buf_t b;
    size_t i;
    char *r;

    ctk_buf_init(&b);
    for (i = 0; i < l->len; i++)
        ctk_buf_printf(&b, "%s%s", i ? sep : "", l->items[i]);
    if (b.failed || !ctk_buf_puts(&b, "") || !(r = ctk_buf_take(&b, NULL))) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return r;
}

/* A stack's value as Lmod's Var:expand() writes a path: an empty entry
 * alone is "::", a trailing one adds a ':'. */
static char *stack_value(const ctk_strlist_t *ents, ctk_error_t *err)
{
    char *v, *r;

    if (ents->len == 1 && !*ents->items[0])
        return ctk_strdup("::", err);
    if (!(v = join_list(ents, ":", err)) || *ents->items[ents->len - 1])
        return v;
    r = ctk_printf(err, "%s:", v);
    free(v);
    return r;
}

/* Lmod's own variables as the command leaves them. */
static bool lmod_output(st_t *st, ctk_error_t *err)
{
    size_t i;

    for (i = 0; i < st->n_vars; i++)
        if (st->vars[i].is_path && !path_tables(st, &st->vars[i], err))
            return false;
    for (i = 0; i < st->n_stacks; i++) {
        const pstack_t *ps = &st->stacks[i];
        char *name = ctk_printf(err, "__LMOD_STACK_%s", ps->name), *val = NULL;
        bool ok = name && (!ps->ents.len || (val = stack_value(&ps->ents, err)) != NULL) &&
                  (ps->ents.len || ps->had ? put_var(&st->ev->lmod_vars, &st->ev->n_lmod_vars, name, val, err)
                                           : true);

        free(name);
        free(val);
        if (!ok)
            return false;
    }
    if (st->mods_changed) {
        char *lm = join_list(&st->loaded, ":", err), *lf = lm ? join_list(&st->files, ":", err) : NULL;
        bool ok = lf && put_var(&st->ev->lmod_vars, &st->ev->n_lmod_vars, "LOADEDMODULES", *lm ? lm : NULL, err) &&
                  put_var(&st->ev->lmod_vars, &st->ev->n_lmod_vars, "_LMFILES_", *lf ? lf : NULL, err);

        free(lm);
        free(lf);
        if (!ok)
            return false;
    }
    return true;
}

static bool split_env_list(const st_t *st, const char *name, ctk_strlist_t *out, ctk_error_t *err)
{
    const char *v = initial_env(st, name), *p = v;

    while (p && *p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *item = ctk_strndup(p, n, err);

        if (!item || !ctk_strlist_take(out, item, err))
            return false;
        p = e ? e + 1 : NULL;
    }
    return true;
}

/* ---- public ------------------------------------------------------------------ */
/* An empty result; NULL when out of memory. */
static ctk_modeval_t *modeval_new(ctk_error_t *err)
{
    ctk_modeval_t *ev = calloc(1, sizeof *ev);

    if (!ev) {
        ctk_error_nomem(err);
        return NULL;
    }
    ctk_strlist_init(&ev->conflicts);
    ctk_strlist_init(&ev->prereqs);
    ctk_strlist_init(&ev->loads);
    ctk_strlist_init(&ev->whatis);
    ctk_strlist_init(&ev->messages);
    ctk_strlist_init(&ev->properties);
    ctk_strlist_init(&ev->extensions);
    ctk_strlist_init(&ev->not_run);
    return ev;
}

/* The variables' names and values handed over from st to ev. */
static bool hand_vars_over(st_t *st, ctk_modeval_t *ev, ctk_error_t *err)
{
    if (st->n_vars && !(ev->vars = calloc(st->n_vars, sizeof *ev->vars))) {
        ctk_error_nomem(err);
        return false;
    }
    for (size_t i = 0; i < st->n_vars; i++) {
        ev->vars[i].name = st->vars[i].name;
        ev->vars[i].value = st->vars[i].value;
        st->vars[i].name = st->vars[i].value = NULL;
    }
    ev->n_vars = st->n_vars;
    return true;
}

ctk_modeval_t *ctk_modeval_run(const char *path_label, const char *src, size_t len,
                               const char *full_name, const ctk_modeval_opts_t *opts,
                               ctk_error_t *err)
{
    ctk_modeval_t *ev, *result = NULL;
    st_t st;

    memset(&st, 0, sizeof st);
    st.env = opts->initial_env;
    st.follow = opts->follow;
    st.lenient = opts->lenient;
    st.opts = opts;
    ctk_strlist_init(&st.loaded);
    ctk_strlist_init(&st.files);
    ctk_strlist_init(&st.swaps);
    st.ev = ev = modeval_new(err);
    if (ev && (st.fns = dispatch_table(err)) && split_env_list(&st, "LOADEDMODULES", &st.loaded, err) &&
        split_env_list(&st, "_LMFILES_", &st.files, err) &&
        eval_src(&st, path_label, src, len, full_name, opts->user_name, opts->mode, true, err) &&
        lmod_output(&st, err) && hand_vars_over(&st, ev, err)) {
        result = ev;
        ev = NULL;
    }
    vars_free(st.vars, st.n_vars);
    stacks_free(st.stacks, st.n_stacks);
    ctk_strlist_fini(&st.loaded);
    ctk_strlist_fini(&st.files);
    ctk_strlist_fini(&st.swaps);
    free(st.fns);
    ctk_modeval_free(ev);
    return result;
}

ctk_modeval_t *ctk_modeval_lua(const char *path_label, const char *src, size_t len,
                               const char *full_name, const ctk_strlist_t *initial_env,
                               ctk_error_t *err)
{
    ctk_modeval_opts_t o = { CTK_MODE_LOAD, initial_env, false, NULL, false, NULL, NULL };

    return ctk_modeval_run(path_label, src, len, full_name, &o, err);
}

static bool env_put(ctk_strlist_t *env, const char *name, const char *value, ctk_error_t *err)
{
    size_t i, n = strlen(name);

    for (i = env->len; i-- > 0;)
        if (strncmp(env->items[i], name, n) == 0 && env->items[i][n] == '=')
            list_drop(env, i);
    if (!value)
        return true;
    char *e = ctk_printf(err, "%s=%s", name, value);

    return e && ctk_strlist_take(env, e, err);
}

bool ctk_modeval_apply(const ctk_modeval_t *ev, ctk_strlist_t *env, ctk_error_t *err)
{
    size_t i;

    for (i = 0; i < ev->n_vars; i++)
        if (!env_put(env, ev->vars[i].name, ev->vars[i].value, err))
            return false;
    for (i = 0; i < ev->n_lmod_vars; i++)
        if (!env_put(env, ev->lmod_vars[i].name, ev->lmod_vars[i].value, err))
            return false;
    return true;
}

/* Version order as Lmod sorts module versions, closely enough: runs of
 * digits compare as numbers, everything else byte by byte. */
static int version_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *x = a, *y = b;
            size_t lx, ly;
            int c;

            while (*x == '0' && isdigit((unsigned char)x[1]))
                x++;
            while (*y == '0' && isdigit((unsigned char)y[1]))
                y++;
            for (a = x; isdigit((unsigned char)*a); a++)
                ;
            for (b = y; isdigit((unsigned char)*b); b++)
                ;
            lx = (size_t)(a - x);
            ly = (size_t)(b - y);
            if (lx != ly)
                return lx < ly ? -1 : 1;
            if ((c = strncmp(x, y, lx)) != 0)
                return c;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* The default version in directory dir (of module sn): its "default"
 * symlink, else the highest version. */
static bool find_default(const char *dir, const char *sn, char **file, char **full, ctk_error_t *err)
{
    char *best = NULL, *link = NULL, *path = NULL;
    DIR *d;
    struct dirent *de;
    bool ok = false;

    if ((path = ctk_printf(err, "%s/default", dir)) == NULL)
        return false;
    if ((link = ctk_realpath(path)) != NULL && ctk_is_file(link)) {
        const char *base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
        size_t n = strlen(base);

        *file = link;
        link = NULL;
        *full = ctk_printf(err, "%s/%.*s", sn, (int)(n > 4 && strcmp(base + n - 4, ".lua") == 0 ? n - 4 : n), base);
        ok = *full != NULL;
        goto out;
    }
    if (!(d = opendir(dir)))
        goto out;
    while ((de = readdir(d)) != NULL) {
        char *p;
        size_t n = strlen(de->d_name);

        if (de->d_name[0] == '.' || strcmp(de->d_name, "default") == 0)
            continue;
        if (!(p = ctk_printf(err, "%s/%s", dir, de->d_name)))
            break;
        if (ctk_is_file(p)) {
            char *v = ctk_strndup(de->d_name, n > 4 && strcmp(de->d_name + n - 4, ".lua") == 0 ? n - 4 : n, err);

            if (v && (!best || version_cmp(v, best) > 0)) {
                free(best);
                best = v;
            } else {
                free(v);
            }
        }
        free(p);
    }
    closedir(d);
    if (ctk_error_is_set(err) || !best)
        goto out;
    if (!(*full = ctk_printf(err, "%s/%s", sn, best)))
        goto out;
    if (!(*file = ctk_printf(err, "%s/%s.lua", dir, best)) || (!ctk_is_file(*file) && (free(*file), true) &&
                                                                !(*file = ctk_printf(err, "%s/%s", dir, best)))) {
        free(*full);
        *full = NULL;
        goto out;
    }
    ok = true;
out:
    free(best);
    free(link);
    free(path);
    return ok;
}

/* name in one MODULEPATH directory. */
static bool find_in(const char *dir, const char *name, char **file, char **full, ctk_error_t *err)
{
    char *p = ctk_printf(err, "%s/%s.lua", dir, name);
    bool ok;

    if (!p)
        return false;
    if (ctk_is_file(p)) {
        *file = p;
        return (*full = ctk_strdup(name, err)) != NULL;
    }
    free(p);
    if (!(p = ctk_printf(err, "%s/%s", dir, name)))
        return false;
    if (ctk_is_file(p)) {
        *file = p;
        return (*full = ctk_strdup(name, err)) != NULL;
    }
    ok = ctk_is_dir(p) && find_default(p, name, file, full, err);
    free(p);
    return ok;
}

bool ctk_modeval_find(const char *modulepath, const char *name, char **file, char **full_name,
                      ctk_error_t *err)
{
    const char *p = modulepath;

    *file = *full_name = NULL;
    if (!*name || strstr(name, "..") || name[0] == '/')
        return false;
    while (p && *p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char *dir = n ? ctk_strndup(p, n, err) : NULL;
        bool found;

        if (n && !dir)
            return false;
        found = dir && find_in(dir, name, file, full_name, err);
        free(dir);
        if (found)
            return true;
        if (ctk_error_is_set(err))
            return false;
        p = e ? e + 1 : NULL;
    }
    return false;
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
        "try_load", "whatis", "help", "LmodMessage", "LmodWarning", "load_any",
        "depends_on_any", "unload", "set_alias", "unset_alias", "set_shell_function",
        "unset_shell_function", "complete", "uncomplete", "add_property", "remove_property",
        "extensions", "inherit", "LmodBreak", "not run"
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
        free(ev->ops[i].file);
    }
    free(ev->ops);
    free(ev->family);
    for (i = 0; i < ev->n_lmod_vars; i++) {
        free(ev->lmod_vars[i].name);
        free(ev->lmod_vars[i].value);
    }
    free(ev->lmod_vars);
    for (i = 0; i < ev->n_aliases; i++) {
        free(ev->aliases[i].name);
        free(ev->aliases[i].value);
    }
    free(ev->aliases);
    for (i = 0; i < ev->n_functions; i++) {
        free(ev->functions[i].name);
        free(ev->functions[i].value);
    }
    free(ev->functions);
    for (i = 0; i < ev->n_deps; i++) {
        free(ev->deps[i].name);
        free(ev->deps[i].file);
        free(ev->deps[i].why);
    }
    free(ev->deps);
    ctk_strlist_fini(&ev->properties);
    ctk_strlist_fini(&ev->extensions);
    ctk_strlist_fini(&ev->not_run);
    ctk_strlist_fini(&ev->conflicts);
    ctk_strlist_fini(&ev->prereqs);
    ctk_strlist_fini(&ev->loads);
    ctk_strlist_fini(&ev->whatis);
    ctk_strlist_fini(&ev->messages);
    free(ev->help);
    free(ev);
}
