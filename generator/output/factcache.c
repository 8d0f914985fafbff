/* factcache.c - what generate learned of each toolkit, kept in OUT between
 * runs (factcache.h).
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "factcache.h"
#include "cache.h"
#include "sdkfacts.h"
#include "util.h"
#include "write.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FACTS_HEADER "# ctkgen facts v1\n"
/* a file larger than this is not one ctkgen wrote for a site it can load */
#define FACTS_MAX ((size_t)256 << 20)

/* One SDK's record in the text read: pointers into it. */
typedef struct {
    uint64_t key, answers;
    const char *questions; /* nq lines "<kind> <path>\n" */
    size_t qlen, nq;
    const char *facts; /* sdkfacts text */
    size_t flen;
    const char *whole; /* the record, its "sdk" line included */
    size_t wlen;
} record_t;

struct ctk_factcache {
    char *dir;  /* where the file lives (the cache dir's facts/); NULL: no cache dir */
    char name[17]; /* the file: OUT's path hashed */
    char *text; /* the file as read; NULL: none */
    size_t len;
    record_t *recs; /* sorted by key */
    size_t n_recs;
    bool have_self; /* false: ctkgen's build cannot be told, nothing is kept */
    uint64_t self;
    bool have_run;
    uint64_t run, manifest, files;
    /* what this run will write */
    ctk_buf_t next;
    bool all_known;
    uint64_t facts;
};

/* ---- keys ------------------------------------------------------------------ */

static uint64_t mix_str(uint64_t h, const char *s)
{
    if (!s)
        return ctk_hash_size(h, SIZE_MAX);
    return ctk_hash_mix(h, s, strlen(s));
}

static uint64_t mix_kvs(uint64_t h, const ctk_kv_t *kv, size_t n)
{
    size_t i;

    h = ctk_hash_size(h, n);
    for (i = 0; i < n; i++)
        h = mix_str(mix_str(h, kv[i].name), kv[i].value);
    return h;
}

/* Every field of an SDK's config entry but where it came from (jpath,
 * pos: they only place messages of a load that fails, and such a load
 * is not kept). */
_Static_assert(sizeof(ctk_sdk_conf_t) == 256,
               "ctk_sdk_conf_t changed: hash the new field in entry_key (factcache.c), then update "
               "this size");

static uint64_t entry_key(uint64_t self, const ctk_sdk_conf_t *c, const char *source)
{
    uint64_t h = self;
    size_t i;

    h = mix_str(h, source);
    h = mix_str(h, c->version);
    h = mix_str(h, c->module_version);
    h = mix_str(h, c->base);
    h = mix_str(h, c->math_libs);
    h = mix_str(h, c->nvvm);
    h = mix_str(h, c->cupti);
    h = mix_str(h, c->nccl);
    h = mix_str(h, c->nvshmem);
    h = mix_str(h, c->host_compiler_module);
    h = mix_str(h, c->host_compiler_ccbin);
    h = mix_str(h, c->help);
    h = mix_kvs(h, c->env, c->n_env);
    h = mix_kvs(h, c->properties, c->n_properties);
    h = ctk_hash_size(h, c->n_aliases);
    for (i = 0; i < c->n_aliases; i++)
        h = mix_str(h, c->aliases[i]);
    return ctk_hash_size(h, c->follow_link ? 1 : 0);
}

/* ---- reading ------------------------------------------------------------- */

