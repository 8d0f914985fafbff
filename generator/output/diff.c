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

/* Edit script of A[0..n) -> B[0..m) appended to ops (positions shifted by
 * off).  Returns 1 on success, 0 when the distance exceeds CTK_DIFF_MAX_D,
 * -1 when out of memory. */
static int myers(const line_t *A, int n, const line_t *B, int m, size_t off, ops_t *ops)
{
    vtab_t t = {NULL, 0};
    int d, k, x, y, dfound = -1, rc = -1;
    size_t start = ops->n, i, j;
    bool down = false;

    for (d = 0; d <= CTK_DIFF_MAX_D && dfound < 0; d++) {
        size_t need = vrow(d + 1);

        if (need > t.cap) {
            size_t cap = t.cap ? t.cap * 2 : 1024;
            int *p;

            while (cap < need)
                cap *= 2;
            p = realloc(t.v, cap * sizeof *p);
            if (!p)
                goto out;
            t.v = p;
            t.cap = cap;
        }
        for (k = -d; k <= d; k += 2) {
            int *slot = &t.v[vrow(d) + (size_t)((k + d) / 2)];

            if (k < -m || k > n) {
                *slot = -1;
                continue;
            }
            x = d == 0 ? 0 : enter(&t, d, k, n, m, &down);
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
            if (x == n && y == m) {
                dfound = d;
                break;
            }
        }
    }
    if (dfound < 0) {
        rc = 0;
        goto out;
    }

    /* Read the path back from (n, m), writing steps in reverse order. */
    x = n;
    y = m;
    for (d = dfound; d > 0; d--) {
        int xs;

        k = x - y;
        xs = enter(&t, d, k, n, m, &down);
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
    rc = 1;
out:
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

char *ctk_diff_unified(const char *a_label, const char *a, size_t alen,
                       const char *b_label, const char *b, size_t blen,
                       ctk_error_t *err)
{
    line_t *A = NULL, *B = NULL;
    size_t na = 0, nb = 0, pre = 0, suf = 0, i, midA, midB;
    ops_t ops = {NULL, 0};
    ctk_buf_t out;
    char *res = NULL;
    int rc = 0;

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
    midA = na - pre - suf;
    midB = nb - pre - suf;
    ops.v = malloc((na + nb) * sizeof *ops.v);
    if (!ops.v)
        goto nomem;
    for (i = 0; i < pre; i++)
        push(&ops, OP_EQ, i, i);
    if (midA + midB <= CTK_DIFF_MAX_LINES)
        rc = myers(A + pre, (int)midA, B + pre, (int)midB, pre, &ops);
    if (rc < 0)
        goto nomem;
    if (rc == 0) {
        ops.n = pre;
        for (i = 0; i < midA; i++)
            push(&ops, OP_DEL, pre + i, pre);
        for (i = 0; i < midB; i++)
            push(&ops, OP_INS, pre + midA, pre + i);
    }
    for (i = 0; i < suf; i++)
        push(&ops, OP_EQ, pre + midA + i, pre + midB + i);

    ctk_buf_printf(&out, "--- %s\n+++ %s\n", a_label, b_label);
    for (i = 0; i < ops.n;) {
        size_t from, last, j, r;

        if (ops.v[i].t == OP_EQ) {
            i++;
            continue;
        }
        /* the previous hunk ended more than 2 * context lines back */
        from = i > CTK_DIFF_CONTEXT ? i - CTK_DIFF_CONTEXT : 0;
        last = i;
        for (j = i; j < ops.n;) {
            if (ops.v[j].t != OP_EQ) {
                last = j++;
                continue;
            }
            for (r = j; r < ops.n && ops.v[r].t == OP_EQ; r++)
                ;
            if (r == ops.n || r - j > 2 * CTK_DIFF_CONTEXT)
                break;
            j = r;
        }
        i = last + 1 + CTK_DIFF_CONTEXT < ops.n ? last + 1 + CTK_DIFF_CONTEXT : ops.n;
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
