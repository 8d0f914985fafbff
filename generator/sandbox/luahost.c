/* luahost.c - the one owner of lua_State: a sandboxed, budgeted Lua 5.4.
 * SPDX-License-Identifier: MIT
 *
 * Chunks run with a private _ENV built from a whitelist; the data tree is
 * exposed through read-only proxy tables.  Two limits hold whatever the
 * chunk does: bytes (the allocator refuses past mem_limit; emitted output
 * and what host functions keep count too) and budget steps (past
 * instr_limit a count hook or a metered call raises).  A step is a VM
 * instruction, or its worth of work done in C: every library function the
 * chunk can reach is metered by what it is given and what it does
 * (lpattern.c counts each matching step), and every 32 bytes allocated
 * cost a step.  What no meter sees (a comparison of two long strings is one
 * instruction) is caught by a CPU time limit, checked at each hook.  A
 * signal the command caught (SIGINT and friends, proc.h) is seen at the
 * same points.  Once a limit is hit the state is poisoned: the sandbox's
 * pcall re-raises, so a chunk cannot swallow the error and carry on.  Errors raised by host
 * functions (ctk_lua_run) are fatal in the same way.
 */
#include <ctkconf.h>

#include "luahost.h"
#include "lpattern.h"
#include "proc.h"
#include "quote.h"
#include "util.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if LUA_VERSION_NUM != 504
#error "ctkgen embeds Lua 5.4 exactly"
#endif

#define DEFAULT_MEM_LIMIT ((size_t)64 << 20)
#define DEFAULT_INSTR_LIMIT 50000000UL
#define DEFAULT_TIME_LIMIT_MS 5000UL
/* Instructions between hooks: the most a time limit can be overrun by is
 * this many of the costliest single instructions. */
#define HOOK_STEP 256
#define BYTES_PER_STEP 32    /* allocated, or given to a host function */
#define HOST_KEEP_MAX 64     /* what a host function may keep per call, beyond 3x its arguments */

/* ---- value tree ------------------------------------------------------------ */
typedef enum { LV_NIL, LV_STR, LV_BOOL, LV_INT, LV_LIST, LV_MAP } lv_kind_t;

struct ctk_lval {
    lv_kind_t kind;
    char *str;          /* LV_STR */
    long long num;      /* LV_INT, LV_BOOL */
    ctk_lval_t **items; /* LV_LIST, LV_MAP values */
    char **keys;        /* LV_MAP */
    size_t n, cap;
};

static ctk_lval_t *lv_new(lv_kind_t kind)
{
    ctk_lval_t *v = calloc(1, sizeof *v);

    if (v)
        v->kind = kind;
    return v;
}

/* The node and its copy of s in one block (str points behind the node):
 * half the allocations of a data tree's strings. */
ctk_lval_t *ctk_lval_str(const char *s)
{
    ctk_lval_t *v;
    size_t n;

    if (!s)
        return lv_new(LV_NIL);
    n = strlen(s);
    if (!(v = malloc(sizeof *v + n + 1)))
        return NULL;
    memset(v, 0, sizeof *v);
    v->kind = LV_STR;
    v->str = (char *)(v + 1);
    memcpy(v->str, s, n + 1);
    return v;
}

ctk_lval_t *ctk_lval_bool(bool b)
{
    ctk_lval_t *v = lv_new(LV_BOOL);

    if (v)
        v->num = b;
    return v;
}

ctk_lval_t *ctk_lval_int(long long i)
{
    ctk_lval_t *v = lv_new(LV_INT);

    if (v)
        v->num = i;
    return v;
}

ctk_lval_t *ctk_lval_list(void)
{
    return lv_new(LV_LIST);
}

ctk_lval_t *ctk_lval_map(void)
{
    return lv_new(LV_MAP);
}

/* ---- map keys: each spelling kept once -------------------------------------
 * A data tree's maps use a few dozen field names over and over (a
 * thousand toolkits, a dozen trees each): the first KEYS_MAX spellings
 * are kept in one static block for the life of the process and shared,
 * any further one is copied for its map as before.  A key is the block's
 * when it lies inside it. */
#define KEYS_MAX 256
#define KEYS_BYTES 8192
static char keys_block[KEYS_BYTES];
static size_t keys_used;
static const char *keys_at[KEYS_MAX * 2]; /* open addressing, by FNV-1a */
static size_t keys_n;
static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;

static bool key_shared(const char *k)
{
    return k >= keys_block && k < keys_block + KEYS_BYTES;
}

/* key's shared spelling, or NULL when the block is full */
static const char *key_intern(const char *key)
{
    size_t len = strlen(key), i = (size_t)ctk_hash_mix(CTK_HASH_INIT, key, len) % (KEYS_MAX * 2);
    const char *hit = NULL;

    pthread_mutex_lock(&keys_lock);
    while (keys_at[i] && strcmp(keys_at[i], key) != 0)
        i = (i + 1) % (KEYS_MAX * 2);
    if (keys_at[i]) {
        hit = keys_at[i];
    } else if (keys_n < KEYS_MAX && keys_used + len + 1 <= KEYS_BYTES) {
        memcpy(keys_block + keys_used, key, len + 1);
        hit = keys_at[i] = keys_block + keys_used;
        keys_used += len + 1;
        keys_n++;
    }
    pthread_mutex_unlock(&keys_lock);
    return hit;
}

static bool lv_add(ctk_lval_t *c, const char *key, ctk_lval_t *v)
{
    char *k = NULL;

    if (!c || !v)
        goto fail;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        ctk_lval_t **items = realloc(c->items, cap * sizeof *items);

        if (!items)
            goto fail;
        c->items = items;
        if (c->kind == LV_MAP) {
            char **keys = realloc(c->keys, cap * sizeof *keys);

            if (!keys)
                goto fail;
            c->keys = keys;
        }
        c->cap = cap;
    }
    if (c->kind == LV_MAP) {
        const char *shared = key_intern(key);

        if (!shared && !(k = strdup(key)))
            goto fail;
        c->keys[c->n] = shared ? (char *)shared : k;
    }
    c->items[c->n++] = v;
    return true;
fail:
    ctk_lval_free(v);
    return false;
}

bool ctk_lval_push(ctk_lval_t *list, ctk_lval_t *v)
{
    if (list && list->kind != LV_LIST) {
        ctk_lval_free(v);
        return false;
    }
    return lv_add(list, NULL, v);
}

bool ctk_lval_set(ctk_lval_t *map, const char *key, ctk_lval_t *v)
{
    if (map && map->kind != LV_MAP) {
        ctk_lval_free(v);
        return false;
    }
    return lv_add(map, key, v);
}

void ctk_lval_free(ctk_lval_t *v)
{
    size_t i;

    if (!v)
        return;
    for (i = 0; i < v->n; i++) {
        ctk_lval_free(v->items[i]);
        if (v->keys && !key_shared(v->keys[i]))
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v); /* and its string, in the same block */
}

uint64_t ctk_lval_hash(uint64_t h, const ctk_lval_t *v)
{
    uint64_t head[2];
    size_t i;

    head[0] = v ? (uint64_t)v->kind : (uint64_t)LV_NIL;
    head[1] = 0;
    if (!v || v->kind == LV_NIL)
        return ctk_hash_mix(h, head, sizeof head);
    switch (v->kind) {
    case LV_STR:
        head[1] = strlen(v->str);
        return ctk_hash_mix(ctk_hash_mix(h, head, sizeof head), v->str, (size_t)head[1]);
    case LV_BOOL:
    case LV_INT:
        head[1] = (uint64_t)v->num;
        return ctk_hash_mix(h, head, sizeof head);
    default: /* LV_LIST, LV_MAP */
        head[1] = v->n;
        h = ctk_hash_mix(h, head, sizeof head);
        for (i = 0; i < v->n; i++) {
            if (v->keys)
                h = ctk_hash_mix(h, v->keys[i], strlen(v->keys[i]));
            h = ctk_lval_hash(h, v->items[i]);
        }
        return h;
    }
}

/* ---- the host state ------------------------------------------------------------ */
/* renderer_begin() resets it field by field: a new field is reset there too
 * (pool aside: it lives as long as the renderer). */
typedef struct {
    size_t used, limit;
    unsigned long instr, instr_limit;
    unsigned long time_limit_ms;
    struct timespec wall0, cpu0; /* when the run started */
    bool poisoned;       /* a limit was hit, memory ran out, or a signal came */
    const char *poison;  /* why */
    int interrupted;     /* the signal caught (proc.h) that stopped the run: CTK_E_ENV */
    bool nomem;          /* the system allocator failed under the cap: CTK_E_NOMEM */
    ctk_buf_t out;       /* what emit() produced */
    ctk_error_t qerr;    /* a quoting failure, reported as itself */
    ctk_error_t cberr;   /* the first error a host function raised; fatal */
    int where_line;      /* line of the innermost Lua function when an error was raised */
    size_t kept;         /* bytes keep_bytes() counted in used: given back after a render */
    void *ud;            /* passed to host functions */
    struct pool *pool;   /* a renderer's small blocks (pool_t); NULL: malloc's */
} host_t;

/* The host itself is out of memory: poison the state like a limit, but
 * report CTK_E_NOMEM.  Lua answers a failed allocation with an emergency
 * collection and a second try, and lets some failures pass unnoticed; the
 * run fails all the same, since its output may lack what was lost. */
static void host_nomem(host_t *h)
{
    h->nomem = true;
    h->poisoned = true;
    h->poison = "out of memory";
}

/* Two ways to refuse: past the cap (the chunk's fault, CTK_E_LIMIT) or
 * because realloc() failed (the host's, CTK_E_NOMEM).  After the second,
 * no block grows again: the run is failing, and should do so at once.
 * Growth also costs budget steps: copying and collecting scale with it. */
static void charge_steps(host_t *h, unsigned long steps);

