/* lpattern.c - Lua 5.4's string.find, match, gmatch and gsub, metered.
 * SPDX-License-Identifier: MIT
 *
 * The matcher walks a pattern the way Lua 5.4's own does, because three
 * things must come out the same as Lua's, not only the results:
 *   - nothing is compiled ahead: a malformed item is an error only when
 *     the walk reaches it, so "x[" is an error on "x" and finds nothing
 *     in "y";
 *   - the nesting that counts towards "pattern too complex" (MAX_DEPTH):
 *     one level for each capture boundary and for each try of the rest of
 *     the pattern after a quantified item; a plain item, %b, %f and a
 *     back-reference advance in a loop and cost none;
 *   - the messages, raised with luaL_error (so they carry the caller's
 *     position) and luaL_check* (so argument errors name the function as
 *     its call site does).
 * What Lua's matcher lacks is a bound on the work inside one C call.  Each
 * step of the walk here is counted and handed to the meter, which may stop
 * the walk by raising a Lua error.  A walk's state lives on the C stack (or,
 * for gmatch, in a userdata the iterator holds), so a longjmp out of any
 * point loses nothing.
 *
 * One departure, on purpose: Lua 5.4.4's gmatch iterator keeps its nesting
 * counter from call to call, and an error leaves it unbalanced; called
 * again after "pattern too complex" it has no limit left at all, and a
 * deep enough pattern then overflows the C stack.  Here each call of the
 * iterator starts with the full MAX_DEPTH, so such a second call raises
 * "pattern too complex" again where Lua would go on.
 */
#include <ctkconf.h>

#include "lpattern.h"

#include <lauxlib.h>
#include <lua.h>

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#if LUA_VERSION_NUM != 504
#error "lpattern.c gives Lua 5.4's semantics"
#endif

#define PAT_ESC '%'
#define MAX_CAPTURES 32   /* as Lua's LUA_MAXCAPTURES */
#define MAX_DEPTH 200     /* nested matcher calls before "pattern too complex", as Lua */
#define CAP_OPEN (-1)     /* length of a capture not yet closed */
#define CAP_POSITION (-2) /* length of a position capture, "()" */
#define NO_MATCH ((size_t)-1)

typedef struct {
    ctk_lpat_meter_fn fn;
} meter_box_t;

typedef struct {
    const char *at;
    ptrdiff_t len; /* bytes, or CAP_OPEN, or CAP_POSITION */
} capture_t;

typedef struct {
    lua_State *L;
    const char *src, *src_end; /* the subject */
    const char *pat_end;
    int depth;           /* nested matcher calls still allowed */
    int level;           /* captures opened (closed or not) */
    unsigned long steps; /* counted, not yet reported */
    ctk_lpat_meter_fn meter;
    capture_t cap[MAX_CAPTURES];
} mstate_t;

/* What a gmatch iterator keeps between calls: byte offsets into its
 * subject, which its closure holds. */
typedef struct {
    size_t pos;  /* where the next search starts; length + 1 when done */
    size_t last; /* end of the last match, or NO_MATCH */
} gmatch_t;

static void state_init(mstate_t *ms, lua_State *L, const meter_box_t *box, const char *s,
                       size_t ls, const char *p, size_t lp)
{
    ms->L = L;
    ms->src = s;
    ms->src_end = s + ls;
    ms->pat_end = p + lp;
    ms->depth = MAX_DEPTH;
    ms->level = 0;
    ms->steps = 0;
    ms->meter = box ? box->fn : NULL;
}

/* Hand the steps counted so far to the meter (which may not return). */
static void report(mstate_t *ms)
{
    unsigned long n = ms->steps;

    ms->steps = 0;
    if (ms->meter)
        ms->meter(ms->L, n);
}

static inline void tick(mstate_t *ms)
{
    if (++ms->steps >= CTK_LPAT_METER_EVERY)
        report(ms);
}

/* Linear work about to be done in one piece (memcmp, memmem): charged
 * before it runs, so that a spent budget stops it. */