static bool hex16(const char *p, uint64_t *out)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < 16; i++) {
        char c = p[i];

        if (c >= '0' && c <= '9')
            v = v << 4 | (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v << 4 | (uint64_t)(c - 'a' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

/* A decimal count at *p, then sep; false when there is none. */
static bool count_at(const char **p, const char *end, char sep, size_t *out)
{
    size_t v = 0;
    const char *q = *p;

    if (q >= end || *q < '0' || *q > '9')
        return false;
    while (q < end && *q >= '0' && *q <= '9') {
        if (v > (SIZE_MAX - 9) / 10)
            return false;
        v = v * 10 + (size_t)(*q++ - '0');
    }
    if (q >= end || *q != sep)
        return false;
    *p = q + 1;
    *out = v;
    return true;
}

static int record_cmp(const void *a, const void *b)
{
    uint64_t x = ((const record_t *)a)->key, y = ((const record_t *)b)->key;

    return (x > y) - (x < y);
}

/* The records of fc->text; false (and none) when it is not a text of
 * this form.  Memory failure is false too: then nothing is reused. */
static bool parse(ctk_factcache_t *fc)
{
    const char *p = fc->text, *end = fc->text + fc->len;
    size_t hl = sizeof FACTS_HEADER - 1, cap = 0;

    if (fc->len < hl || memcmp(p, FACTS_HEADER, hl) != 0)
        return false;
    p += hl;
    if (end - p >= 55 && memcmp(p, "run ", 4) == 0) {
        if (!hex16(p + 4, &fc->run) || p[20] != ' ' || !hex16(p + 21, &fc->manifest) ||
            p[37] != ' ' || !hex16(p + 38, &fc->files) || p[54] != '\n')
            return false;
        fc->have_run = true;
        p += 55;
    }
    while (p < end) {
        record_t r;

        r.whole = p;
        if (end - p < 39 || memcmp(p, "sdk ", 4) != 0 || !hex16(p + 4, &r.key) || p[20] != ' ' ||
            !hex16(p + 21, &r.answers) || p[37] != ' ')
            return false;
        p += 38;
        if (!count_at(&p, end, ' ', &r.nq) || !count_at(&p, end, ' ', &r.qlen) ||
            !count_at(&p, end, '\n', &r.flen))
            return false;
        /* the question lines are checked when they are asked (still_holds) */
        r.questions = p;
        if ((size_t)(end - p) < r.qlen || (r.qlen && p[r.qlen - 1] != '\n'))
            return false;
        p += r.qlen;
        if ((size_t)(end - p) < r.flen || r.flen == 0 || p[r.flen - 1] != '\n')
            return false;
        r.facts = p;
        p += r.flen;
        r.wlen = (size_t)(p - r.whole);
        if (fc->n_recs == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            record_t *nr = realloc(fc->recs, ncap * sizeof *nr);

            if (!nr)
                return false;
            fc->recs = nr;
            cap = ncap;
        }
        fc->recs[fc->n_recs++] = r;
    }
    if (fc->n_recs > 1)
        qsort(fc->recs, fc->n_recs, sizeof *fc->recs, record_cmp);
    return true;
}

/* The file's text when this user can rely on it; NULL otherwise (absent,
 * not a regular file, another user's, unreadable, too large). */
static char *read_trusted(const char *dir, const char *name, size_t *len)
{
    char *path, *text = NULL;
    struct stat st;
    ctk_error_t e;
    int fd;

    ctk_error_init(&e);
    if (!(path = ctk_path_join(dir, name, &e)))
        return NULL;
    fd = ctk_file_open_regular(path, CTK_READ_NOFOLLOW, NULL, &e);
    free(path);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
        st.st_size > 0 && (uint64_t)st.st_size <= FACTS_MAX &&
        (text = malloc((size_t)st.st_size + 1))) {
        /* the size fstat gave, in one block: a file that is not that
           size by the end (written meanwhile) is not used */
        size_t got = 0;
        ssize_t n = 0;

        while (got < (size_t)st.st_size &&
               ((n = read(fd, text + got, (size_t)st.st_size - got)) > 0 || (n < 0 && errno == EINTR)))
            if (n > 0)
                got += (size_t)n;
        if (got != (size_t)st.st_size || read(fd, &(char){ 0 }, 1) != 0) {
            free(text);
            text = NULL;
        } else {
            text[got] = '\0';
            *len = got;
        }
    }
    close(fd);
    return text;
}

ctk_factcache_t *ctk_factcache_read(const char *outdir, uint64_t manifest, ctk_error_t *err)
{
    ctk_factcache_t *fc = calloc(1, sizeof *fc);
    char *cdir;
    uint64_t self = ctk_hash_update(CTK_HASH_INIT, PACKAGE_VERSION, sizeof PACKAGE_VERSION);

    if (!fc) {
        ctk_error_nomem(err);
        return NULL;
    }
    ctk_buf_init(&fc->next);
    /* what this run writes: the header, a run line set at its end
       (ctk_factcache_set_run; zeros match no manifest), then each SDK's
       record as it is loaded */
    ctk_buf_puts(&fc->next, FACTS_HEADER);
    ctk_buf_puts(&fc->next, "run 0000000000000000 0000000000000000 0000000000000000\n");
    fc->all_known = true;
    fc->facts = CTK_HASH_INIT;
    fc->have_self = ctk_hash_self(&self);
    fc->self = self;
    if (!(cdir = ctk_cache_default_dir(err))) {
        if (ctk_error_is_set(err)) {
            ctk_factcache_free(fc);
            return NULL;
        }
        return fc; /* no cache dir: nothing kept */
    }
    fc->dir = ctk_path_join(cdir, "facts", err);
    free(cdir);
    if (!fc->dir) {
        ctk_factcache_free(fc);
        return NULL;
    }
    ctk_hash_fmt(ctk_hash_mix(CTK_HASH_INIT, outdir, strlen(outdir)), fc->name);
    if (!fc->have_self || !manifest)
        return fc;
    fc->text = read_trusted(fc->dir, fc->name, &fc->len);
    if (fc->text)
        ctk_buf_reserve(&fc->next, fc->len); /* the next text is mostly this one again */
    /* kept for OUT as the run that wrote it left it, or not at all */
    if (fc->text && (!parse(fc) || !fc->have_run || fc->manifest != manifest)) {
        free(fc->recs);
        fc->recs = NULL;
        fc->n_recs = 0;
        fc->have_run = false;
    }
    return fc;
}

void ctk_factcache_free(ctk_factcache_t *fc)
{
    if (!fc)
        return;
    free(fc->dir);
    free(fc->text);
    free(fc->recs);
    ctk_buf_fini(&fc->next);
    free(fc);
}

/* ---- loading --------------------------------------------------------------- */

static const record_t *find(const ctk_factcache_t *fc, uint64_t key)
{
    record_t k;

    if (!fc->n_recs)
        return NULL;
    k.key = key;
    return bsearch(&k, fc->recs, fc->n_recs, sizeof *fc->recs, record_cmp);
}

/* Whether r's questions, asked now, are answered as recorded: r->nq
 * lines "<kind digit> /<path>\n", each made a string where it lies (its
 * newline a NUL while it is asked), in the text fc read. */
static bool still_holds(const record_t *r)
{
    char *p = (char *)r->questions, *end = p + r->qlen;
    ctk_seen_fold_t f;
    size_t n = 0;
    bool ok = true;

    ctk_seen_fold_init(&f, r->nq);
    while (ok && p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));

        /* the last line ends at end - 1 (parse) */
        if (nl - p < 3 || p[0] < '0' || p[0] >= '0' + CTK_SEEN_KINDS || p[1] != ' ')
            return false;
        *nl = '\0';
        ok = ctk_seen_fold_ask(&f, (ctk_seen_kind_t)(p[0] - '0'), p + 2);
        *nl = '\n';
        p = nl + 1;
        n++;
    }
    return ok && n == r->nq && ctk_seen_fold_end(&f) == r->answers;
}