/* ---- a renderer's small blocks ----------------------------------------------
 * A renderer's state makes and drops thousands of small objects a toolkit
 * (tables, strings, closures); its host keeps the blocks it is given back,
 * by size class (16 bytes each, up to POOL_MAX), and hands them out again
 * instead of asking malloc.  A block in class c holds at least c * 16
 * bytes.  Only the bytes Lua holds count against the cap (host_alloc()),
 * as before; the blocks kept are freed when the state is closed
 * (pool_drain()). */
#define POOL_MAX 256
#define POOL_CLASSES (POOL_MAX / 16 + 1)
typedef struct pool_block {
    struct pool_block *next;
} pool_block_t;
typedef struct pool {
    pool_block_t *free[POOL_CLASSES];
} pool_t;

static size_t pool_class(size_t n)
{
    return n <= POOL_MAX ? (n + 15) / 16 : 0;
}

static void pool_put(pool_t *pool, void *ptr, size_t size)
{
    size_t c = pool_class(size);

    if (!c) {
        free(ptr);
        return;
    }
    ((pool_block_t *)ptr)->next = pool->free[c];
    pool->free[c] = ptr;
}

/* realloc() through the pool: NULL when memory ran out (ptr untouched). */
static void *pool_realloc(pool_t *pool, void *ptr, size_t old, size_t nsize)
{
    size_t oc = ptr ? pool_class(old) : 0, nc = pool_class(nsize);
    void *q;

    if (ptr && oc && (nsize <= old || nc == oc)) /* a pooled block holds its class */
        return ptr;
    if (!nc) {
        if (ptr && !oc)
            return realloc(ptr, nsize);
        q = malloc(nsize);
    } else if (ptr && !oc && nsize <= old) {
        return realloc(ptr, nc * 16); /* shrinking: at least its class */
    } else if (pool->free[nc]) {
        q = pool->free[nc];
        pool->free[nc] = pool->free[nc]->next;
    } else {
        q = malloc(nc * 16);
    }
    if (q && ptr) {
        memcpy(q, ptr, old < nsize ? old : nsize);
        pool_put(pool, ptr, old);
    }
    return q;
}

/* Free every block kept. */
static void pool_drain(pool_t *pool)
{
    size_t c;

    for (c = 0; c < POOL_CLASSES; c++) {
        while (pool->free[c]) {
            pool_block_t *b = pool->free[c];

            pool->free[c] = b->next;
            free(b);
        }
    }
}

static void *host_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    host_t *h = ud;
    size_t old = ptr ? osize : 0;
    void *p;

    if (nsize == 0) {
        if (h->pool && ptr)
            pool_put(h->pool, ptr, old);
        else
            free(ptr);
        h->used -= old;
        return NULL;
    }
    if (nsize > old && h->nomem)
        return NULL;
    if (nsize > old && nsize - old > h->limit - h->used) {
        h->poisoned = true;
        h->poison = "memory limit exhausted";
        return NULL;
    }
    p = h->pool ? pool_realloc(h->pool, ptr, old, nsize) : realloc(ptr, nsize);
    if (!p) {
        host_nomem(h);
        return NULL;
    }
    h->used = h->used - old + nsize;
    if (nsize > old)
        charge_steps(h, (nsize - old) / BYTES_PER_STEP);
    return p;
}

/* Add steps to the budget; past it the state is poisoned (raised by the
 * caller, or at the next hook: the allocator must not raise). */
static void charge_steps(host_t *h, unsigned long steps)
{
    int sig;

    h->instr = steps > ULONG_MAX - h->instr ? ULONG_MAX : h->instr + steps;
    if (h->instr > h->instr_limit && !h->poisoned) {
        h->poisoned = true;
        h->poison = "instruction budget exhausted";
    }
    /* SIGINT, SIGTERM or SIGHUP caught by the command (proc.h): the run
     * stops at the next hook or metered call, as at a limit, and is told
     * as an interrupt */
    if (!h->poisoned && (sig = ctk_proc_interrupted()) != 0) {
        h->poisoned = true;
        h->poison = "interrupted";
        h->interrupted = sig;
    }
}

static void set_interrupted(ctk_error_t *err, const char *chunkname, int sig)
{
    char name[32];

    ctk_error_set(err, CTK_E_ENV, chunkname, 0, 0, "interrupted by %s", ctk_proc_signal_name(sig, name, sizeof name));
}

/* Count n bytes the run keeps outside Lua's allocator (output, host
 * state) against the memory cap. */
static void keep_bytes(host_t *h, size_t n)
{
    if (n > h->limit - h->used) {
        if (!h->poisoned) {
            h->poisoned = true;
            h->poison = "memory limit exhausted";
        }
        return;
    }
    h->used += n;
    h->kept += n;
}

static unsigned long ms_since(const struct timespec *t0, const struct timespec *t1)
{
    long long ms = (long long)(t1->tv_sec - t0->tv_sec) * 1000 + (t1->tv_nsec - t0->tv_nsec) / 1000000;

    return ms < 0 ? 0 : (unsigned long)ms;
}

static void start_clock(host_t *h)
{
    clock_gettime(CLOCK_MONOTONIC, &h->wall0);
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &h->cpu0) != 0)
        h->cpu0 = h->wall0;
}

/* Poison the state once the run has had its CPU time.  The wall clock is
 * read first (cheap); only past the limit is the CPU time asked, so a
 * loaded machine slows a chunk down but does not fail it. */
static void check_time(host_t *h)
{
    struct timespec now;

    if (h->poisoned || !h->time_limit_ms)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ms_since(&h->wall0, &now) < h->time_limit_ms)
        return;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 && ms_since(&h->cpu0, &now) < h->time_limit_ms)
        return;
    h->poisoned = true;
    h->poison = "time limit exhausted";
}

static host_t *get_host(lua_State *L)
{
    void *ud = NULL;

    lua_getallocf(L, &ud);
    return ud;
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
    host_t *h = get_host(L);

    (void)ar;
    charge_steps(h, HOOK_STEP);
    check_time(h);
    if (h->poisoned) {
        lua_Debug d;

        /* level 0 is the function the hook interrupted: name its line */
        if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
            luaL_error(L, "%s:%d: %s", d.short_src, d.currentline, h->poison);
        luaL_error(L, "%s", h->poison);
    }
}

/* Charge steps from inside a C function the chunk called; raises once the
 * state is poisoned, naming the chunk's line that made the call. */
static void charge(lua_State *L, unsigned long steps)
{
    host_t *h = get_host(L);

    charge_steps(h, steps);
    if (h->poisoned)
        luaL_error(L, "%s", h->poison);
}

/* ---- metered library functions ------------------------------------------- */
/* What a library function costs, judged from its arguments before it runs
 * (its results are charged after).  Each kind bounds work the function
 * does without allocating, which the allocator's charge cannot see. */
typedef enum {
    COST_ARGS,   /* the count of its arguments and results */
    COST_READS,  /* scans its string arguments: their bytes too */
    COST_REP,    /* string.rep: the empty string repeated is answered at once */
    COST_INSERT, /* table.insert(t, pos, v) shifts #t - pos elements */
    COST_REMOVE, /* table.remove(t, pos) likewise */
    COST_MOVE,   /* table.move(a, f, e, t): e - f + 1 elements */
    COST_SORT,   /* n log n comparisons */
    COST_CONCAT, /* table.concat(t, sep, i, j): j - i + 1 elements */
    COST_UNPACK, /* table.unpack(t, i, j): j - i + 1 values */
} cost_kind_t;

/* Lua's own stack cannot hold more values than this: unpack refuses more */
#define MAX_RESULTS 1000000UL
/* Steps per table element a function reads or writes (a lua_geti and a
 * lua_seti cost a few instructions' time), and per comparison in a sort. */
#define ELEMENT_STEPS 6UL
/* Bytes per step that a function scanning a string (decoding, converting)
 * reads: slower per byte than a copy. */
#define READ_BYTES_PER_STEP 2
#define COMPARE_STEPS 8UL

static unsigned long bytes_steps(size_t n)
{
    return (unsigned long)(n / BYTES_PER_STEP);
}

/* Bytes in the string arguments. */
static size_t arg_bytes(lua_State *L)
{
    int i, n = lua_gettop(L);
    size_t bytes = 0;

    for (i = 1; i <= n; i++)
        if (lua_type(L, i) == LUA_TSTRING)
            bytes += lua_rawlen(L, i);
    return bytes;
}

/* The integer at idx, or dflt where it is absent; false where it is not an
 * integer (the function itself will refuse it). */
static bool opt_int(lua_State *L, int idx, lua_Integer dflt, lua_Integer *out)
{
    int isnum = 0;

    if (lua_isnoneornil(L, idx)) {
        *out = dflt;
        return true;
    }
    *out = lua_tointegerx(L, idx, &isnum);
    return isnum != 0;
}

/* Elements from i to j, as a step count (0 when empty or invalid). */
static unsigned long span(lua_Integer i, lua_Integer j)
{
    if (j < i)
        return 0;
    return (unsigned long)((lua_Unsigned)j - (lua_Unsigned)i) + 1;
}

static lua_Integer raw_len(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, idx) : 0;
}