static void charge(mstate_t *ms, size_t n)
{
    ms->steps += n;
    if (ms->steps >= CTK_LPAT_METER_EVERY)
        report(ms);
}

/* Raise msg as luaL_error does, after reporting the steps counted: an
 * error must not make a walk free.  Never returns; the pointer type lets
 * matcher functions say `return fail(...)`. */
static const char *fail(mstate_t *ms, const char *msg)
{
    report(ms);
    luaL_error(ms->L, "%s", msg);
    return NULL;
}

static const char *fail_index(mstate_t *ms, int n)
{
    report(ms);
    luaL_error(ms->L, "invalid capture index %%%d", n);
    return NULL;
}

/* ---- single items -------------------------------------------------------- */

/* Whether byte c is in the class named by the byte after '%': a class
 * letter, its upper case for the complement, or any other byte meaning
 * itself.  The C library decides, in the C locale, as it does for Lua. */
static bool in_class(int c, int cl)
{
    bool in;

    switch (tolower(cl)) {
    case 'a': in = isalpha(c); break;
    case 'c': in = iscntrl(c); break;
    case 'd': in = isdigit(c); break;
    case 'g': in = isgraph(c); break;
    case 'l': in = islower(c); break;
    case 'p': in = ispunct(c); break;
    case 's': in = isspace(c); break;
    case 'u': in = isupper(c); break;
    case 'w': in = isalnum(c); break;
    case 'x': in = isxdigit(c); break;
    case 'z': in = c == 0; break; /* undocumented, but Lua 5.4 still has it */
    default: return cl == c;
    }
    return isupper(cl) ? !in : in;
}

/* Whether byte c is in the set from '[' at p to its closing ']' at end.
 * "x-y" is a range only when y comes before end: a '-' first or last is
 * itself; after a class ("%a-z") it is itself too. */
static bool in_set(int c, const char *p, const char *end)
{
    bool member = true;

    if (p[1] == '^') {
        member = false;
        p++;
    }
    while (++p < end) {
        if (*p == PAT_ESC) {
            p++;
            if (in_class(c, (unsigned char)*p))
                return member;
        } else if (p[1] == '-' && p + 2 < end) {
            if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
                return member;
            p += 2;
        } else if ((unsigned char)*p == c) {
            return member;
        }
    }
    return !member;
}

/* The end of the single item at p (one byte, "%x" or a set), where its
 * quantifier would be.  A set's first member may be ']' ("[]]", "[^]]"),
 * and "%]" inside it does not close it. */
static const char *item_end(mstate_t *ms, const char *p)
{
    const char *pend = ms->pat_end;
    char c = *p++;

    if (c == PAT_ESC) {
        if (p == pend)
            return fail(ms, "malformed pattern (ends with '%')");
        return p + 1;
    }
    if (c != '[')
        return p;
    if (p < pend && *p == '^')
        p++;
    do {
        if (p == pend)
            return fail(ms, "malformed pattern (missing ']')");
        if (*p++ == PAT_ESC && p < pend)
            p++;
    } while (p == pend || *p != ']');
    return p + 1;
}