static void keep_facts(ctk_factcache_t *fc, const char *facts, size_t len)
{
    fc->facts = ctk_hash_mix(fc->facts, facts, len);
}

/* Append the record of a probe to fc->next; false when it cannot be kept
 * (a question's path holds a newline) or memory runs out. */
static bool keep_probe(ctk_factcache_t *fc, uint64_t key, const ctk_seen_t *s, const char *facts)
{
    size_t i, n = ctk_seen_count(s), flen = strlen(facts), qbytes;
    char hk[17], ha[17];

    for (i = 0; i < n; i++) {
        ctk_seen_kind_t k;

        if (memchr(ctk_seen_question(s, i, &k), '\n', ctk_seen_question_len(s, i)))
            return false;
    }
    ctk_hash_fmt(key, hk);
    ctk_hash_fmt(ctk_seen_hash(s), ha);
    for (i = 0, qbytes = 0; i < n; i++)
        qbytes += ctk_seen_question_len(s, i) + 3;
    ctk_buf_printf(&fc->next, "sdk %s %s %zu %zu %zu\n", hk, ha, n, qbytes, flen);
    for (i = 0; i < n; i++) {
        ctk_seen_kind_t k;
        const char *q = ctk_seen_question(s, i, &k);
        size_t ql = ctk_seen_question_len(s, i);

        /* "<kind> <path>\n", written in place */
        if (!ctk_buf_reserve(&fc->next, ql + 3))
            break;
        fc->next.data[fc->next.len] = (char)('0' + (int)k);
        fc->next.data[fc->next.len + 1] = ' ';
        memcpy(fc->next.data + fc->next.len + 2, q, ql);
        fc->next.data[fc->next.len + 2 + ql] = '\n';
        fc->next.len += ql + 3;
        fc->next.data[fc->next.len] = '\0';
    }
    ctk_buf_append(&fc->next, facts, flen);
    keep_facts(fc, facts, flen);
    return !fc->next.failed;
}