static unsigned long call_cost(lua_State *L, cost_kind_t kind)
{
    lua_Integer n = raw_len(L, 1), a, b;
    unsigned long steps = 1 + (unsigned long)lua_gettop(L) / 16, k;

    switch (kind) {
    case COST_ARGS:
    case COST_REP:
        break;
    case COST_READS:
        steps += (unsigned long)(arg_bytes(L) / READ_BYTES_PER_STEP);
        break;
    case COST_INSERT:
    case COST_REMOVE:
        if (lua_gettop(L) >= (kind == COST_INSERT ? 3 : 2) && opt_int(L, 2, n, &a))
            steps += ELEMENT_STEPS * span(a, n);
        break;
    case COST_MOVE:
        /* a range Lua refuses ("too many elements to move") costs nothing */
        if (opt_int(L, 2, 0, &a) && opt_int(L, 3, 0, &b) && (a > 0 || b < LUA_MAXINTEGER + a))
            steps += ELEMENT_STEPS * span(a, b);
        break;
    case COST_SORT:
        for (k = (unsigned long)n; k > 1; k >>= 1)
            steps += COMPARE_STEPS * (unsigned long)n;
        break;
    case COST_CONCAT:
        /* stops at the first element that is not a string */
        if (opt_int(L, 3, 1, &a) && opt_int(L, 4, n, &b))
            steps += ELEMENT_STEPS * span(a, b < n + 1 ? b : n + 1);
        break;
    case COST_UNPACK:
        if (opt_int(L, 2, 1, &a) && opt_int(L, 3, n, &b)) {
            k = span(a, b);
            steps += ELEMENT_STEPS * (k < MAX_RESULTS ? k : MAX_RESULTS);
        }
        break;
    }
    return steps;
}

/* Every metered function: upvalue 1 is the library's function, called in
 * this frame (so its errors name it as before), upvalue 2 the cost kind. */
static int metered(lua_State *L)
{
    lua_CFunction fn = lua_tocfunction(L, lua_upvalueindex(1));
    cost_kind_t kind = (cost_kind_t)lua_tointeger(L, lua_upvalueindex(2));
    int nres;

    charge(L, call_cost(L, kind));
    if (kind == COST_REP) {
        /* Lua loops n times even when each copy is empty */
        size_t l, lsep = 0;
        lua_Integer n;

        luaL_checklstring(L, 1, &l);
        n = luaL_checkinteger(L, 2);
        luaL_optlstring(L, 3, "", &lsep);
        if (n > 0 && l == 0 && lsep == 0) {
            lua_pushliteral(L, "");
            return 1;
        }
    }
    nres = fn(L);
    charge(L, (unsigned long)nres / 16);
    return nres;
}

static const struct {
    const char *lib, *name;
    cost_kind_t kind;
} metered_fns[] = {
    { "string", "rep", COST_REP },        { "table", "insert", COST_INSERT },
    { "table", "remove", COST_REMOVE },   { "table", "move", COST_MOVE },
    { "table", "sort", COST_SORT },       { "table", "concat", COST_CONCAT },
    { "table", "unpack", COST_UNPACK },   { "_G", "select", COST_ARGS },
    { "_G", "tonumber", COST_READS },     { "_G", "tostring", COST_ARGS },
    { "_G", "rawequal", COST_READS },     { "string", "upper", COST_READS },
    { "string", "lower", COST_READS },    { "string", "reverse", COST_READS },
    { "string", "format", COST_READS },   { "string", "pack", COST_READS },
    { "string", "unpack", COST_READS },   { "utf8", "len", COST_READS },
    { "utf8", "codepoint", COST_READS },  { "utf8", "offset", COST_READS },
    { "utf8", "codes", COST_READS },
};

static void push_metered(lua_State *L, lua_CFunction fn, cost_kind_t kind)
{
    lua_pushcfunction(L, fn);
    lua_pushinteger(L, kind);
    lua_pushcclosure(L, metered, 2);
}

/* The cost kind of lib.name: listed in metered_fns, else COST_ARGS. */
static cost_kind_t kind_of(const char *lib, const char *name)
{
    size_t i;

    for (i = 0; i < sizeof metered_fns / sizeof metered_fns[0]; i++)
        if (strcmp(metered_fns[i].lib, lib) == 0 && strcmp(metered_fns[i].name, name) == 0)
            return metered_fns[i].kind;
    return COST_ARGS;
}

/* Replace field name of the table at idx by its metered closure, if it is
 * a C function. */
static void meter_field(lua_State *L, int idx, const char *lib, const char *name)
{
    idx = lua_absindex(L, idx);
    if (lua_getfield(L, idx, name) != LUA_TFUNCTION || !lua_iscfunction(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushinteger(L, kind_of(lib, name));
    lua_pushcclosure(L, metered, 2);
    lua_setfield(L, idx, name);
}

/* The pattern functions' meter: a matching step is a budget step. */
static void pattern_meter(lua_State *L, unsigned long steps)
{
    charge(L, steps);
}

/* Meter, in the libraries themselves, every function the sandbox copies:
 * the string metatable reaches the string library directly.  Functions
 * not listed in metered_fns are metered by the count of their arguments
 * and results (what they make is charged by the allocator); find, match,
 * gmatch and gsub are then replaced by lpattern.c's. */
static void meter_libs(lua_State *L)
{
    static const char *const whole[] = { "string", "table", "utf8" };
    size_t i;

    for (i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        lua_getglobal(L, whole[i]);
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            /* setting a field that exists does not disturb lua_next */
            if (lua_type(L, -1) == LUA_TSTRING)
                meter_field(L, -2, whole[i], lua_tostring(L, -1));
        }
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);
    for (i = 0; i < sizeof metered_fns / sizeof metered_fns[0]; i++)
        if (strcmp(metered_fns[i].lib, "_G") == 0)
            meter_field(L, -1, "_G", metered_fns[i].name);
    lua_getfield(L, -1, "string");
    ctk_lpat_install(L, -1, pattern_meter);
    lua_pop(L, 2);
}

/* pcall that cannot catch a limit: the sandbox's only protected call. */
static int sb_pcall(lua_State *L)
{
    host_t *h = get_host(L);
    int status;

    luaL_checkany(L, 1);
    status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    if (h->poisoned)
        return luaL_error(L, "%s", h->poison);
    if (status != LUA_OK && ctk_error_is_set(&h->cberr))
        return lua_error(L); /* re-raise the host function's error */
    lua_pushboolean(L, status == LUA_OK);
    if (status != LUA_OK) {
        lua_insert(L, -2);
        return 2;
    }
    lua_insert(L, 1);
    return lua_gettop(L);
}

static int sb_emit(lua_State *L)
{
    host_t *h = get_host(L);
    int i, n = lua_gettop(L);

    for (i = 1; i <= n; i++) {
        size_t len;
        const char *s;

        /* NULL for all but strings and numbers (a number becomes its text) */
        if (!(s = lua_tolstring(L, i, &len)))
            return luaL_error(L, "emit: argument %d is a %s, not a string", i, luaL_typename(L, i));
        keep_bytes(h, len);
        if (h->poisoned)
            return luaL_error(L, "%s", h->poison);
        if (!ctk_buf_append(&h->out, s, len)) {
            host_nomem(h);
            return luaL_error(L, "emit: out of memory");
        }
    }
    return 0;
}

static int sb_emitln(lua_State *L)
{
    host_t *h = get_host(L);

    sb_emit(L);
    if (!ctk_buf_append(&h->out, "\n", 1)) {
        host_nomem(h);
        return luaL_error(L, "emit: out of memory");
    }
    return 0;
}

/* Text for a comment line: control bytes and backslashes (a trailing one
 * continues a Tcl comment onto the next line) become '?'. */
static int sb_comment(lua_State *L)
{
    size_t len, i;
    const char *s = luaL_checklstring(L, 1, &len);
    luaL_Buffer b;

    luaL_buffinit(L, &b);
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        luaL_addchar(&b, (c < 0x20 || c == 0x7f || c == '\\') ? '?' : (char)c);
    }
    luaL_pushresult(&b);
    return 1;
}

typedef struct {
    const char *s;
    size_t len;
} owned_str_t;

static int push_str_p(lua_State *L)
{
    const owned_str_t *o = lua_touserdata(L, 1);

    lua_pushlstring(L, o->s, o->len);
    return 1;
}

/* Push s, a malloc'ed string, and free it.  Pushing may raise (memory):
 * it is done protected, so that s is freed before the error goes on. */
static int push_owned(lua_State *L, char *s, size_t len)
{
    owned_str_t o = { s, len };
    int status;

    lua_pushcfunction(L, push_str_p);
    lua_pushlightuserdata(L, &o);
    status = lua_pcall(L, 1, 1, 0);
    free(s);
    if (status != LUA_OK)
        return lua_error(L);
    return 1;
}

/* Quoting writes into a buffer on the C stack when the text fits (pushing
 * it may raise, and there is nothing to free), else into one of its own. */
#define QUOTE_SMALL 1024

/* Charged as a metered function of COST_READS is (metered()), by itself:
 * the quoters are the calls a template makes most. */
static int do_quote(lua_State *L, ctk_quote_into_t q)
{
    host_t *h;
    const char *s;

    charge(L, call_cost(L, COST_READS));
    h = get_host(L);
    s = luaL_checkstring(L, 1);
    const char *what = luaL_optstring(L, 2, NULL);
    char small[QUOTE_SMALL], *big;
    ctk_error_t e;
    size_t need = 0;
    bool ok;

    ctk_error_init(&e);
    if (strlen(s) != lua_rawlen(L, 1)) {
        ctk_error_set(&e, CTK_E_QUOTE, NULL, 0, 0, "%s: embedded NUL byte",
                      what ? what : "value");
        ok = false;
    } else {
        ok = q(s, what, small, sizeof small, &need, &e);
    }
    if (!ok) {
        if (!ctk_error_is_set(&h->qerr))
            h->qerr = e;
        return luaL_error(L, "%s", e.text);
    }
    if (need < sizeof small) {
        lua_pushlstring(L, small, need);
        charge(L, 0); /* what metered() asks after a call: a limit met meanwhile */
        return 1;
    }
    if (!(big = malloc(need + 1))) {
        host_nomem(h);
        ctk_error_nomem(&e);
        if (!ctk_error_is_set(&h->qerr))
            h->qerr = e;
        return luaL_error(L, "%s", e.text);
    }
    q(s, what, big, need + 1, &need, &e);
    push_owned(L, big, need);
    charge(L, 0);
    return 1;
}