/* Whether the item from p to ep matches the byte at s. */
static inline bool single(const mstate_t *ms, const char *s, const char *p, const char *ep)
{
    int c;

    if (s >= ms->src_end)
        return false;
    c = (unsigned char)*s;
    switch (*p) {
    case '.': return true;
    case PAT_ESC: return in_class(c, (unsigned char)p[1]);
    case '[': return in_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

/* ---- the walk ------------------------------------------------------------ */

static const char *do_match(mstate_t *ms, const char *s, const char *p);

/* "%bxy" at s, p just past "%b"; the end of the balanced run or NULL. */
static const char *balance(mstate_t *ms, const char *s, const char *p)
{
    char open, close;
    int depth = 1;

    if (p + 1 >= ms->pat_end)
        return fail(ms, "malformed pattern (missing arguments to '%b')");
    if (s >= ms->src_end || *s != *p)
        return NULL;
    open = p[0];
    close = p[1];
    while (++s < ms->src_end) {
        tick(ms);
        if (*s == close) {
            if (--depth == 0)
                return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

/* "%1".."%9" (digit d, '0' too: it is an error) at s. */
static const char *back_ref(mstate_t *ms, const char *s, int d)
{
    int i = d - '1';
    ptrdiff_t len;

    if (i < 0 || i >= ms->level || ms->cap[i].len == CAP_OPEN)
        return fail_index(ms, i + 1);
    len = ms->cap[i].len;
    /* a position capture has no text: it matches nothing, as in Lua, where
     * its length reads as a huge size */
    if (len < 0 || (size_t)(ms->src_end - s) < (size_t)len)
        return NULL;
    charge(ms, (size_t)len);
    return memcmp(ms->cap[i].at, s, (size_t)len) == 0 ? s + len : NULL;
}

/* The longest run of the item (p..ep) from s that lets the rest (after
 * its quantifier) match, trying shorter runs in turn. */
static const char *expand_max(mstate_t *ms, const char *s, const char *p, const char *ep)
{
    size_t n = 0;

    for (;;) {
        tick(ms);
        if (!single(ms, s + n, p, ep))
            break;
        n++;
    }
    for (;;) {
        const char *r = do_match(ms, s + n, ep + 1);

        if (r || n == 0)
            return r;
        n--;
    }
}

/* The shortest run of the item that lets the rest match. */
static const char *expand_min(mstate_t *ms, const char *s, const char *p, const char *ep)
{
    for (;;) {
        const char *r = do_match(ms, s, ep + 1);

        if (r)
            return r;
        tick(ms);
        if (!single(ms, s, p, ep))
            return NULL;
        s++;
    }
}

static const char *open_capture(mstate_t *ms, const char *s, const char *p, ptrdiff_t kind)
{
    const char *r;

    if (ms->level >= MAX_CAPTURES)
        return fail(ms, "too many captures");
    ms->cap[ms->level].at = s;
    ms->cap[ms->level].len = kind;
    ms->level++;
    r = do_match(ms, s, p);
    if (!r)
        ms->level--;
    return r;
}

static const char *close_capture(mstate_t *ms, const char *s, const char *p)
{
    const char *r;
    int i = ms->level - 1;

    while (i >= 0 && ms->cap[i].len != CAP_OPEN)
        i--;
    if (i < 0)
        return fail(ms, "invalid pattern capture");
    ms->cap[i].len = s - ms->cap[i].at;
    r = do_match(ms, s, p);
    if (!r)
        ms->cap[i].len = CAP_OPEN;
    return r;
}

/* "%f[set]" at s, p just past "%f": whether s stands on a frontier of
 * the set, the character before it not in the set and the one at s in
 * it (the subject's edges read as '\0'); *ep is the end of the set. */
static bool frontier(mstate_t *ms, const char *s, const char *p, const char **ep)
{
    int before, here;

    if (p == ms->pat_end || *p != '[') {
        fail(ms, "missing '[' after '%f' in pattern");
        return false;
    }
    *ep = item_end(ms, p);
    before = s == ms->src ? 0 : (unsigned char)s[-1];
    here = s < ms->src_end ? (unsigned char)*s : 0;
    return !in_set(before, p, *ep - 1) && in_set(here, p, *ep - 1);
}

/* The escape at *p, if it is one that is no single character: "%b", "%f"
 * or a back reference.  Then true, with *s and *p moved past what it
 * matched (*s NULL if it did not match). */
static bool escape_item(mstate_t *ms, const char **s, const char **p)
{
    const char *ep;

    switch ((*p)[1]) {
    case 'b':
        if ((*s = balance(ms, *s, *p + 2)))
            *p += 4;
        return true;
    case 'f':
        if (frontier(ms, *s, *p + 2, &ep))
            *p = ep;
        else
            *s = NULL;
        return true;
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if ((*s = back_ref(ms, *s, (unsigned char)(*p)[1])))
            *p += 2;
        return true;
    default:
        return false;
    }
}

/* The single-character item *p..ep and its quantifier, if any, at *s:
 * true to go on from the moved *s and *p; false when the match ends at
 * *s, NULL if it failed.  '?' and the repeats recurse for the rest. */
static bool quantified_item(mstate_t *ms, const char **s, const char **p, const char *ep)
{
    char q = ep < ms->pat_end ? *ep : '\0';
    const char *r;

    if (!single(ms, *s, *p, ep)) {
        /* zero repetitions allowed: go on after the quantifier */
        if (q == '*' || q == '?' || q == '-') {
            *p = ep + 1;
            return true;
        }
        *s = NULL;
        return false;
    }
    switch (q) {
    case '?':
        if ((r = do_match(ms, *s + 1, ep + 1))) {
            *s = r;
            return false;
        }
        *p = ep + 1;
        return true;
    case '+':
        *s = expand_max(ms, *s + 1, *p, ep);
        return false;
    case '*':
        *s = expand_max(ms, *s, *p, ep);
        return false;
    case '-':
        *s = expand_min(ms, *s, *p, ep);
        return false;
    default:
        (*s)++;
        *p = ep;
        return true;
    }
}

/* Match the pattern from p against the subject from s: the end of the
 * match, or NULL.  Items that cannot need backtracking loop here; the
 * rest recurse, one level of `depth` each. */
static const char *do_match(mstate_t *ms, const char *s, const char *p)
{
    const char *pend = ms->pat_end;

    if (ms->depth-- == 0)
        return fail(ms, "pattern too complex");
    while (p < pend) {
        tick(ms);
        if (*p == '(') {
            if (p + 1 < pend && p[1] == ')')
                s = open_capture(ms, s, p + 2, CAP_POSITION);
            else
                s = open_capture(ms, s, p + 1, CAP_OPEN);
            break;
        }
        if (*p == ')') {
            s = close_capture(ms, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == pend) { /* elsewhere '$' is itself */
            if (s != ms->src_end)
                s = NULL;
            break;
        }
        /* a lone '%' at the end: item_end reports it */
        if (*p == PAT_ESC && p + 1 < pend && escape_item(ms, &s, &p)) {
            if (!s)
                break;
            continue;
        }
        if (!quantified_item(ms, &s, &p, item_end(ms, p)))
            break;
    }
    ms->depth++;
    return s;
}

/* ---- captures to values -------------------------------------------------- */

/* Capture i of the match s..e: sets *at and returns its length, or
 * CAP_POSITION (then *at is the position).  With no captures, capture 0
 * is the whole match. */
static ptrdiff_t capture_get(mstate_t *ms, int i, const char *s, const char *e, const char **at)
{
    if (i >= ms->level) {
        if (i != 0)
            fail_index(ms, i + 1);
        *at = s;
        return e - s;
    }
    if (ms->cap[i].len == CAP_OPEN)
        fail(ms, "unfinished capture");
    *at = ms->cap[i].at;
    return ms->cap[i].len;
}

static void push_capture(mstate_t *ms, int i, const char *s, const char *e)
{
    const char *at;
    ptrdiff_t len = capture_get(ms, i, s, e, &at);

    if (len == CAP_POSITION)
        lua_pushinteger(ms->L, (lua_Integer)(at - ms->src) + 1);
    else
        lua_pushlstring(ms->L, at, (size_t)len);
}

/* Push every capture (the whole match when there are none and s is not
 * NULL); returns how many. */
static int push_captures(mstate_t *ms, const char *s, const char *e)
{
    int i, n = (ms->level == 0 && s) ? 1 : ms->level;

    luaL_checkstack(ms->L, n, "too many captures");
    for (i = 0; i < n; i++)
        push_capture(ms, i, s, e);
    return n;
}

/* ---- find and match ------------------------------------------------------ */

/* The 0-based offset where a search from Lua position pos begins (may be
 * past the end): negative counts from the end, too negative and 0 mean 1. */
static size_t start_offset(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos - 1;
    if (pos == 0 || pos < -(lua_Integer)len)
        return 0;
    return len - (size_t)(-pos);
}

static inline bool is_special(char c)
{
    switch (c) {
    case '^': case '$': case '*': case '+': case '?':
    case '.': case '(': case '[': case '%': case '-':
        return true;
    default:
        return false;
    }
}

/* Whether the pattern p, lp bytes, has no special character: found as
 * plain text. */
static bool no_specials(mstate_t *ms, const char *p, size_t lp)
{
    size_t i = 0;

    while (i < lp && !is_special(p[i]))
        i++;
    charge(ms, i);
    return i == lp;
}

/* string.find of p, lp bytes, as plain text from at: its first and last
 * positions, or fail. */
static int find_plain(mstate_t *ms, const char *at, const char *p, size_t lp)
{
    lua_State *L = ms->L;
    const char *hit = at;

    charge(ms, (size_t)(ms->src_end - at) + lp);
    /* memchr skips to the first candidate much faster than memmem's setup
     * and scan; memmem keeps the rest linear */
    if (lp > 0 && (hit = memchr(hit, p[0], (size_t)(ms->src_end - at))) != NULL)
        hit = memmem(hit, (size_t)(ms->src_end - hit), p, lp);
    report(ms);
    if (!hit) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)(hit - ms->src) + 1);
    lua_pushinteger(L, (lua_Integer)(hit - ms->src) + (lua_Integer)lp);
    return 2;
}

static int find_or_match(lua_State *L, bool find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
    const char *at;
    bool anchored;
    mstate_t ms;

    state_init(&ms, L, lua_touserdata(L, lua_upvalueindex(1)), s, ls, p, lp);
    if (init > ls) {
        report(&ms);
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || no_specials(&ms, p, lp)))
        return find_plain(&ms, s + init, p, lp);
    anchored = lp > 0 && p[0] == '^';
    if (anchored)
        p++;
    at = s + init;
    for (;;) {
        const char *e;

        ms.level = 0;
        tick(&ms);
        e = do_match(&ms, at, p);
        if (e) {
            report(&ms);
            if (!find)
                return push_captures(&ms, at, e);
            lua_pushinteger(L, (lua_Integer)(at - s) + 1);
            lua_pushinteger(L, (lua_Integer)(e - s));
            return push_captures(&ms, NULL, NULL) + 2;
        }
        if (anchored || at >= ms.src_end)
            break;
        at++;
    }
    report(&ms);
    luaL_pushfail(L);
    return 1;
}

static int lp_find(lua_State *L)
{
    return find_or_match(L, true);
}

static int lp_match(lua_State *L)
{
    return find_or_match(L, false);
}

/* ---- gmatch -------------------------------------------------------------- */

/* Upvalues: subject, pattern, gmatch_t, meter box.  '^' anchors nothing
 * here: it is an ordinary byte, as in Lua 5.4.  A state is made afresh for
 * each call, so an error in one call leaves the next one whole. */
static int gmatch_step(lua_State *L)
{
    size_t ls, lp, at;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
    gmatch_t *gm = lua_touserdata(L, lua_upvalueindex(3));
    mstate_t ms;

    state_init(&ms, L, lua_touserdata(L, lua_upvalueindex(4)), s, ls, p, lp);
    for (at = gm->pos; at <= ls; at++) {
        const char *e;

        ms.level = 0;
        tick(&ms);
        e = do_match(&ms, s + at, p);
        /* an empty match where the last one ended is no match (Lua 5.4) */
        if (e && (size_t)(e - s) != gm->last) {
            gm->pos = gm->last = (size_t)(e - s);
            report(&ms);
            return push_captures(&ms, s + at, e);
        }
    }
    report(&ms);
    return 0;
}

static int lp_gmatch(lua_State *L)
{
    size_t ls, lp, init;
    gmatch_t *gm;

    luaL_checklstring(L, 1, &ls);
    luaL_checklstring(L, 2, &lp);
    init = start_offset(luaL_optinteger(L, 3, 1), ls);
    lua_settop(L, 2); /* both strings now: the closure keeps them */
    gm = lua_newuserdatauv(L, sizeof *gm, 0);
    gm->pos = init > ls ? ls + 1 : init;
    gm->last = NO_MATCH;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, gmatch_step, 4);
    return 1;
}

/* ---- gsub ---------------------------------------------------------------- */

/* Append the replacement string (argument 3) for the match s..e. */
static void add_template(mstate_t *ms, luaL_Buffer *b, const char *s, const char *e)
{
    size_t len;
    const char *t = lua_tolstring(ms->L, 3, &len);
    const char *end = t + len, *esc;

    while ((esc = memchr(t, PAT_ESC, (size_t)(end - t))) != NULL) {
        const char *at;
        ptrdiff_t n;
        char c;

        /* an escape may add nothing ("%1" of an empty capture): count it */
        tick(ms);
        luaL_addlstring(b, t, (size_t)(esc - t));
        if (esc + 1 == end) {
            fail(ms, "invalid use of '%' in replacement string");
            return;
        }
        c = esc[1];
        if (c == PAT_ESC) {
            luaL_addchar(b, PAT_ESC);
        } else if (c == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)c)) {
            n = capture_get(ms, c - '1', s, e, &at);
            if (n == CAP_POSITION) {
                lua_pushinteger(ms->L, (lua_Integer)(at - ms->src) + 1);
                luaL_addvalue(b);
            } else {
                luaL_addlstring(b, at, (size_t)n);
            }
        } else {
            fail(ms, "invalid use of '%' in replacement string");
            return;
        }
        t = esc + 2;
    }
    luaL_addlstring(b, t, (size_t)(end - t));
}

