/* diff.c - line-based unified diff (Myers O(ND)) for plan previews.
 * SPDX-License-Identifier: MIT
 *
 * The common head and tail are stripped first; Myers' greedy algorithm runs
 * on the middle, keeping each round's furthest-reaching x per diagonal so
 * that the edit script can be read back.  Only diagonals inside the edit
 * graph are followed, so every point visited is a real (x, y) pair.  Memory
 * is O(D^2) ints, which CTK_DIFF_MAX_D bounds (about 8 MB); beyond it the
 * middle is shown as one block replaced by another.
 */
#include <ctkconf.h>

#include "diff.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p;
    size_t len; /* including the '\n', if the line has one */
    uint64_t h;
} line_t;

enum { OP_EQ, OP_DEL, OP_INS };

/* One step of the edit script; a and b are the positions in A and B before
 * the step (0-based), so an OP_DEL removes A[a], an OP_INS adds B[b]. */
typedef struct {
    unsigned char t;
    size_t a, b;
} op_t;

typedef struct {
    op_t *v;
    size_t n;
} ops_t;

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Split s into lines; the last one may lack its '\n'.  Caller frees *out. */
static bool split_lines(const char *s, size_t n, line_t **out, size_t *count)
{
    size_t i, k = 0, start = 0, lines = 0;
    line_t *v;

    for (i = 0; i < n; i++)
        if (s[i] == '\n')
            lines++;
    if (n > 0 && s[n - 1] != '\n')
        lines++;
    v = malloc((lines ? lines : 1) * sizeof *v);
    if (!v)
        return false;
    for (i = 0; i < n; i++) {
        if (s[i] == '\n' || i + 1 == n) {
            v[k].p = s + start;
            v[k].len = i + 1 - start;
            v[k].h = fnv1a(v[k].p, v[k].len);
            k++;
            start = i + 1;
        }
    }
    *out = v;
    *count = lines;
    return true;
}

static bool line_eq(const line_t *x, const line_t *y)
{
    return x->h == y->h && x->len == y->len && memcmp(x->p, y->p, x->len) == 0;
}

static void push(ops_t *ops, unsigned char t, size_t a, size_t b)
{
    ops->v[ops->n].t = t;
    ops->v[ops->n].a = a;
    ops->v[ops->n].b = b;
    ops->n++;
}

/* Furthest-reaching x values: round d holds diagonals k = -d, -d+2, ..., d
 * at v[d*(d+1)/2 + (k+d)/2]; -1 marks a diagonal not reachable in d steps. */
typedef struct {
    int *v;
    size_t cap;
} vtab_t;

static size_t vrow(int d)
{
    return (size_t)d * (size_t)(d + 1) / 2;
}

static int vget(const vtab_t *t, int d, int k)
{
    return t->v[vrow(d) + (size_t)((k + d) / 2)];
}

/* Where round d enters diagonal k: the x after the one non-diagonal move
 * (down = an insertion from diagonal k+1, else a deletion from k-1).  Ties
 * go to the insertion, as in Myers' paper.  -1 if neither move stays in
 * the N x M edit graph. */
static int enter(const vtab_t *t, int d, int k, int n, int m, bool *down)
{
    int xd = -1, xr = -1, px;

    if (k < d) {
        px = vget(t, d - 1, k + 1);
        if (px >= 0 && px - (k + 1) < m)
            xd = px;
    }
    if (k > -d) {
        px = vget(t, d - 1, k - 1);
        if (px >= 0 && px < n)
            xr = px + 1;
    }
    if (xd < 0 && xr < 0)
        return -1;
    *down = xd >= xr;
    return *down ? xd : xr;
}

/* Room in t for rounds up to d; false when out of memory. */
static bool vtab_reserve(vtab_t *t, int d)
{
    size_t need = vrow(d + 1), cap;
    int *p;

    if (need <= t->cap)
        return true;
    cap = t->cap ? t->cap * 2 : 1024;
    while (cap < need)
        cap *= 2;
    if (!(p = realloc(t->v, cap * sizeof *p)))
        return false;
    t->v = p;
    t->cap = cap;
    return true;
}

/* Round d of the forward search: each diagonal's furthest x, entered by
 * one move from round d-1 and then down the snake of equal lines.  True
 * when a diagonal reaches (n, m). */