static int sb_lua_q(lua_State *L) { return do_quote(L, ctk_quote_lua_into); }
static int sb_tcl_q(lua_State *L) { return do_quote(L, ctk_quote_tcl_into); }
static int sb_pc_q(lua_State *L) { return do_quote(L, ctk_quote_pc_into); }

static int ro_newindex(lua_State *L)
{
    return luaL_error(L, "attempt to modify read-only table (key '%s')",
                      lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?");
}

static int ro_len(lua_State *L)
{
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "__index");
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

static int ro_pairs(lua_State *L)
{
    lua_getglobal(L, "next"); /* the real next, from the host's globals */
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "__index");
    lua_remove(L, -2);
    lua_pushnil(L);
    return 3;
}

/* The proxies (each with its metatable) of the data a renderer pushed
 * last, kept to be used again for the next data: a proxy of data no
 * render can reach any more is pointed at the new data's table instead of
 * making two tables and setting five fields.  No earlier data is reachable
 * once it is replaced: a render keeps nothing (its environment, its
 * libraries' copies and whatever it made are its own), the data is
 * read-only, and the sandbox reaches no table that outlives the render. */
typedef struct {
    int idx;          /* the pool's stack index: a list of proxies */
    lua_Integer next; /* how many of them the data pushed so far uses */
} proxy_pool_t;

/* Replace the table on top of the stack by a read-only proxy of it (from
 * pool, when there is one and it has one left). */
static void make_readonly(lua_State *L, proxy_pool_t *pool)
{
    if (pool) {
        if (lua_rawgeti(L, pool->idx, pool->next + 1) == LUA_TTABLE &&
            lua_getmetatable(L, -1)) { /* real proxy mt */
            pool->next++;
            lua_rotate(L, -3, -1);      /* proxy mt real */
            lua_setfield(L, -2, "__index");
            lua_pop(L, 1);              /* proxy */
            return;
        }
        lua_pop(L, 1);
    }
    lua_newtable(L);              /* real proxy */
    lua_insert(L, -2);            /* proxy real */
    lua_createtable(L, 0, 5);     /* proxy real mt */
    lua_insert(L, -2);            /* proxy mt real */
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ro_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, ro_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, ro_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    if (pool) {
        lua_pushvalue(L, -1);
        lua_rawseti(L, pool->idx, ++pool->next);
    }
}

/* Push the value tree as Lua values (read-only tables).  Runs under
 * lua_pcall via push_data_p, so memory errors unwind cleanly. */