ctk_sdk_t *ctk_factcache_load(ctk_factcache_t *fc, const ctk_sdk_conf_t *conf, const char *source,
                              bool *cached, ctk_error_t *err)
{
    const record_t *r;
    ctk_sdk_t *sdk;
    ctk_seen_t *s;
    ctk_error_t e;
    uint64_t key;
    char *facts;

    if (cached)
        *cached = false;
    if (!fc || !fc->have_self || !fc->dir) {
        if (fc)
            fc->all_known = false; /* nothing to keep it in, or no way to tell the build */
        return ctk_sdk_load(conf, source, err);
    }
    key = entry_key(fc->self, conf, source);
    if ((r = find(fc, key)) && still_holds(r)) {
        ctk_error_init(&e);
        if ((sdk = ctk_sdkfacts_load(conf, r->facts, r->flen, &e))) {
            ctk_buf_append(&fc->next, r->whole, r->wlen);
            keep_facts(fc, r->facts, r->flen);
            if (cached)
                *cached = true;
            return sdk;
        }
        if (e.code == CTK_E_NOMEM) {
            *err = e;
            return NULL;
        }
        /* a record of another shape: probed below */
    }
    s = ctk_seen_new();
    if (s)
        ctk_seen_begin(s);
    sdk = ctk_sdk_load(conf, source, err);
    ctk_seen_end();
    if (!sdk || !ctk_seen_usable(s)) {
        fc->all_known = false;
        ctk_seen_free(s);
        return sdk;
    }
    if (!(facts = ctk_sdkfacts_dump(sdk, err))) {
        ctk_seen_free(s);
        ctk_sdk_free(sdk);
        return NULL;
    }
    if (!keep_probe(fc, key, s, facts))
        fc->all_known = false;
    free(facts);
    ctk_seen_free(s);
    return sdk;
}

bool ctk_factcache_all_known(const ctk_factcache_t *fc, uint64_t *facts)
{
    if (!fc || !fc->all_known || fc->next.failed)
        return false;
    *facts = fc->facts;
    return true;
}

/* ---- the run ----------------------------------------------------------- */

bool ctk_factcache_run_same(const ctk_factcache_t *fc, uint64_t run, uint64_t manifest,
                            uint64_t *files)
{
    if (!fc || !fc->have_run || !run || fc->run != run || fc->manifest != manifest || manifest == 0)
        return false;
    *files = fc->files;
    return true;
}

void ctk_factcache_set_run(ctk_factcache_t *fc, uint64_t run, uint64_t manifest, uint64_t files)
{
    char *line;

    if (!fc || fc->next.failed)
        return;
    /* "run " and three hashes, each after a blank: in place */
    line = fc->next.data + sizeof FACTS_HEADER - 1;
    ctk_hash_fmt(run, line + 4);
    line[20] = ' ';
    ctk_hash_fmt(manifest, line + 21);
    line[37] = ' ';
    ctk_hash_fmt(files, line + 38);
    line[54] = '\n';
}

bool ctk_factcache_write(ctk_factcache_t *fc, ctk_error_t *err)
{
    if (!fc || !fc->have_self || !fc->dir)
        return true;
    if (fc->next.failed) {
        ctk_error_nomem(err);
        return false;
    }
    if (fc->text && fc->len == fc->next.len && memcmp(fc->text, fc->next.data, fc->len) == 0)
        return true;
    return ctk_cache_mkdirs(fc->dir, err) &&
           ctk_write_cache_file(fc->dir, fc->name, fc->next.data, fc->next.len, err);
}