static bool round_reaches_end(vtab_t *t, int d, const line_t *A, int n, const line_t *B, int m)
{
    bool down = false;

    for (int k = -d; k <= d; k += 2) {
        int *slot = &t->v[vrow(d) + (size_t)((k + d) / 2)];
        int x, y;

        if (k < -m || k > n) {
            *slot = -1;
            continue;
        }
        x = d == 0 ? 0 : enter(t, d, k, n, m, &down);
        if (x < 0) {
            *slot = -1;
            continue;
        }
        y = x - k;
        while (x < n && y < m && line_eq(&A[x], &B[y])) {
            x++;
            y++;
        }
        *slot = x;
        if (x == n && y == m)
            return true;
    }
    return false;
}

/* The path of d rounds read back from (n, m) to (0, 0), its steps
 * appended to ops last first, then put in order. */
static void read_back(const vtab_t *t, int d, int n, int m, size_t off, ops_t *ops)
{
    size_t start = ops->n, i, j;
    int x = n, y = m;
    bool down = false;

    for (; d > 0; d--) {
        int xs = enter(t, d, x - y, n, m, &down);

        while (x > xs) {
            x--;
            y--;
            push(ops, OP_EQ, off + (size_t)x, off + (size_t)y);
        }
        if (down) {
            y--;
            push(ops, OP_INS, off + (size_t)x, off + (size_t)y);
        } else {
            x--;
            push(ops, OP_DEL, off + (size_t)x, off + (size_t)y);
        }
    }
    while (x > 0) {
        x--;
        y--;
        push(ops, OP_EQ, off + (size_t)x, off + (size_t)y);
    }
    for (i = start, j = ops->n; i + 1 < j; i++, j--) {
        op_t tmp = ops->v[i];

        ops->v[i] = ops->v[j - 1];
        ops->v[j - 1] = tmp;
    }
}

/* Edit script of A[0..n) -> B[0..m) appended to ops (positions shifted by
 * off).  Returns 1 on success, 0 when the distance exceeds CTK_DIFF_MAX_D,
 * -1 when out of memory. */
static int myers(const line_t *A, int n, const line_t *B, int m, size_t off, ops_t *ops)
{
    vtab_t t = {NULL, 0};
    int rc = 0;

    for (int d = 0; d <= CTK_DIFF_MAX_D; d++) {
        if (!vtab_reserve(&t, d)) {
            rc = -1;
            break;
        }
        if (round_reaches_end(&t, d, A, n, B, m)) {
            read_back(&t, d, n, m, off, ops);
            rc = 1;
            break;
        }
    }
    free(t.v);
    return rc;
}

static void put_line(ctk_buf_t *out, char prefix, const line_t *l)
{
    ctk_buf_append(out, &prefix, 1);
    ctk_buf_append(out, l->p, l->len);
    if (l->len == 0 || l->p[l->len - 1] != '\n')
        ctk_buf_puts(out, "\n\\ No newline at end of file\n");
}

/* GNU diff's range: "start,count", just "start" when count is 1, and the
 * line before the hunk when count is 0. */
static void put_range(ctk_buf_t *out, size_t pos, size_t count)
{
    if (count == 1)
        ctk_buf_printf(out, "%zu", pos + 1);
    else
        ctk_buf_printf(out, "%zu,%zu", count ? pos + 1 : pos, count);
}

static void put_hunk(ctk_buf_t *out, const ops_t *ops, size_t from, size_t to,
                     const line_t *A, const line_t *B)
{
    size_t i, j, na = 0, nb = 0;

    for (i = from; i < to; i++) {
        if (ops->v[i].t != OP_INS)
            na++;
        if (ops->v[i].t != OP_DEL)
            nb++;
    }
    ctk_buf_puts(out, "@@ -");
    put_range(out, ops->v[from].a, na);
    ctk_buf_puts(out, " +");
    put_range(out, ops->v[from].b, nb);
    ctk_buf_puts(out, " @@\n");
    for (i = from; i < to;) {
        if (ops->v[i].t == OP_EQ) {
            put_line(out, ' ', &A[ops->v[i].a]);
            i++;
            continue;
        }
        /* a run of changes: all removals first, then all additions */
        for (j = i; j < to && ops->v[j].t != OP_EQ; j++)
            if (ops->v[j].t == OP_DEL)
                put_line(out, '-', &A[ops->v[j].a]);
        for (j = i; j < to && ops->v[j].t != OP_EQ; j++)
            if (ops->v[j].t == OP_INS)
                put_line(out, '+', &B[ops->v[j].b]);
        i = j;
    }
}