static void push_lval(lua_State *L, const ctk_lval_t *v, int depth, proxy_pool_t *pool)
{
    size_t i;

    luaL_checkstack(L, 8, "data too deep");
    if (depth > 64)
        luaL_error(L, "data tree too deep");
    switch (v->kind) {
    case LV_NIL: lua_pushnil(L); return;
    case LV_STR: lua_pushstring(L, v->str); return;
    case LV_BOOL: lua_pushboolean(L, (int)v->num); return;
    case LV_INT: lua_pushinteger(L, (lua_Integer)v->num); return;
    case LV_LIST:
        lua_createtable(L, (int)v->n, 0);
        for (i = 0; i < v->n; i++) {
            push_lval(L, v->items[i], depth + 1, pool);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    case LV_MAP:
        lua_createtable(L, 0, (int)v->n);
        for (i = 0; i < v->n; i++) {
            push_lval(L, v->items[i], depth + 1, pool);
            lua_setfield(L, -2, v->keys[i]);
        }
        break;
    }
    make_readonly(L, pool);
}

static int strict_index(lua_State *L)
{
    return luaL_error(L, "undefined global '%s'",
                      lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?");
}

static int strict_newindex(lua_State *L)
{
    return luaL_error(L, "assignment to global '%s' (use 'local')",
                      lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "?");
}

/* Push a copy of the library table global `name` (a fresh table, so the
 * chunk cannot reach the shared one), without the names in drop. */
static void push_lib_copy(lua_State *L, const char *name, const char *const *drop)
{
    lua_getglobal(L, name);
    lua_createtable(L, 0, 32);
    lua_pushnil(L);
    while (lua_next(L, -3)) {
        const char *k = lua_tostring(L, -2);
        bool skip = false;
        const char *const *d;

        for (d = drop; d && *d; d++)
            if (k && strcmp(k, *d) == 0)
                skip = true;
        if (skip) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_remove(L, -2);
}

/* env[name] = a copy of the library table (push_lib_copy). */
static void copy_lib(lua_State *L, const char *name, const char *const *drop)
{
    push_lib_copy(L, name, drop);
    lua_setfield(L, -2, name);
}

/* The globals a chunk sees besides the libraries, and what is left out of
 * those. */
static const char *const base_ok[] = {
    "assert", "error", "ipairs", "next", "pairs", "select", "tonumber",
    "tostring", "type", "rawequal", "rawlen", "rawget", "_VERSION", NULL
};
static const char *const string_drop[] = { "dump", NULL };
static const char *const sandbox_libs[] = { "string", "table", "math", "utf8", NULL };

static void push_template_helpers(lua_State *L);
static void push_host_fns(lua_State *L, const ctk_lua_reg_t *fns);

/* Build the sandbox environment; leaves it on the stack.  template adds
 * the rendering helpers; allow_globals lets the chunk assign globals. */
static void push_env(lua_State *L, bool template, bool allow_globals)
{
    const char *const *n;

    lua_newtable(L);
    for (n = base_ok; *n; n++) {
        lua_getglobal(L, *n);
        lua_setfield(L, -2, *n);
    }
    for (n = sandbox_libs; *n; n++)
        copy_lib(L, *n, strcmp(*n, "string") == 0 ? string_drop : NULL);
    lua_pushcfunction(L, sb_pcall);
    lua_setfield(L, -2, "pcall");
    if (template)
        push_template_helpers(L);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, strict_index);
    lua_setfield(L, -2, "__index");
    if (!allow_globals) {
        lua_pushcfunction(L, strict_newindex);
        lua_setfield(L, -2, "__newindex");
    }
    lua_setmetatable(L, -2);
}

static void push_template_helpers(lua_State *L)
{
    lua_pushcfunction(L, sb_emit);
    lua_setfield(L, -2, "emit");
    lua_pushcfunction(L, sb_emitln);
    lua_setfield(L, -2, "emitln");
    /* the quoting helpers scan their argument: metered like string.upper */
    push_metered(L, sb_comment, COST_READS);
    lua_setfield(L, -2, "comment");
    lua_pushcfunction(L, sb_lua_q); /* charges itself */
    lua_setfield(L, -2, "lua_q");
    lua_pushcfunction(L, sb_tcl_q); /* charges itself */
    lua_setfield(L, -2, "tcl_q");
    lua_pushcfunction(L, sb_pc_q); /* charges itself */
    lua_setfield(L, -2, "pc_q");
}

typedef struct {
    bool template;             /* ctk_lua_render: helpers and `ctk` */
    const ctk_lval_t *data;
    const ctk_lua_reg_t *fns;  /* ctk_lua_run: host functions */
    unsigned flags;
    const char *prelude;       /* ctk_lua_run_prelude: run first; NULL: none */
    size_t prelude_len;
} setup_args_t;

/* Open the allowed libraries, trim them, build _ENV with `ctk` (templates)
 * or the host functions in it.  Runs protected; returns the env on the
 * stack. */
static void open_libs(lua_State *L)
{
    static const luaL_Reg libs[] = {
        { LUA_GNAME, luaopen_base },       { LUA_STRLIBNAME, luaopen_string },
        { LUA_TABLIBNAME, luaopen_table }, { LUA_MATHLIBNAME, luaopen_math },
        { LUA_UTF8LIBNAME, luaopen_utf8 }, { NULL, NULL }
    };
    const luaL_Reg *lib;

    for (lib = libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    /* the string metatable's __index is the real string table: strip dump
     * there too, since ("").dump would otherwise reach it */
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    meter_libs(L);
}

static int setup_p(lua_State *L)
{
    const setup_args_t *a = lua_touserdata(L, 1);

    open_libs(L);
    push_env(L, a->template, (a->flags & CTK_LUA_ALLOW_GLOBALS) != 0);
    if (a->template) {
        lua_pushstring(L, "ctk");
        if (a->data)
            push_lval(L, a->data, 0, NULL);
        else
            lua_pushnil(L);
        lua_rawset(L, -3);
    }
    if (a->fns)
        push_host_fns(L, a->fns);
    return 1;
}

/* The message handler of every protected run: the message as it is, with
 * the line of the innermost Lua function on the stack noted in the host,
 * for errors raised without a position (error(msg, 0)).  No traceback: a
 * template is one short chunk, and FILE:LINE says where. */
static int message_h(lua_State *L)
{
    host_t *h = get_host(L);
    lua_Debug ar;
    int level;

    for (level = 1; level < 64 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && ar.source[0] == '@') {
            h->where_line = ar.currentline;
            break;
        }
    }
    if (!lua_isstring(L, 1))
        lua_pushstring(L, luaL_typename(L, 1));
    else
        lua_pushvalue(L, 1);
    return 1;
}

/* Length of the "NAME:LINE: " position Lua put at the start of msg, and the
 * line in *line; 0 when msg has none.  NAME is the chunk's name as Lua
 * shows it: the whole chunkname, or "..." and its tail when it is long. */
static size_t message_pos(const char *msg, const char *chunk, int *line)
{
    size_t n = strlen(chunk), k;
    long l = 0;
    const char *p;

    *line = 0;
    if (strncmp(msg, chunk, n) == 0 && msg[n] == ':') {
        p = msg + n + 1;
    } else if (strncmp(msg, "...", 3) == 0) {
        const char *colon = strchr(msg + 3, ':');

        if (!colon)
            return 0;
        k = (size_t)(colon - (msg + 3));
        if (k == 0 || k > n || strncmp(chunk + n - k, msg + 3, k) != 0)
            return 0;
        p = colon + 1;
    } else {
        return 0;
    }
    if (*p < '0' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (l < 1000000)
            l = l * 10 + (*p - '0');
    if (*p != ':' || l >= 1000000)
        return 0;
    p++;
    if (*p == ' ')
        p++;
    *line = (int)l;
    return (size_t)(p - msg);
}

/* The line msg names, else the fallback. */
static int chunk_line(const char *msg, const char *chunk, int fallback)
{
    int line;

    message_pos(msg, chunk, &line);
    return line ? line : fallback;
}

/* The error of msg: its position becomes the error's line (else the
 * fallback, from the stack) and leaves the text, so that the printer's
 * "chunkname:LINE: error: " is the only position shown. */
static void set_chunk_error(ctk_error_t *err, ctk_errcode_t code, const char *chunkname,
                            const char *msg, int fallback_line)
{
    int line;
    size_t skip = message_pos(msg, chunkname, &line);

    ctk_error_set(err, code, chunkname, line ? line : fallback_line, 0, "%s", msg + skip);
}

/* The host's own reasons a step failed, before the chunk's: no memory,
 * an interrupt, a limit ("<poison> <what>").  true when one applied. */
static bool host_failure(const host_t *h, const char *chunkname, const char *what, ctk_error_t *err)
{
    if (h->nomem)
        ctk_error_set(err, CTK_E_NOMEM, chunkname, 0, 0, "out of memory");
    else if (h->interrupted)
        set_interrupted(err, chunkname, h->interrupted);
    else if (h->poisoned)
        ctk_error_set(err, CTK_E_LIMIT, chunkname, 0, 0, "%s %s", h->poison, what);
    else
        return false;
    return true;
}

/* The chunk's run failed with msg (NULL: not a string). */
static void run_failure(const host_t *h, const char *chunkname, const char *msg, ctk_error_t *err)
{
    if (!msg)
        msg = "error object is not a string";
    if (h->poisoned && !h->nomem && !h->interrupted)
        ctk_error_set(err, CTK_E_LIMIT, chunkname, chunk_line(msg, chunkname, h->where_line), 0,
                      "%s (limits: %zu bytes, %lu instructions, %lu ms)", h->poison, h->limit, h->instr_limit,
                      h->time_limit_ms);
    else if (host_failure(h, chunkname, "", err))
        ;
    else if (ctk_error_is_set(&h->cberr))
        ctk_error_set(err, h->cberr.code, h->cberr.source[0] ? h->cberr.source : chunkname, h->cberr.line,
                      h->cberr.column, "%s", h->cberr.text);
    else if (ctk_error_is_set(&h->qerr))
        ctk_error_set(err, h->qerr.code, chunkname, chunk_line(msg, chunkname, h->where_line), 0, "%s",
                      h->qerr.text);
    else
        set_chunk_error(err, CTK_E_TEMPLATE, chunkname, msg, h->where_line);
}

/* Loading the chunk failed with status and msg. */
static void load_failure(const host_t *h, const char *chunkname, int status, const char *msg, ctk_error_t *err)
{
    if (host_failure(h, chunkname, "while loading", err))
        return;
    if (status == LUA_ERRMEM)
        ctk_error_set(err, CTK_E_LIMIT, chunkname, 0, 0, "out of memory while loading");
    else
        set_chunk_error(err, CTK_E_TEMPLATE, chunkname, msg ? msg : "syntax error", 0);
}

/* Run the prelude in the chunk's environment (at index 2), metered like
 * the chunk, with the real string table (what string values index) as its
 * argument.  Its failure is ctkgen's: CTK_E_INTERNAL, or the limit hit. */
static bool run_prelude(lua_State *L, host_t *h, const char *chunkname, const setup_args_t *args,
                        ctk_error_t *err)
{
    int status = luaL_loadbufferx(L, args->prelude, args->prelude_len, "=prelude", "t");

    if (status == LUA_OK) {
        lua_pushvalue(L, 2);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
        lua_getglobal(L, "string");
        lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
        status = lua_pcall(L, 1, 0, 1);
        lua_sethook(L, NULL, 0, 0);
    }
    if (status == LUA_OK)
        return true;
    if (!host_failure(h, chunkname, "in the prelude", err))
        ctk_error_set(err, CTK_E_INTERNAL, chunkname, 0, 0, "prelude: %s",
                      lua_isstring(L, -1) ? lua_tostring(L, -1) : "error");
    return false;
}

/* Preparing the sandbox (a protected call whose message is on top) failed. */
static void prepare_failure(const host_t *h, lua_State *L, const char *chunkname, ctk_error_t *err)
{
    const char *msg = lua_tostring(L, -1);

    if (!host_failure(h, chunkname, "while preparing the sandbox", err))
        ctk_error_set(err, CTK_E_INTERNAL, chunkname, 0, 0, "%s while preparing the sandbox", msg ? msg : "error");
}

/* Run the loaded chunk on top of the stack in the environment at index
 * 2 (the message handler at 1), metered. */
static bool run_loaded(lua_State *L, host_t *h, const char *chunkname, ctk_error_t *err)
{
    int status;

    lua_pushvalue(L, 2);
    if (!lua_setupvalue(L, -2, 1)) /* _ENV */
        lua_pop(L, 1);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
    status = lua_pcall(L, 0, 0, 1);
    lua_sethook(L, NULL, 0, 0);
    if (status != LUA_OK) {
        run_failure(h, chunkname, lua_tostring(L, -1), err);
        return false;
    }
    return true;
}

/* Set up the sandbox in a fresh state and run the chunk: the part
 * ctk_lua_render() and ctk_lua_run() share.  h is initialised by the
 * caller (limits, output buffer); the state is closed on every path. */
static bool run_chunk(host_t *h, const char *chunkname, const char *src, size_t len,
                      const setup_args_t *args, const ctk_lua_limits_t *limits, ctk_error_t *err)
{
    lua_State *L = NULL;
    char *name = NULL;
    bool ok = false;
    int status;

    h->limit = (limits && limits->mem_limit) ? limits->mem_limit : DEFAULT_MEM_LIMIT;
    h->instr_limit = (limits && limits->instr_limit) ? limits->instr_limit : DEFAULT_INSTR_LIMIT;
    h->time_limit_ms = (limits && limits->time_limit_ms) ? limits->time_limit_ms : DEFAULT_TIME_LIMIT_MS;
    start_clock(h);
    L = lua_newstate(host_alloc, h);
    if (!L) {
        if (h->nomem || !h->poisoned)
            ctk_error_set(err, CTK_E_NOMEM, chunkname, 0, 0, "out of memory");
        else if (h->interrupted)
            set_interrupted(err, chunkname, h->interrupted);
        else
            ctk_error_set(err, CTK_E_LIMIT, chunkname, 0, 0, "%s while creating the sandbox",
                          h->poison);
        goto out;
    }
    lua_pushcfunction(L, message_h);                          /* 1: handler */
    lua_pushcfunction(L, setup_p);
    lua_pushlightuserdata(L, (void *)args);
    if (lua_pcall(L, 1, 1, 1) != LUA_OK) {                    /* 2: env */
        prepare_failure(h, L, chunkname, err);
        goto out;
    }
    if (args->prelude && !run_prelude(L, h, chunkname, args, err))
        goto out;
    name = ctk_concat(err, "@", chunkname, NULL);
    if (!name)
        goto out;
    status = luaL_loadbufferx(L, src, len, name, "t");        /* 3: chunk */
    if (status != LUA_OK) {
        load_failure(h, chunkname, status, lua_tostring(L, -1), err);
        goto out;
    }
    if (!run_loaded(L, h, chunkname, err))
        goto out;
    /* Lua lets some failures pass (a string table that cannot be resized
     * stays as it is); the host met one all the same */
    if (h->nomem) {
        ctk_error_set(err, CTK_E_NOMEM, chunkname, 0, 0, "out of memory");
        goto out;
    }
    ok = true;
out:
    if (L)
        lua_close(L);
    free(name);
    return ok;
}

/* ---- a renderer: one state for many templates ----------------------------------------
 * The libraries are opened once, each template compiled once (kept by
 * chunkname with its source, so a changed source is compiled again), and
 * the data tree pushed once per ctk_lua_renderer_data(): it is read-only
 * (proxies), so templates cannot pass anything to each other through it.
 * Each render gets a fresh environment (its own copies of the library
 * tables, the helpers), its own output, budget, clock and memory cap on
 * top of what the state holds.  After any failure the state is closed and
 * the next render starts a new one. */
#define REG_CHUNKS "ctkgen.chunks"
#define REG_DATA "ctkgen.data"
#define REG_PROTO "ctkgen.proto"
#define REG_ENVMT "ctkgen.envmt"
#define REG_POOL "ctkgen.proxies"
/* garbage the state may hold between renders before a full collection */
#define RENDER_GC_SLACK ((size_t)4 << 20)

struct ctk_lua_renderer {
    lua_State *L;
    host_t h;
    ctk_lua_limits_t limits;
    size_t used0;              /* what the state held after its last full collection */
    const ctk_lval_t *data;
    bool data_pushed;
    const char *field;         /* ctk_lua_renderer_field(): the key, its value */
    const ctk_lval_t *field_val;
    bool field_set;            /* set in the state's data as it is now */
    lua_Integer pool_next;     /* the proxies the data and its field use (proxy_pool_t) */
    pool_t blocks;             /* the state's small blocks (h.pool) */
};

/* What lazy_index() copies of each library: its fields as push_lib_copy()
 * takes them (string.dump dropped), listed once when the state opens, as
 * an array key, value, key, value... in the order lua_next() gave them. */
#define REG_LIBS "ctkgen.libs"

static void list_libs(lua_State *L)
{
    const char *const *n;

    lua_newtable(L);
    for (n = sandbox_libs; *n; n++) {
        const char *const *drop = strcmp(*n, "string") == 0 ? string_drop : NULL;
        lua_Integer i = 0;

        lua_getglobal(L, *n);      /* libs lib */
        lua_newtable(L);           /* libs lib list */
        lua_pushnil(L);
        while (lua_next(L, -3)) {  /* libs lib list key value */
            const char *const *d;
            bool skip = false;

            for (d = drop; lua_type(L, -2) == LUA_TSTRING && d && *d; d++)
                if (strcmp(lua_tostring(L, -2), *d) == 0)
                    skip = true;
            if (skip) {
                lua_pop(L, 1);
                continue;
            }
            lua_rawseti(L, -3, i + 2);
            lua_pushvalue(L, -1);
            lua_rawseti(L, -3, i + 1);
            i += 2;
        }
        lua_setfield(L, -3, *n);   /* libs lib */
        lua_pop(L, 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, REG_LIBS);
}

/* A fresh copy of library name from its list (list_libs()), as
 * push_lib_copy() would make it. */
static void push_listed_lib(lua_State *L, const char *name)
{
    lua_Integer i, n;

    lua_getfield(L, LUA_REGISTRYINDEX, REG_LIBS);
    lua_getfield(L, -1, name);     /* libs list */
    n = (lua_Integer)lua_rawlen(L, -1);
    lua_createtable(L, 0, 32);     /* libs list copy */
    for (i = 1; i + 1 <= n; i += 2) {
        lua_rawgeti(L, -2, i);
        lua_rawgeti(L, -3, i + 1);
        lua_rawset(L, -3);
    }
    lua_replace(L, -3);            /* copy list */
    lua_pop(L, 1);
}

/* __index of a render's environment: what push_env() would have put
 * there, made on first use and kept in it (a library table is copied
 * then, so a render that never names math pays nothing for it); any other
 * name is an error, as in push_env()'s environment. */
static int lazy_index(lua_State *L)
{
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    const char *const *n;

    for (n = sandbox_libs; k && *n; n++) {
        if (strcmp(k, *n) != 0)
            continue;
        push_listed_lib(L, k);
        lua_pushvalue(L, 2);
        lua_pushvalue(L, -2);
        lua_rawset(L, 1);
        return 1;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, REG_PROTO);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) == LUA_TNIL)
        return strict_index(L);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

/* The state's shared parts: the libraries, the compiled chunks' cache,
 * the functions every render's environment offers, and the metatable that
 * offers them. */
static int renderer_open_p(lua_State *L)
{
    const char *const *n;

    open_libs(L);
    list_libs(L);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_CHUNKS);
    lua_newtable(L);
    for (n = base_ok; *n; n++) {
        lua_getglobal(L, *n);
        lua_setfield(L, -2, *n);
    }
    lua_pushcfunction(L, sb_pcall);
    lua_setfield(L, -2, "pcall");
    push_template_helpers(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_PROTO);
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, lazy_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, strict_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_setfield(L, LUA_REGISTRYINDEX, REG_ENVMT);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_POOL);
    return 0;
}

typedef struct {
    const ctk_lval_t *data;
    bool push_data;
    const char *field;         /* to set in the data's real table; NULL: none */
    const ctk_lval_t *field_val;
    lua_Integer *pool_next;    /* the renderer's proxy_pool_t count */
} render_env_t;

/* The render's environment, with the data (pushed first when new, its
 * extra field set when it changed). */
static int renderer_env_p(lua_State *L)
{
    const render_env_t *a = lua_touserdata(L, 1);
    proxy_pool_t pool;

    lua_getfield(L, LUA_REGISTRYINDEX, REG_POOL);
    pool.idx = lua_gettop(L);
    pool.next = *a->pool_next;
    if (a->push_data) {
        pool.next = 0; /* the data before is replaced: its proxies are free */
        if (a->data)
            push_lval(L, a->data, 0, &pool);
        else
            lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, REG_DATA);
    }
    if (a->field) {
        lua_getfield(L, LUA_REGISTRYINDEX, REG_DATA);
        if (!lua_getmetatable(L, -1) || lua_getfield(L, -1, "__index") != LUA_TTABLE)
            return luaL_error(L, "ctk.%s set on data that is not a map", a->field);
        if (a->field_val)
            push_lval(L, a->field_val, 1, &pool);
        else
            lua_pushnil(L);
        lua_setfield(L, -2, a->field);
        lua_pop(L, 3);
    }
    *a->pool_next = pool.next;
    lua_createtable(L, 0, 16);
    lua_getfield(L, LUA_REGISTRYINDEX, REG_ENVMT);
    lua_setmetatable(L, -2);
    lua_pushstring(L, "ctk");
    lua_getfield(L, LUA_REGISTRYINDEX, REG_DATA);
    lua_rawset(L, -3);
    return 1;
}