/* Append the replacement for the match s..e; false when the match is kept
 * as it was (the function or table gave false or nil). */
static bool add_value(mstate_t *ms, luaL_Buffer *b, const char *s, const char *e, int tr)
{
    lua_State *L = ms->L;

    if (tr == LUA_TFUNCTION) {
        int n;

        lua_pushvalue(L, 3);
        n = push_captures(ms, s, e);
        lua_call(L, n, 1);
    } else if (tr == LUA_TTABLE) {
        push_capture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(ms, b, s, e);
        return true;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return false;
    }
    if (!lua_isstring(L, -1)) {
        report(ms);
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    }
    luaL_addvalue(b);
    return true;
}

static int lp_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *src = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int tr = lua_type(L, 3);
    lua_Integer max_n = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    bool anchored = lp > 0 && p[0] == '^';
    bool changed = false;
    lua_Integer n = 0;
    const char *at = src, *last = NULL;
    mstate_t ms;
    luaL_Buffer b;

    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION ||
                            tr == LUA_TTABLE,
                     3, "string/function/table");
    luaL_buffinit(L, &b);
    if (anchored) {
        p++;
        lp--;
    }
    state_init(&ms, L, lua_touserdata(L, lua_upvalueindex(1)), src, ls, p, lp);
    while (n < max_n) {
        const char *e;

        ms.level = 0;
        tick(&ms);
        e = do_match(&ms, at, p);
        if (e && e != last) {
            n++;
            if (add_value(&ms, &b, at, e, tr))
                changed = true;
            at = last = e;
        } else if (at < ms.src_end) {
            luaL_addchar(&b, *at++);
        } else {
            break;
        }
        if (anchored)
            break;
    }
    report(&ms);
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, at, (size_t)(ms.src_end - at));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

void ctk_lpat_install(lua_State *L, int idx, ctk_lpat_meter_fn meter)
{
    static const luaL_Reg fns[] = {
        { "find", lp_find }, { "match", lp_match }, { "gmatch", lp_gmatch }, { "gsub", lp_gsub },
    };
    meter_box_t *box;
    size_t i;

    idx = lua_absindex(L, idx);
    box = lua_newuserdatauv(L, sizeof *box, 0);
    box->fn = meter;
    for (i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        lua_pushvalue(L, -1);
        lua_pushcclosure(L, fns[i].func, 1);
        lua_setfield(L, idx, fns[i].name);
    }
    lua_pop(L, 1);
}