/* The edit script of A[0..na) -> B[0..nb) into ops, sized for na + nb
 * steps: the common head and tail as they are, Myers' script for the
 * middle, or the whole middle removed and added when that is too long or
 * too far apart.  False when out of memory. */
static bool script(const line_t *A, size_t na, const line_t *B, size_t nb, size_t pre, size_t suf, ops_t *ops)
{
    size_t i, midA = na - pre - suf, midB = nb - pre - suf;
    int rc = 0;

    for (i = 0; i < pre; i++)
        push(ops, OP_EQ, i, i);
    if (midA + midB <= CTK_DIFF_MAX_LINES)
        rc = myers(A + pre, (int)midA, B + pre, (int)midB, pre, ops);
    if (rc < 0)
        return false;
    if (rc == 0) {
        ops->n = pre;
        for (i = 0; i < midA; i++)
            push(ops, OP_DEL, pre + i, pre);
        for (i = 0; i < midB; i++)
            push(ops, OP_INS, pre + midA, pre + i);
    }
    for (i = 0; i < suf; i++)
        push(ops, OP_EQ, pre + midA + i, pre + midB + i);
    return true;
}

/* Where the hunk holding the change at i ends: past its last change and
 * CTK_DIFF_CONTEXT lines after it; changes closer than 2 * context lines
 * share a hunk. */
static size_t hunk_end(const ops_t *ops, size_t i)
{
    size_t last = i, j, r;

    for (j = i; j < ops->n;) {
        if (ops->v[j].t != OP_EQ) {
            last = j++;
            continue;
        }
        for (r = j; r < ops->n && ops->v[r].t == OP_EQ; r++)
            ;
        if (r == ops->n || r - j > 2 * CTK_DIFF_CONTEXT)
            break;
        j = r;
    }
    return last + 1 + CTK_DIFF_CONTEXT < ops->n ? last + 1 + CTK_DIFF_CONTEXT : ops->n;
}

char *ctk_diff_unified(const char *a_label, const char *a, size_t alen,
                       const char *b_label, const char *b, size_t blen,
                       ctk_error_t *err)
{
    line_t *A = NULL, *B = NULL;
    size_t na = 0, nb = 0, pre = 0, suf = 0, i;
    ops_t ops = {NULL, 0};
    ctk_buf_t out;
    char *res = NULL;

    ctk_buf_init(&out);
    if (!split_lines(a ? a : "", a ? alen : 0, &A, &na) ||
        !split_lines(b ? b : "", b ? blen : 0, &B, &nb))
        goto nomem;
    while (pre < na && pre < nb && line_eq(&A[pre], &B[pre]))
        pre++;
    while (suf < na - pre && suf < nb - pre && line_eq(&A[na - 1 - suf], &B[nb - 1 - suf]))
        suf++;
    if (pre == na && pre == nb) {
        res = ctk_strdup("", err);
        goto out;
    }
    if (!(ops.v = malloc((na + nb) * sizeof *ops.v)) || !script(A, na, B, nb, pre, suf, &ops))
        goto nomem;
    ctk_buf_printf(&out, "--- %s\n+++ %s\n", a_label, b_label);
    for (i = 0; i < ops.n;) {
        size_t from;

        if (ops.v[i].t == OP_EQ) {
            i++;
            continue;
        }
        /* the previous hunk ended more than 2 * context lines back */
        from = i > CTK_DIFF_CONTEXT ? i - CTK_DIFF_CONTEXT : 0;
        i = hunk_end(&ops, i);
        put_hunk(&out, &ops, from, i, A, B);
    }
    if (out.failed)
        goto nomem;
    res = ctk_buf_take(&out, NULL);
    goto out;
nomem:
    ctk_error_nomem(err);
out:
    ctk_buf_fini(&out);
    free(ops.v);
    free(B);
    free(A);
    return res;
}