typedef struct {
    const char *chunkname, *src;
    size_t len;
    int status;                /* of loading, when it was compiled */
} render_chunk_t;

/* The compiled chunk for chunkname and src: from the cache when its source
 * is the same, else compiled (and kept).  Returns it, or the load error's
 * message with a->status set. */
static int renderer_chunk_p(lua_State *L)
{
    render_chunk_t *a = lua_touserdata(L, 1);

    lua_getfield(L, LUA_REGISTRYINDEX, REG_CHUNKS);       /* 2: cache */
    if (lua_getfield(L, 2, a->chunkname) == LUA_TTABLE) { /* 3: {src, fn} */
        size_t had_len;
        const char *had;

        /* compared in place: no copy of the source made to compare it */
        lua_rawgeti(L, 3, 1);
        had = lua_tolstring(L, -1, &had_len);
        if (had && had_len == a->len && memcmp(had, a->src, a->len) == 0) {
            lua_rawgeti(L, 3, 2);
            return 1;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    /* named "@chunkname" only here, when it is compiled */
    if ((a->status = luaL_loadbufferx(L, a->src, a->len, lua_pushfstring(L, "@%s", a->chunkname),
                                      "t")) != LUA_OK)
        return 1;
    lua_createtable(L, 2, 0);
    lua_pushlstring(L, a->src, a->len);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, 2, a->chunkname);
    return 1;
}

ctk_lua_renderer_t *ctk_lua_renderer_new(const ctk_lua_limits_t *limits, ctk_error_t *err)
{
    ctk_lua_renderer_t *r = calloc(1, sizeof *r);

    if (!r) {
        ctk_error_nomem(err);
        return NULL;
    }
    r->h.pool = &r->blocks;
    if (limits)
        r->limits = *limits;
    r->limits.mem_limit = r->limits.mem_limit ? r->limits.mem_limit : DEFAULT_MEM_LIMIT;
    r->limits.instr_limit = r->limits.instr_limit ? r->limits.instr_limit : DEFAULT_INSTR_LIMIT;
    r->limits.time_limit_ms = r->limits.time_limit_ms ? r->limits.time_limit_ms : DEFAULT_TIME_LIMIT_MS;
    return r;
}

static void renderer_close(ctk_lua_renderer_t *r)
{
    if (r->L)
        lua_close(r->L);
    pool_drain(&r->blocks);
    r->L = NULL;
    r->data_pushed = false;
    r->field_set = false;
    r->pool_next = 0;
}

void ctk_lua_renderer_free(ctk_lua_renderer_t *r)
{
    if (!r)
        return;
    renderer_close(r);
    free(r);
}

void ctk_lua_renderer_data(ctk_lua_renderer_t *r, const ctk_lval_t *data)
{
    r->data = data;
    r->data_pushed = false;
    r->field = NULL;
    r->field_val = NULL;
    r->field_set = true;
}

void ctk_lua_renderer_field(ctk_lua_renderer_t *r, const char *key, const ctk_lval_t *v)
{
    if (r->field && strcmp(r->field, key) != 0 && r->data_pushed) {
        /* another key: the data is pushed again, without the old one */
        r->data_pushed = false;
    }
    r->field = key;
    r->field_val = v;
    r->field_set = false;
}

/* A fresh host for one render: budget, clock, output; the cap on top of
 * what the state holds. */
static void renderer_begin(ctk_lua_renderer_t *r)
{
    host_t *h = &r->h;

    /* field by field, not memset: the two errors are 10 KB a render */
    h->instr = 0;
    h->poisoned = false;
    h->poison = NULL;
    h->interrupted = 0;
    h->nomem = false;
    h->where_line = 0;
    h->kept = 0;
    h->ud = NULL;
    ctk_buf_init(&h->out);
    ctk_error_init(&h->qerr);
    ctk_error_init(&h->cberr);
    h->limit = r->limits.mem_limit > SIZE_MAX - h->used ? SIZE_MAX : h->used + r->limits.mem_limit;
    h->instr_limit = r->limits.instr_limit;
    h->time_limit_ms = r->limits.time_limit_ms;
    start_clock(h);
}

/* A state with the libraries open, or false with err set. */
static bool renderer_open(ctk_lua_renderer_t *r, const char *chunkname, ctk_error_t *err)
{
    host_t *h = &r->h;

    if (r->L)
        return true;
    if (!(r->L = lua_newstate(host_alloc, h))) {
        if (!host_failure(h, chunkname, "while creating the sandbox", err))
            ctk_error_set(err, CTK_E_NOMEM, chunkname, 0, 0, "out of memory");
        return false;
    }
    lua_pushcfunction(r->L, message_h);
    lua_pushcfunction(r->L, renderer_open_p);
    if (lua_pcall(r->L, 0, 0, 1) != LUA_OK) {
        prepare_failure(h, r->L, chunkname, err);
        return false;
    }
    lua_settop(r->L, 0);
    return true;
}

/* The render: env at 2, the chunk run in it; false with err set. */
static bool renderer_render(ctk_lua_renderer_t *r, const char *chunkname, const char *src, size_t len,
                            ctk_error_t *err)
{
    lua_State *L = r->L;
    render_env_t env = { r->data, !r->data_pushed, NULL, NULL, &r->pool_next };
    render_chunk_t chunk = { chunkname, src, len, LUA_OK };
    bool ok = false;

    lua_pushcfunction(L, message_h);                          /* 1: handler */
    if (r->field && (!r->field_set || !r->data_pushed)) {
        env.field = r->field;
        env.field_val = r->field_val;
    }
    lua_pushcfunction(L, renderer_env_p);
    lua_pushlightuserdata(L, &env);
    if (lua_pcall(L, 1, 1, 1) != LUA_OK) {                    /* 2: env */
        prepare_failure(&r->h, L, chunkname, err);
        return false;
    }
    r->data_pushed = true;
    r->field_set = true;
    lua_pushcfunction(L, renderer_chunk_p);
    lua_pushlightuserdata(L, &chunk);
    if (lua_pcall(L, 1, 1, 1) != LUA_OK)                      /* 3: chunk */
        load_failure(&r->h, chunkname, LUA_ERRMEM, lua_tostring(L, -1), err);
    else if (chunk.status != LUA_OK)
        load_failure(&r->h, chunkname, chunk.status, lua_tostring(L, -1), err);
    else
        ok = run_loaded(L, &r->h, chunkname, err);
    return ok;
}

char *ctk_lua_renderer_run(ctk_lua_renderer_t *r, const char *chunkname, const char *src, size_t len,
                           size_t *outlen, ctk_error_t *err)
{
    host_t *h = &r->h;
    char *result = NULL;
    bool ok;

    if (r->L && h->used - r->used0 > RENDER_GC_SLACK) {
        lua_gc(r->L, LUA_GCCOLLECT);
        r->used0 = h->used;
    }
    renderer_begin(r);
    ok = renderer_open(r, chunkname, err) && renderer_render(r, chunkname, src, len, err);
    /* Lua lets some failures pass (a string table that cannot be resized
     * stays as it is); the host met one all the same */
    if (ok && h->nomem) {
        ctk_error_set(err, CTK_E_NOMEM, chunkname, 0, 0, "out of memory");
        ok = false;
    }
    if (ok && h->out.failed) {
        ctk_error_nomem(err);
        ok = false;
    }
    if (ok && !(result = ctk_buf_take(&h->out, outlen)))
        ctk_error_nomem(err);
    ctk_buf_fini(&h->out);
    h->used -= h->kept;
    if (!result) {
        renderer_close(r);
        h->used = 0;
        r->used0 = 0;
    } else {
        lua_settop(r->L, 0);
    }
    return result;
}

char *ctk_lua_render(const char *chunkname, const char *src, size_t len, const ctk_lval_t *data,
                     const ctk_lua_limits_t *limits, size_t *outlen, ctk_error_t *err)
{
    ctk_lua_renderer_t *r = ctk_lua_renderer_new(limits, err);
    char *result;

    if (!r)
        return NULL;
    ctk_lua_renderer_data(r, data);
    result = ctk_lua_renderer_run(r, chunkname, src, len, outlen, err);
    ctk_lua_renderer_free(r);
    return result;
}

/* ---- plain calls: Lua that needs no compiler to be known good ----------------
 * A generated Lmod module is comments and calls of a name with string
 * literals (whatis("..."), prepend_path("PATH", "...")): text of that
 * shape is Lua by its grammar, so it is accepted here without compiling
 * it (compiling costs about a hundred instructions a byte).  Anything
 * else, or anything doubtful, is left to the compiler, which gives the
 * error messages. */
#define PLAIN_MAX_BYTES ((size_t)1 << 20) /* far below what compiling could not hold */
#define PLAIN_MAX_ARGS 32                 /* far below Lua's register limit */

static bool plain_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* ASCII only, as Lua's lexer has it, whatever the locale says */
static bool plain_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool plain_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool plain_keyword(const char *s, size_t n)
{
    static const char *const kw[] = {
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
        "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    };
    size_t i;

    if (n < 2 || n > 8) /* "do" to "function" */
        return false;
    for (i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (kw[i][0] == s[0] && strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
            return true;
    return false;
}

/* The bytes that end a run of a string literal's plain text. */
static const bool plain_string_special[256] = {
    ['"'] = true, ['\\'] = true, ['\n'] = true, ['\r'] = true,
};

/* A string literal at *p as ctk_quote_lua() writes them: "..." with \\
 * \" \n \t \r or \ddd (three digits, at most 255), no bare line break. */
static bool plain_string(const char **p, const char *end)
{
    const char *s = *p;

    if (s == end || *s++ != '"')
        return false;
    while (s < end && *s != '"') {
        while (s < end && !plain_string_special[(unsigned char)*s])
            s++;
        if (s == end || *s == '"')
            break;
        if (*s == '\n' || *s == '\r')
            return false;
        s++; /* a backslash */
        if (s == end)
            return false;
        if (*s == '\\' || *s == '"' || *s == 'n' || *s == 't' || *s == 'r') {
            s++;
        } else if (end - s >= 3 && plain_digit(s[0]) && plain_digit(s[1]) && plain_digit(s[2]) &&
                   (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0') <= 255) {
            s += 3;
        } else {
            return false;
        }
    }
    if (s == end)
        return false;
    *p = s + 1;
    return true;
}

/* One call at *p: Name ( string {, string} ) or Name (). */
static bool plain_call(const char **p, const char *end)
{
    const char *s = *p, *name = s;
    int args = 0;

    if (s == end || !plain_name_start(*s))
        return false;
    while (s < end && (plain_name_start(*s) || plain_digit(*s)))
        s++;
    if (plain_keyword(name, (size_t)(s - name)))
        return false;
    while (s < end && plain_space(*s))
        s++;
    if (s == end || *s++ != '(')
        return false;
    for (;;) {
        while (s < end && plain_space(*s))
            s++;
        if (s < end && *s == ')' && args == 0)
            break;
        if (++args > PLAIN_MAX_ARGS || !plain_string(&s, end))
            return false;
        while (s < end && plain_space(*s))
            s++;
        if (s < end && *s == ',') {
            s++;
            continue;
        }
        if (s < end && *s == ')')
            break;
        return false;
    }
    *p = s + 1;
    return true;
}

bool ctk_lua_plain_calls(const char *src, size_t len)
{
    const char *p = src, *end = src + len;

    if (len > PLAIN_MAX_BYTES || memchr(src, '\0', len))
        return false;
    while (p < end) {
        if (plain_space(*p)) {
            p++;
        } else if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
            /* a line comment; "--[" may open a long one: the compiler's */
            if (end - p >= 3 && p[2] == '[')
                return false;
            while (p < end && *p != '\n' && *p != '\r')
                p++;
        } else if (!plain_call(&p, end)) {
            return false;
        }
    }
    return true;
}

bool ctk_lua_renderer_check_syntax(ctk_lua_renderer_t *r, const char *chunkname, const char *src, size_t len,
                                   ctk_error_t *err)
{
    host_t *h = &r->h;
    char *name;
    bool ok = false;
    int status;

    if (ctk_lua_plain_calls(src, len))
        return true;
    renderer_begin(r);
    if (!renderer_open(r, chunkname, err) || !(name = ctk_concat(err, "@", chunkname, NULL))) {
        renderer_close(r);
        h->used = 0;
        return false;
    }
    status = luaL_loadbufferx(r->L, src, len, name, "t");
    if (status == LUA_OK && !h->nomem)
        ok = true;
    else if (host_failure(h, chunkname, "while compiling", err))
        ; /* no memory, a limit, an interrupt */
    else if (status == LUA_ERRMEM)
        ctk_error_set(err, CTK_E_LIMIT, chunkname, 0, 0, "out of memory while compiling");
    else
        set_chunk_error(err, CTK_E_TEMPLATE, chunkname,
                        lua_tostring(r->L, -1) ? lua_tostring(r->L, -1) : "syntax error", 0);
    free(name);
    ctk_buf_fini(&h->out);
    if (h->poisoned) { /* a limit or no memory: the state is not used again */
        renderer_close(r);
        h->used = 0;
    } else {
        lua_settop(r->L, 0);
    }
    return ok;
}

bool ctk_lua_check_syntax(const char *chunkname, const char *src, size_t len, ctk_error_t *err)
{
    host_t h;
    lua_State *L;
    char *name = NULL;
    bool ok = false;
    int status;

    memset(&h, 0, sizeof h);
    h.limit = DEFAULT_MEM_LIMIT;
    h.instr_limit = DEFAULT_INSTR_LIMIT;
    /* no libraries, no environment: the chunk is compiled, never run */
    L = lua_newstate(host_alloc, &h);
    if (!L) {
        ctk_error_nomem(err);
        return false;
    }
    name = ctk_concat(err, "@", chunkname, NULL);
    if (!name)
        goto out;
    status = luaL_loadbufferx(L, src, len, name, "t");
    if (status == LUA_OK) {
        ok = !h.nomem;
        if (!ok)
            ctk_error_nomem(err);
    } else if (h.nomem) {
        ctk_error_nomem(err);
    } else if (h.interrupted) {
        set_interrupted(err, chunkname, h.interrupted);
    } else if (status == LUA_ERRMEM || h.poisoned) {
        ctk_error_set(err, CTK_E_LIMIT, chunkname, 0, 0, "%s while compiling",
                      h.poison ? h.poison : "out of memory");
    } else {
        const char *msg = lua_tostring(L, -1);

        set_chunk_error(err, CTK_E_TEMPLATE, chunkname, msg ? msg : "syntax error", 0);
    }
out:
    lua_close(L);
    free(name);
    return ok;
}

/* ---- host functions (ctk_lua_run) ------------------------------------------
 * The accessors below only read the stack: no allocation, so no error can
 * unwind through a host function.  A C function starts with LUA_MINSTACK
 * free slots; each accessor pushes at most two and pops them again.  A
 * string read from a table stays reachable through the table (an argument),
 * and no collection can run before the host function returns. */
struct ctk_lua_call {
    lua_State *L;
    host_t *h;
    int nargs;
    int line;
    const char *name;
};

typedef enum { RET_NONE, RET_NIL, RET_BOOL, RET_STR } ret_kind_t;

struct ctk_lua_ret {
    ret_kind_t kind;
    bool b;
    char *str;
    size_t len;
};

void ctk_lua_call_charge(const ctk_lua_call_t *c, unsigned long steps)
{
    charge_steps(c->h, steps);
}

size_t ctk_lua_call_nargs(const ctk_lua_call_t *c)
{
    return (size_t)c->nargs;
}

int ctk_lua_call_line(const ctk_lua_call_t *c)
{
    return c->line;
}

const char *ctk_lua_call_name(const ctk_lua_call_t *c)
{
    return c->name;
}

static void fill_val(lua_State *L, int idx, ctk_lua_val_t *out)
{
    memset(out, 0, sizeof *out);
    switch (lua_type(L, idx)) {
    case LUA_TNONE:
    case LUA_TNIL:
        out->type = CTK_LUA_NIL;
        return;
    case LUA_TBOOLEAN:
        out->type = CTK_LUA_BOOL;
        out->truthy = lua_toboolean(L, idx);
        return;
    case LUA_TNUMBER:
        out->type = CTK_LUA_NUMBER;
        out->num = (double)lua_tonumber(L, idx);
        out->is_num = true;
        /* what tostring() gives, without asking Lua to allocate it */
        if (lua_isinteger(L, idx)) {
            snprintf(out->numbuf, sizeof out->numbuf, LUA_INTEGER_FMT,
                     (LUAI_UACINT)lua_tointeger(L, idx));
        } else {
            snprintf(out->numbuf, sizeof out->numbuf, LUA_NUMBER_FMT,
                     (LUAI_UACNUMBER)lua_tonumber(L, idx));
            if (out->numbuf[strspn(out->numbuf, "-0123456789")] == '\0') {
                size_t n = strlen(out->numbuf);

                if (n + 3 <= sizeof out->numbuf)
                    memcpy(out->numbuf + n, ".0", 3);
            }
        }
        out->str = out->numbuf;
        out->len = strlen(out->numbuf);
        break;
    case LUA_TSTRING: {
        int isnum = 0;
        lua_Number n = lua_tonumberx(L, idx, &isnum);

        out->type = CTK_LUA_STRING;
        out->str = lua_tolstring(L, idx, &out->len); /* a string already: no allocation */
        out->num = (double)n;
        out->is_num = isnum != 0;
        break;
    }
    case LUA_TTABLE:
        out->type = CTK_LUA_TABLE;
        break;
    default:
        out->type = CTK_LUA_OTHER;
        break;
    }
    out->truthy = true;
}

void ctk_lua_call_arg(const ctk_lua_call_t *c, size_t i, ctk_lua_val_t *out)
{
    if (i < 1 || i > (size_t)c->nargs)
        memset(out, 0, sizeof *out);
    else
        fill_val(c->L, (int)i, out);
}

static bool arg_is_table(const ctk_lua_call_t *c, size_t i)
{
    return i >= 1 && i <= (size_t)c->nargs && lua_type(c->L, (int)i) == LUA_TTABLE;
}

void ctk_lua_call_elem(const ctk_lua_call_t *c, size_t i, size_t k, ctk_lua_val_t *out)
{
    memset(out, 0, sizeof *out);
    if (!arg_is_table(c, i) || k < 1)
        return;
    lua_rawgeti(c->L, (int)i, (lua_Integer)k);
    fill_val(c->L, -1, out);
    lua_pop(c->L, 1);
}

void ctk_lua_call_field(const ctk_lua_call_t *c, size_t i, const char *key, ctk_lua_val_t *out)
{
    lua_State *L = c->L;
    size_t klen = strlen(key);

    memset(out, 0, sizeof *out);
    if (!arg_is_table(c, i))
        return;
    /* a scan rather than lua_getfield: pushing the key could allocate */
    lua_pushnil(L);
    while (lua_next(L, (int)i)) {
        size_t n;

        if (lua_type(L, -2) == LUA_TSTRING) {
            const char *k = lua_tolstring(L, -2, &n);

            if (n == klen && memcmp(k, key, n) == 0) {
                fill_val(L, -1, out);
                lua_pop(L, 2);
                return;
            }
        }
        lua_pop(L, 1);
    }
}

size_t ctk_lua_call_len(const ctk_lua_call_t *c, size_t i)
{
    return arg_is_table(c, i) ? (size_t)lua_rawlen(c->L, (int)i) : 0;
}

bool ctk_lua_ret_str(ctk_lua_ret_t *r, const char *s, size_t len)
{
    char *p = malloc(len + 1);

    if (!p)
        return false;
    memcpy(p, s, len);
    p[len] = '\0';
    free(r->str);
    r->str = p;
    r->len = len;
    r->kind = RET_STR;
    return true;
}

void ctk_lua_ret_bool(ctk_lua_ret_t *r, bool b)
{
    r->kind = RET_BOOL;
    r->b = b;
}

void ctk_lua_ret_nil(ctk_lua_ret_t *r)
{
    r->kind = RET_NIL;
}

/* The one C function behind every host function: upvalue 1 is its
 * ctk_lua_reg_t.  The host function runs outside Lua's error handling;
 * only after it returns (and its resources are released) may Lua raise. */
static int sb_host(lua_State *L)
{
    host_t *h = get_host(L);
    const ctk_lua_reg_t *reg = lua_touserdata(L, lua_upvalueindex(1));
    ctk_lua_call_t c;
    ctk_lua_ret_t r;
    ctk_error_t e;
    lua_Debug ar;
    size_t bytes;
    int level;
    bool ok;

    c.L = L;
    c.h = h;
    c.nargs = lua_gettop(L);
    c.line = 0;
    c.name = reg->name;
    /* the nearest Lua caller (through pcall, if that is how it was called) */
    for (level = 1; level < 8 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && ar.source[0] == '@') {
            c.line = ar.currentline;
            break;
        }
    }
    /* what any host function may keep of its arguments (copies, entries,
     * a value rebuilt from them) counts against the memory cap */
    bytes = arg_bytes(L);
    keep_bytes(h, bytes > SIZE_MAX / 4 ? SIZE_MAX : 3 * bytes + HOST_KEEP_MAX);
    charge(L, 1 + bytes_steps(bytes));
    memset(&r, 0, sizeof r);
    ctk_error_init(&e);
    ok = reg->fn(h->ud, &c, &r, &e);
    if (!ok) {
        free(r.str);
        if (!ctk_error_is_set(&e))
            ctk_error_set(&e, CTK_E_TEMPLATE, NULL, 0, 0, "%s failed", reg->name);
        if (!e.line)
            e.line = c.line;
        if (!ctk_error_is_set(&h->cberr))
            h->cberr = e;
        return luaL_error(L, "%s", e.text);
    }
    if (r.kind == RET_STR)
        charge_steps(h, bytes_steps(r.len));
    if (h->poisoned) {
        free(r.str);
        return luaL_error(L, "%s", h->poison);
    }
    switch (r.kind) {
    case RET_NONE: return 0;
    case RET_NIL: lua_pushnil(L); return 1;
    case RET_BOOL: lua_pushboolean(L, r.b); return 1;
    case RET_STR: break;
    }
    return push_owned(L, r.str, r.len);
}

/* Add each host function to the env on top of the stack. */
static void push_host_fns(lua_State *L, const ctk_lua_reg_t *fns)
{
    const ctk_lua_reg_t *f;

    for (f = fns; f->name; f++) {
        const char *dot = strchr(f->name, '.');

        if (dot) {
            lua_pushlstring(L, f->name, (size_t)(dot - f->name));     /* env k */
            lua_pushvalue(L, -1);                                    /* env k k */
            if (lua_rawget(L, -3) != LUA_TTABLE) {                   /* env k t? */
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushvalue(L, -2);
                lua_pushvalue(L, -2);
                lua_rawset(L, -5);                                   /* env[k] = t */
            }
            lua_remove(L, -2);                                       /* env t */
            lua_pushlightuserdata(L, (void *)f);
            lua_pushcclosure(L, sb_host, 1);
            lua_setfield(L, -2, dot + 1);
            lua_pop(L, 1);
        } else {
            lua_pushstring(L, f->name);
            lua_pushlightuserdata(L, (void *)f);
            lua_pushcclosure(L, sb_host, 1);
            lua_rawset(L, -3);
        }
    }
}

bool ctk_lua_run(const char *chunkname, const char *src, size_t len, const ctk_lua_reg_t *fns,
                 void *ud, unsigned flags, const ctk_lua_limits_t *limits, ctk_error_t *err)
{
    return ctk_lua_run_prelude(chunkname, NULL, 0, src, len, fns, ud, flags, limits, err);
}

bool ctk_lua_run_prelude(const char *chunkname, const char *prelude, size_t prelude_len,
                         const char *src, size_t len, const ctk_lua_reg_t *fns, void *ud,
                         unsigned flags, const ctk_lua_limits_t *limits, ctk_error_t *err)
{
    host_t h;
    setup_args_t args = { false, NULL, fns, flags, prelude, prelude_len };
    bool ok;

    memset(&h, 0, sizeof h);
    ctk_buf_init(&h.out);
    ctk_error_init(&h.qerr);
    ctk_error_init(&h.cberr);
    h.ud = ud;
    ok = run_chunk(&h, chunkname, src, len, &args, limits, err);
    ctk_buf_fini(&h.out);
    return ok;
}
