/* sdk.c - the SDK model: versions, verified directories, decisions. SPDX-License-Identifier: MIT */
#include <ctkconf.h>
#include <ctype.h>

#include "sdk.h"
#include "jsonio.h"
#include "proc.h"
#include "trust.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* `nvcc --version` gets this long before it is killed (milliseconds). */
#ifndef NVCC_TIMEOUT_MS
#define NVCC_TIMEOUT_MS 20000
#endif
/* Largest version file / header / nvcc output we read (bytes). */
#define VERSION_FILE_MAX (64 * 1024)
#define VERSION_JSON_MAX (1024 * 1024)
#define HEADER_MAX (16 * 1024 * 1024)
#define NVCC_OUTPUT_MAX (64 * 1024)

/* targets/<arch> directories, the host's own first, spelt out for each
 * subdirectory looked in (no formatting at each load). */
#if defined(__aarch64__)
#define TARGETS(sub) \
    { "targets/sbsa-linux/" sub, "targets/aarch64-linux/" sub, "targets/x86_64-linux/" sub }
#else
#define TARGETS(sub) \
    { "targets/x86_64-linux/" sub, "targets/sbsa-linux/" sub, "targets/aarch64-linux/" sub }
#endif
#define N_ARCHES 3
static const char *const targets_include[N_ARCHES] = TARGETS("include");
static const char *const targets_lib[N_ARCHES] = TARGETS("lib");
static const char *const targets_lib64[N_ARCHES] = TARGETS("lib64");

/* Debian's multiarch library directory name (lib/<multiarch>). */
#if defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#else
#define MULTIARCH "x86_64-linux-gnu"
#endif

/* ---- versions --------------------------------------------------------------- */

/* Up to 9 decimal digits, so the value fits an int. */
static bool parse_uint(const char **p, int *out)
{
    const char *s = *p;
    int v = 0, n = 0;

    while (*s >= '0' && *s <= '9') {
        if (n == 9)
            return false;
        v = v * 10 + (*s - '0');
        s++;
        n++;
    }
    if (n == 0)
        return false;
    *out = v;
    *p = s;
    return true;
}

bool ctk_version_parse(const char *s, int *major, int *minor, int *patch)
{
    int a, b, c = -1;

    if (!s || !parse_uint(&s, &a) || *s++ != '.' || !parse_uint(&s, &b))
        return false;
    if (*s == '.') {
        s++;
        if (!parse_uint(&s, &c))
            return false;
    }
    if (*s != '\0')
        return false;
    if (major)
        *major = a;
    if (minor)
        *minor = b;
    if (patch)
        *patch = c;
    return true;
}

const char *ctk_version_source_name(ctk_version_source_t src)
{
    switch (src) {
    case CTK_VSRC_VERSION_JSON:
        return "version.json";
    case CTK_VSRC_VERSION_TXT:
        return "version.txt";
    case CTK_VSRC_HEADER:
        return "CUDART_VERSION";
    case CTK_VSRC_NVCC:
        return "nvcc --version";
    case CTK_VSRC_NONE:
        break;
    }
    return "none";
}

/* Take the leading "X.Y[.Z]" of s (stops at the first character that is
 * neither a digit nor a dot).  Patches of 1000 and more are build dates
 * ("12.1.20230222"), not patch releases: they give -1. */
static bool parse_release(const char *s, ctk_version_t *out)
{
    char tok[64];
    size_t n = 0;
    int a, b, c;

    while (n < sizeof tok - 1 && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.'))
        n++;
    memcpy(tok, s, n);
    tok[n] = '\0';
    if (!ctk_version_parse(tok, &a, &b, &c))
        return false;
    out->major = a;
    out->minor = b;
    out->patch = c < 1000 ? c : -1;
    return true;
}

static void set_vpath(ctk_version_t *out, const char *path)
{
    snprintf(out->path, sizeof out->path, "%s", path);
}

/* Each try_* returns 1 when the source answered, 0 when it is absent or
 * says nothing usable (the next source is tried), -1 on allocation failure. */
static int try_version_json(const char *root, ctk_version_t *out, ctk_error_t *err)
{
    char *path = ctk_path_join(root, "version.json", err), *text = NULL;
    json_t *doc = NULL;
    json_error_t jerr;
    ctk_error_t rerr;
    const char *v;
    size_t len = 0;
    int rc = 0;

    if (!path)
        return -1;
    if (!ctk_is_file(path))
        goto out;
    /* read as every file of a toolkit is (util.c): a FIFO put in the
     * stat's place cannot hold the read */
    ctk_error_init(&rerr);
    if (!(text = ctk_file_read(path, VERSION_JSON_MAX, &len, &rerr))) {
        if (rerr.code == CTK_E_NOMEM) {
            ctk_error_nomem(err);
            rc = -1;
        } else {
            snprintf(out->passed_over, sizeof out->passed_over, "%.300s: %.200s", path, rerr.text);
        }
        goto out;
    }
    ctk_error_init(&rerr);
    if (!(doc = ctk_json_try_load(text, len, &jerr, &rerr))) {
        if (rerr.code == CTK_E_NOMEM) {
            ctk_error_nomem(err);
            rc = -1;
        } else { /* malformed: the next source is tried, and the user told */
            snprintf(out->passed_over, sizeof out->passed_over, "%s:%d:%d: not valid JSON: %s", path, jerr.line,
                     jerr.column, jerr.text);
        }
        goto out;
    }
    v = json_string_value(json_object_get(json_object_get(doc, "cuda"), "version"));
    if (v && parse_release(v, out)) {
        out->source = CTK_VSRC_VERSION_JSON;
        set_vpath(out, path);
        rc = 1;
    } else {
        snprintf(out->passed_over, sizeof out->passed_over,
                 "%s: no CUDA release in its \"cuda\" \"version\"", path);
    }
out:
    json_decref(doc);
    free(text);
    free(path);
    return rc;
}

/* Read an optional file: 1 with *text set (caller frees), 0 when it is
 * absent or unreadable (the next version source is tried), -1 only when
 * memory ran out. */
static int read_optional(const char *path, size_t max, char **text, ctk_error_t *err)
{
    ctk_error_t rerr;

    *text = NULL;
    if (!ctk_is_file(path))
        return 0;
    ctk_error_init(&rerr);
    *text = ctk_file_read(path, max, NULL, &rerr);
    if (*text)
        return 1;
    if (rerr.code == CTK_E_NOMEM) {
        ctk_error_nomem(err);
        return -1;
    }
    return 0;
}

static int try_version_txt(const char *root, ctk_version_t *out, ctk_error_t *err)
{
    static const char key[] = "CUDA Version ";
    char *path = ctk_path_join(root, "version.txt", err), *text = NULL, *p;
    int rc;

    if (!path)
        return -1;
    rc = read_optional(path, VERSION_FILE_MAX, &text, err);
    if (rc != 1)
        goto out;
    rc = 0;
    p = strstr(text, key);
    if (p && parse_release(p + sizeof key - 1, out)) {
        out->source = CTK_VSRC_VERSION_TXT;
        set_vpath(out, path);
        rc = 1;
    } else if (!out->passed_over[0]) {
        snprintf(out->passed_over, sizeof out->passed_over,
                 "%s: no \"CUDA Version X.Y.Z\" line", path);
    }
out:
    free(text);
    free(path);
    return rc;
}

/* What a reading of a file found (nvcc_banner(), try_header()), by the
 * file's identity and state: a site's toolkits that share one file (links,
 * hard-link copies) read it once per run, and a file changed since (its
 * size, mtime or ctime) is read again.  A table of fixed size: when it is
 * full, files are read each time. */
#define FILE_MEMO_SLOTS 4096
typedef struct {
    bool used;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    int rc, major, minor;
} file_memo_t;
typedef struct {
    file_memo_t slot[FILE_MEMO_SLOTS];
    pthread_mutex_t lock;
} memo_table_t;
static memo_table_t banner_memo = { .lock = PTHREAD_MUTEX_INITIALIZER };
static memo_table_t header_memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool same_file_state(const file_memo_t *m, const struct stat *st)
{
    return m->dev == st->st_dev && m->ino == st->st_ino && m->size == st->st_size &&
           m->mtime.tv_sec == st->st_mtim.tv_sec && m->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           m->ctime.tv_sec == st->st_ctim.tv_sec && m->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* The slot for st's file: its own (*hit) or a free one; NULL: none free.
 * Called with the table's lock held. */
static file_memo_t *memo_slot(memo_table_t *t, const struct stat *st, bool *hit)
{
    size_t i = ((size_t)st->st_ino * 2654435761u ^ (size_t)st->st_dev) % FILE_MEMO_SLOTS;

    for (size_t k = 0; k < FILE_MEMO_SLOTS; k++, i = (i + 1) % FILE_MEMO_SLOTS) {
        file_memo_t *m = &t->slot[i];

        if (!m->used || (m->dev == st->st_dev && m->ino == st->st_ino)) {
            *hit = m->used && same_file_state(m, st);
            return m;
        }
    }
    return NULL;
}

/* What was found in st's file as it is now: true with *rc, *major, *minor. */
static bool memo_get(memo_table_t *t, const struct stat *st, int *rc, int *major, int *minor)
{
    file_memo_t *m;
    bool hit = false;

    pthread_mutex_lock(&t->lock);
    if ((m = memo_slot(t, st, &hit)) && hit) {
        *rc = m->rc;
        *major = m->major;
        *minor = m->minor;
    }
    pthread_mutex_unlock(&t->lock);
    return hit;
}

static void memo_put(memo_table_t *t, const struct stat *st, int rc, int major, int minor)
{
    file_memo_t *m;
    bool hit;

    pthread_mutex_lock(&t->lock);
    if ((m = memo_slot(t, st, &hit))) {
        m->used = true;
        m->dev = st->st_dev;
        m->ino = st->st_ino;
        m->size = st->st_size;
        m->mtime = st->st_mtim;
        m->ctime = st->st_ctim;
        m->rc = rc;
        m->major = rc == 1 ? major : 0;
        m->minor = rc == 1 ? minor : 0;
    }
    pthread_mutex_unlock(&t->lock);
}

/* Finds "#define CUDART_VERSION 12040" (spaces and tabs allowed anywhere
 * between the tokens) in text and reads it as 12.4: major*1000 + minor*10.
 * 1 when found, else 0. */
static int scan_header(const char *text, int *major, int *minor)
{
    static const char name[] = "CUDART_VERSION";
    const char *line;

    for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *s = line;
        int v;

        while (*s == ' ' || *s == '\t')
            s++;
        if (*s++ != '#')
            continue;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, "define", 6) != 0)
            continue;
        s += 6;
        if (*s != ' ' && *s != '\t')
            continue;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, name, sizeof name - 1) != 0)
            continue;
        s += sizeof name - 1;
        if (*s != ' ' && *s != '\t')
            continue;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!parse_uint(&s, &v) || v < 1000)
            continue;
        *major = v / 1000;
        *minor = v % 1000 / 10;
        return 1;
    }
    return 0;
}

/* scan_header() of the regular file path, read as every file of a toolkit
 * is (util.c), once per run for each state of the file (header_memo): 1
 * found, 0 not (absent, unreadable, too large), -1 out of memory. */
static int header_version(const char *path, int *major, int *minor, ctk_error_t *err)
{
    ctk_error_t rerr;
    struct stat st;
    char *text;
    int fd, rc = 0;
    bool known;

    if (!ctk_is_file(path))
        return 0;
    ctk_error_init(&rerr);
    if ((fd = ctk_file_open_regular(path, 0, NULL, &rerr)) < 0)
        goto failed;
    known = fstat(fd, &st) == 0;
    if (known && memo_get(&header_memo, &st, &rc, major, minor)) {
        close(fd);
        return rc;
    }
    text = ctk_file_read_fd(fd, path, HEADER_MAX, NULL, &rerr);
    close(fd);
    if (!text)
        goto failed;
    rc = scan_header(text, major, minor);
    free(text);
    if (known)
        memo_put(&header_memo, &st, rc, *major, *minor);
    return rc;
failed:
    if (rerr.code != CTK_E_NOMEM)
        return 0;
    ctk_error_nomem(err);
    return -1;
}

static int try_header(const char *incdir, ctk_version_t *out, ctk_error_t *err)
{
    char *path = ctk_path_join(incdir, "cuda_runtime_api.h", err);
    int rc, major = 0, minor = 0;

    if (!path)
        return -1;
    rc = header_version(path, &major, &minor, err);
    if (rc == 1) {
        out->major = major;
        out->minor = minor;
        out->patch = -1;
        out->source = CTK_VSRC_HEADER;
        set_vpath(out, path);
    }
    free(path);
    return rc;
}

/* Run argv (no shell; argv[0] a path) with ctkgen's own environment and
 * stdin on /dev/null, through the one process runner (proc.h: its own
 * session, killed with every descendant at the deadline, NVCC_TIMEOUT_MS).
 * 1 when it exited with status 0, with its stdout in *outp (with_stderr:
 * followed by its stderr; caller frees; at most NVCC_OUTPUT_MAX bytes of
 * each); 0 when it could not run, failed, timed out or was interrupted;
 * -1 for want of memory. */
static int run_capture(char *const argv[], bool with_stderr, char **outp, ctk_error_t *err)
{
    ctk_proc_spec_t spec;
    ctk_proc_result_t r;
    ctk_error_t e;
    int rc = 0;

    *outp = NULL;
    memset(&spec, 0, sizeof spec);
    spec.argv = (const char *const *)argv;
    spec.envp = (const char *const *)environ;
    spec.timeout_s = NVCC_TIMEOUT_MS / 1000.0;
    spec.max_output = NVCC_OUTPUT_MAX;
    ctk_proc_result_init(&r);
    ctk_error_init(&e);
    if (!ctk_proc_run(&spec, &r, &e)) {
        if (e.code == CTK_E_NOMEM) {
            ctk_error_nomem(err);
            rc = -1;
        }
    } else if (ctk_proc_ok(&r)) {
        *outp = with_stderr ? ctk_printf(err, "%s%s", r.out, r.err) : ctk_strdup(r.out, err);
        rc = *outp ? 1 : -1;
    }
    ctk_proc_result_fini(&r);
    return rc;
}

/* "Cuda compilation tools, release 12.4, V12.4.131".  With ex->trusted_only,
 * an nvcc ctk_trust_exec() refuses is not run: 0, and ex says why. */
static int try_nvcc(const char *nvcc, ctk_sdk_exec_t *ex, ctk_version_t *out, ctk_error_t *err)
{
    static const char key[] = "release ";
    char *argv[3], *copy = NULL, *text = NULL, *p;
    int rc = 0, r;

    if (!ctk_is_executable(nvcc))
        return 0;
    /* what a program says rests on more than any record can ask again */
    ctk_seen_opaque();
    if (ex && ex->trusted_only && !ctk_trust_exec(nvcc, ex->why, sizeof ex->why)) {
        ex->nvcc_refused = true;
        snprintf(ex->nvcc, sizeof ex->nvcc, "%s", nvcc);
        return 0;
    }
    copy = ctk_strdup(nvcc, err);
    if (!copy)
        return -1;
    argv[0] = copy;
    argv[1] = (char *)"--version";
    argv[2] = NULL;
    r = run_capture(argv, false, &text, err);
    if (r <= 0) {
        rc = r;
        goto out;
    }
    for (p = strstr(text, key); p; p = strstr(p + 1, key)) {
        ctk_version_t v = *out;

        if (parse_release(p + sizeof key - 1, &v)) {
            *out = v;
            out->patch = -1; /* "release X.Y" never says the patch */
            out->source = CTK_VSRC_NVCC;
            set_vpath(out, nvcc);
            rc = 1;
            break;
        }
    }
out:
    free(text);
    free(copy);
    return rc;
}

char *ctk_sdk_nvcc_here(const char *nvcc, ctk_error_t *err)
{
    static const char key[] = "_HERE_=";
    char *argv[] = {NULL, (char *)"-dryrun", (char *)"-E", (char *)"-x", (char *)"cu",
                    (char *)"/dev/null", NULL};
    char *text = NULL, *p, *end, *here = NULL;

    if (!(argv[0] = ctk_strdup(nvcc, err)))
        return NULL;
    if (run_capture(argv, true, &text, err) > 0 && (p = strstr(text, key))) {
        p += sizeof key - 1;
        end = p + strcspn(p, "\r\n");
        if (*p == '/' && end > p)
            here = ctk_strndup(p, (size_t)(end - p), err);
    }
    free(text);
    free(argv[0]);
    return here;
}

static bool version_detect(const char *root, const char *incdir, const char *nvcc, ctk_sdk_exec_t *ex,
                           ctk_version_t *out, ctk_error_t *err)
{
    int r = 0;

    memset(out, 0, sizeof *out);
    out->patch = -1;
    if (root && (r = try_version_json(root, out, err)) != 0)
        goto out;
    if (root && (r = try_version_txt(root, out, err)) != 0)
        goto out;
    if (incdir && (r = try_header(incdir, out, err)) != 0)
        goto out;
    if (nvcc && (r = try_nvcc(nvcc, ex, out, err)) != 0)
        goto out;
    if (ex && ex->nvcc_refused)
        ctk_error_set(err, CTK_E_SDK, NULL, 0, 0,
                      "no version.json or version.txt in %s, no CUDART_VERSION in %s/cuda_runtime_api.h, "
                      "and `%s --version` was not run: another user can change it",
                      root ? root : "(none)", incdir ? incdir : "(none)", nvcc);
    else
        ctk_error_set(err, CTK_E_SDK, NULL, 0, 0,
                      "no version.json or version.txt in %s, no CUDART_VERSION in %s/cuda_runtime_api.h, "
                      "and no release from `%s --version`",
                      root ? root : "(none)", incdir ? incdir : "(none)", nvcc ? nvcc : "nvcc");
out:
    if (r != 1) {
        memset(out, 0, sizeof *out);
        out->patch = -1;
    }
    return r == 1;
}

bool ctk_version_detect(const char *root, const char *incdir, const char *nvcc,
                        ctk_version_t *out, ctk_error_t *err)
{
    return version_detect(root, incdir, nvcc, NULL, out, err);
}

/* ---- looking at directories --------------------------------------------------- */

/* ---- directory listings ------------------------------------------------------
 * The names in a directory, read once per run for each state of it (its
 * identity, mtime and ctime: adding, removing or renaming an entry changes
 * them), sorted, so that the names "lib<stem>.so*" are found by a binary
 * search.  The listing only says which names to look at: what a name is (a
 * regular file after links) is asked each time, of the directory opened
 * for that question.  A table of fixed size: when it is full, a directory
 * is read each time. */
#define DIR_CACHE_SLOTS 256
typedef struct {
    bool used;
    dev_t dev;
    ino_t ino;
    struct timespec mtime, ctime;
    char **names; /* n, sorted by strcmp, in one block with the names */
    size_t n;
} dir_list_t;
static dir_list_t dir_cache[DIR_CACHE_SLOTS];
static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the open directory fd (not "." or ".."), sorted, into l;
 * false when it cannot be read or memory runs out. */
static bool dir_read(int fd, dir_list_t *l)
{
    DIR *d;
    struct dirent *e;
    ctk_buf_t text; /* the names, NUL-separated */
    size_t n = 0, i;
    int dfd = dup(fd);
    char *p;

    if (dfd < 0)
        return false;
    if (!(d = fdopendir(dfd))) {
        close(dfd);
        return false;
    }
    /* fd may have been read before (a dir kept open for a load: its
       offset, shared with dfd, is where that read ended) */
    rewinddir(d);
    ctk_buf_init(&text);
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        ctk_buf_append(&text, e->d_name, strlen(e->d_name) + 1);
        n++;
    }
    closedir(d);
    /* the pointers first, the names after them, in one block */
    l->names = text.failed || n > (SIZE_MAX - text.len - 1) / sizeof *l->names
                   ? NULL
                   : malloc(n * sizeof *l->names + text.len + 1);
    if (!l->names) {
        ctk_buf_fini(&text);
        return false;
    }
    p = (char *)(l->names + n);
    if (text.len)
        memcpy(p, text.data, text.len);
    ctk_buf_fini(&text);
    for (i = 0; i < n; i++) {
        l->names[i] = p;
        p += strlen(p) + 1;
    }
    qsort(l->names, n, sizeof *l->names, name_cmp);
    l->n = n;
    return true;
}

/* The slot of st's directory: its own or a free one; NULL when none is
 * free.  Called with dir_lock held. */
static dir_list_t *dir_slot(const struct stat *st)
{
    size_t i = ((size_t)st->st_ino * 2654435761u ^ (size_t)st->st_dev) % DIR_CACHE_SLOTS;

    for (size_t k = 0; k < DIR_CACHE_SLOTS; k++, i = (i + 1) % DIR_CACHE_SLOTS) {
        dir_list_t *l = &dir_cache[i];

        if (!l->used || (l->dev == st->st_dev && l->ino == st->st_ino))
            return l;
    }
    return NULL;
}

static bool dir_current(const dir_list_t *l, const struct stat *st)
{
    return l->used && l->mtime.tv_sec == st->st_mtim.tv_sec &&
           l->mtime.tv_nsec == st->st_mtim.tv_nsec && l->ctime.tv_sec == st->st_ctim.tv_sec &&
           l->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* A directory or file that could not be opened, for the active record
 * (util.h, ctk_seen_begin): where it is missing, or not a directory, stat
 * answers the same; a refusal (EACCES, ...) no identity explains. */
static void seen_unopened(const char *path, int e)
{
    struct stat st;
    int r;

    if (e != ENOENT && e != ENOTDIR) {
        ctk_seen_opaque();
        return;
    }
    r = stat(path, &st);
    ctk_seen_note(CTK_SEEN_STAT, path, r == 0 ? &st : NULL, r == 0 ? 0 : errno);
}

/* The directory dir_each is visiting, for the record's questions of its
 * entries (is_regular_at). */
static _Thread_local const char *visiting;

/* visit(dfd, name, ud) for each name in dir that starts with prefix, in
 * strcmp order, until it returns true; dfd is dir, open.  False when dir
 * is NULL or cannot be opened or read (or memory runs out). */
typedef bool (*dir_visit_t)(int dfd, const char *name, void *ud);

/* ---- the directories one load has open ----------------------------------
 * A load asks each lib dir about one library after another: the dirs it
 * opened stay open (with what fstat said of them) until the load ends
 * (open_dirs_end), so that each is opened and looked at once per load,
 * as the first answer is the one the load goes by anyway (util.h,
 * ctk_seen_t).  Per thread; outside a load every question opens its dir. */
#define OPEN_DIRS 4
typedef struct {
    char *path; /* NULL: a free slot */
    int fd;
    struct stat st;
} open_dir_t;
static _Thread_local open_dir_t open_dirs[OPEN_DIRS];
static _Thread_local bool open_dirs_on;
static _Thread_local size_t open_dirs_next;

static void open_dirs_begin(void)
{
    open_dirs_on = true;
}

static void open_dirs_end(void)
{
    size_t i;

    for (i = 0; i < OPEN_DIRS; i++) {
        if (open_dirs[i].path) {
            close(open_dirs[i].fd);
            free(open_dirs[i].path);
            open_dirs[i].path = NULL;
        }
    }
    open_dirs_on = false;
}

/* dir opened and fstat'd into *fd and *st: kept (the caller does not close
 * it) when *kept.  false when it cannot be opened or looked at (noted). */
static bool dir_open(const char *dir, int *fd, struct stat *st, bool *kept)
{
    open_dir_t *o;
    size_t i;

    *kept = false;
    for (i = 0; open_dirs_on && i < OPEN_DIRS; i++) {
        if (open_dirs[i].path && strcmp(open_dirs[i].path, dir) == 0) {
            *fd = open_dirs[i].fd;
            *st = open_dirs[i].st;
            *kept = true;
            return true;
        }
    }
    if ((*fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)) < 0) {
        seen_unopened(dir, errno);
        return false;
    }
    if (fstat(*fd, st) != 0) {
        ctk_seen_opaque();
        close(*fd);
        return false;
    }
    /* its identity stands for its entries: adding, removing or renaming
       one changes its mtime and ctime */
    ctk_seen_note(CTK_SEEN_STAT, dir, st, 0);
    if (!open_dirs_on)
        return true;
    o = &open_dirs[open_dirs_next++ % OPEN_DIRS];
    if (o->path) {
        close(o->fd);
        free(o->path);
    }
    if ((o->path = strdup(dir))) {
        o->fd = *fd;
        o->st = *st;
        *kept = true;
    }
    return true;
}

static bool dir_each(const char *dir, const char *prefix, dir_visit_t visit, void *ud)
{
    dir_list_t own = { 0 }, *l;
    struct stat st;
    size_t lo, hi, pl = strlen(prefix);
    int fd;
    bool ok = false, kept;

    if (!dir || !dir_open(dir, &fd, &st, &kept))
        return false;
    pthread_mutex_lock(&dir_lock);
    l = dir_slot(&st);
    if (!l || !dir_current(l, &st)) {
        if (!dir_read(fd, &own))
            goto out;
        if (l) { /* kept, in place of what the slot held */
            free(l->names);
            *l = own;
            l->used = true;
            l->dev = st.st_dev;
            l->ino = st.st_ino;
            l->mtime = st.st_mtim;
            l->ctime = st.st_ctim;
            own.names = NULL;
        } else {
            l = &own;
        }
    }
    ok = true;
    /* the first name not below prefix, then the run that starts with it */
    for (lo = 0, hi = l->n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;

        if (strcmp(l->names[mid], prefix) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    visiting = dir;
    for (; lo < l->n && strncmp(l->names[lo], prefix, pl) == 0; lo++)
        if (visit(fd, l->names[lo], ud))
            break;
    visiting = NULL;
out:
    pthread_mutex_unlock(&dir_lock);
    free(own.names);
    if (!kept)
        close(fd);
    return ok;
}

static bool is_regular_at(int dfd, const char *name)
{
    struct stat st;

    int r = fstatat(dfd, name, &st, 0);

    if (visiting)
        ctk_seen_note_at(CTK_SEEN_STAT, visiting, name, r == 0 ? &st : NULL, r == 0 ? 0 : errno);
    return r == 0 && S_ISREG(st.st_mode);
}

/* "lib<stem>.so" into out (256 bytes): its length, or 0 when it does not fit. */
static size_t lib_prefix(char *out, const char *stem)
{
    size_t sl = strlen(stem);

    if (sl + 7 > 256)
        return 0;
    memcpy(out, "lib", 3);
    memcpy(out + 3, stem, sl);
    memcpy(out + 3 + sl, ".so", 4);
    return sl + 6;
}

typedef struct {
    size_t plen; /* of "lib<stem>.so" */
    bool found;
} lib_seen_t;

static bool visit_lib(int dfd, const char *name, void *ud)
{
    lib_seen_t *a = ud;
    char c = name[a->plen];

    a->found = (c == '\0' || c == '.') && is_regular_at(dfd, name);
    return a->found;
}

/* dir holds lib<stem>.so or lib<stem>.so.<anything> as a file (after links). */
static bool dir_has_lib(const char *dir, const char *stem)
{
    char prefix[256];
    lib_seen_t a = { lib_prefix(prefix, stem), false };

    if (!a.plen)
        return false;
    dir_each(dir, prefix, visit_lib, &a);
    return a.found;
}

static bool visit_regular(int dfd, const char *name, void *ud)
{
    bool *found = ud;

    *found = is_regular_at(dfd, name);
    return *found;
}

/* dir holds a file whose name starts with prefix (for "libnvshmem*"). */
static bool dir_has_prefix(const char *dir, const char *prefix)
{
    bool found = false;

    dir_each(dir, prefix, visit_regular, &found);
    return found;
}

typedef enum { WANT_FILE, WANT_LIB, WANT_PREFIX } want_t;

/* false when it does not, or on allocation failure (then err is set) */
static bool dir_holds(const char *dir, want_t want, const char *what, ctk_error_t *err)
{
    char *p;
    bool ok;

    switch (want) {
    case WANT_LIB:
        return dir_has_lib(dir, what);
    case WANT_PREFIX:
        return dir_has_prefix(dir, what);
    case WANT_FILE:
        break;
    }
    p = ctk_path_join(dir, what, err);
    ok = p && ctk_is_file(p);
    free(p);
    return ok;
}

/* A list of subdirectories to look in, in order. */
typedef struct {
    const char *rel[16];
    size_t n;
} rels_t;

static void rels_add(rels_t *r, const char *s)
{
    if (r->n < sizeof r->rel / sizeof r->rel[0])
        r->rel[r->n++] = s;
}

/* targets/<arch>/<sub> for every arch (one of the TARGETS lists) */
static void rels_add_targets(rels_t *r, const char *const *targets)
{
    size_t i;

    for (i = 0; i < N_ARCHES; i++)
        rels_add(r, targets[i]);
}

static void rels_include(rels_t *r)
{
    memset(r, 0, sizeof *r);
    rels_add(r, "include");
    rels_add_targets(r, targets_include);
}

static void rels_lib(rels_t *r)
{
    memset(r, 0, sizeof *r);
    rels_add(r, "lib64");
    rels_add(r, "lib");
    rels_add_targets(r, targets_lib);
    rels_add_targets(r, targets_lib64);
    rels_add(r, "lib/" MULTIARCH); /* Debian's nvidia-cuda-toolkit, base /usr */
}

/* "include, targets/x86_64-linux/include, ..." for messages (caller frees) */
static char *rels_text(const rels_t *r, ctk_error_t *err)
{
    ctk_buf_t b;
    size_t i;
    char *s;

    ctk_buf_init(&b);
    for (i = 0; i < r->n; i++)
        ctk_buf_printf(&b, "%s%s", i ? ", " : "", r->rel[i]);
    if (b.failed) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    s = ctk_buf_take(&b, NULL);
    if (!s)
        ctk_error_nomem(err);
    return s;
}

/* First root/rel that holds what; NULL when none does (then err is
 * untouched) or on allocation failure (err set). */
static char *find_dir(const char *root, const rels_t *r, want_t want, const char *what,
                      ctk_error_t *err)
{
    size_t i;

    for (i = 0; i < r->n; i++) {
        char *d = ctk_path_join(root, r->rel[i], err);

        if (!d)
            return NULL;
        if (ctk_is_dir(d) && dir_holds(d, want, what, err))
            return d;
        free(d);
        if (ctk_error_is_set(err))
            return NULL;
    }
    return NULL;
}

/* ---- errors ----------------------------------------------------------------- */
typedef struct {
    const ctk_sdk_conf_t *conf;
    const char *source;
    const char *mv;  /* module version, for messages */
    ctk_sdk_exec_t *ex; /* what it may run; NULL: nvcc whenever needed */
    ctk_error_t *err;
} ctx_t;

static const char *field_key(ctk_sdk_field_t f)
{
    switch (f) {
    case CTK_F_VERSION:
        return "/version";
    case CTK_F_NAME:
        return "/name";
    case CTK_F_BASE:
        return "/base";
    case CTK_F_MATH_LIBS:
        return "/math_libs";
    case CTK_F_NVVM:
        return "/nvvm";
    case CTK_F_CUPTI:
        return "/cupti";
    case CTK_F_NCCL:
        return "/comm_libs/nccl";
    case CTK_F_NVSHMEM:
        return "/comm_libs/nvshmem";
    case CTK_F_CCBIN:
        return "/host_compiler/ccbin";
    case CTK_F_SDK:
    case CTK_F__COUNT:
        break;
    }
    return "";
}

/* "<source>:<line>:<col>: /sdks/N/<field>: SDK <mv>: <text>"; just the text
 * for an SDK that does not come from a config file (empty jpath). */
static void sdk_error(ctx_t *c, ctk_errcode_t code, ctk_sdk_field_t f, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sdk_error(ctx_t *c, ctk_errcode_t code, ctk_sdk_field_t f, const char *fmt, ...)
{
    char text[CTK_ERROR_TEXT_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->conf->jpath[0] == '\0') /* not from a config (a scan): no field to name */
        ctk_error_set(c->err, code, c->source, 0, 0, "%s", text);
    else
        ctk_error_set(c->err, code, c->source, c->conf->pos[f].line, c->conf->pos[f].column,
                      "%s%s: SDK %s: %s", c->conf->jpath, field_key(f), c->mv, text);
}

/* root must be a directory; names the field when it is not. */
static bool need_dir(ctx_t *c, ctk_sdk_field_t f, const char *root)
{
    struct stat st;

    int r = stat(root, &st);

    ctk_seen_note(CTK_SEEN_STAT, root, r == 0 ? &st : NULL, r == 0 ? 0 : errno);
    if (r != 0) {
        sdk_error(c, CTK_E_SDK, f, "%s does not exist", root);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        sdk_error(c, CTK_E_SDK, f, "%s is not a directory", root);
        return false;
    }
    return true;
}

/* find_dir, and when required, an error naming what was looked for. */
static bool locate(ctx_t *c, ctk_sdk_field_t f, const char *root, const rels_t *r, want_t want,
                   const char *what, const char *label, bool required, char **out)
{
    char *list;

    *out = find_dir(root, r, want, what, c->err);
    if (*out || ctk_error_is_set(c->err))
        return *out != NULL;
    if (!required)
        return true;
    list = rels_text(r, c->err);
    if (list)
        sdk_error(c, CTK_E_SDK, f, "no %s under %s (looked in %s)", label, root, list);
    free(list);
    return false;
}

/* ---- decisions ------------------------------------------------------------------ */

/* Directories the compiler, the linker, the loader, man or the shell
 * search already (sdk.h says why they stay off the lists). */
static const char *const system_dirs[] = {
    "/usr/bin", "/bin", "/usr/include", "/usr/lib", "/usr/lib64", "/lib", "/lib64",
    "/usr/lib/" MULTIARCH, "/lib/" MULTIARCH, "/usr/share/man",
};

static bool is_system_spelling(const char *dir)
{
    size_t i, n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    for (i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (strlen(system_dirs[i]) == n && strncmp(system_dirs[i], dir, n) == 0)
            return true;
    return false;
}

bool ctk_sdk_is_system_dir(const char *dir)
{
    char *real;
    bool sys;

    if (!dir)
        return false;
    if (is_system_spelling(dir))
        return true;
    real = ctk_realpath(dir);
    sys = real && is_system_spelling(real);
    free(real);
    return sys;
}

static bool is_excluded(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;

    return strcmp(base, "stubs") == 0 || strcmp(base, "compat") == 0;
}

/* Each directory decide() looks at, resolved once per load: its lists
 * and its libraries ask of the same few paths (16 at most: 2 on PATH, 7 on
 * CPATH, 6 lib dirs, the man dir). */
#define RESOLVED_MAX 16
typedef struct {
    const char *dir[RESOLVED_MAX];
    char *real[RESOLVED_MAX]; /* NULL: it does not resolve */
    size_t n;
} resolved_t;

/* realpath(dir), borrowed from r; NULL when it does not resolve, or when
 * memory runs out (then, as for realpath() itself, the dir is left out). */
static const char *resolved(resolved_t *r, const char *dir)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (strcmp(r->dir[i], dir) == 0)
            return r->real[i];
    if (r->n == RESOLVED_MAX) /* more than decide() has: not kept */
        return NULL;
    r->dir[r->n] = dir;
    r->real[r->n] = ctk_realpath(dir);
    return r->real[r->n++];
}

static void resolved_fini(resolved_t *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        free(r->real[i]);
    r->n = 0;
}

/* Append dir to l unless it is NULL, missing, a stubs or compat dir, a
 * system directory (by its spelling or its resolved path), or the same
 * directory (by resolved path, tracked in reals) as one already there. */
static bool add_dir(ctk_strlist_t *l, ctk_strlist_t *reals, resolved_t *res, const char *dir,
                    ctk_error_t *err)
{
    const char *real;

    if (!dir || is_excluded(dir) || is_system_spelling(dir))
        return true;
    real = resolved(res, dir);
    if (!real || !ctk_is_dir(real) || is_excluded(real) || is_system_spelling(real) ||
        ctk_strlist_contains(reals, real))
        return true;
    return ctk_strlist_push(reals, real, err) && ctk_strlist_push(l, dir, err);
}

static bool build_list(ctk_strlist_t *l, const char *const *dirs, size_t n, resolved_t *res,
                       ctk_error_t *err)
{
    ctk_strlist_t reals;
    bool ok = true;
    size_t i;

    ctk_strlist_init(&reals);
    for (i = 0; ok && i < n; i++)
        ok = add_dir(l, &reals, res, dirs[i], err);
    ctk_strlist_fini(&reals);
    return ok;
}

/* Libraries that get their own .pc file, in this order. */
static const struct {
    const char *name;
    const char *stem;   /* lib<stem>.so* */
    const char *stem2;  /* tried when stem is absent, or NULL */
    const char *extra;  /* lib<extra>.so* in the same dir adds -l<extra>, or NULL */
    /* lib<needs>.so*, which the library itself loads (NEEDED) and finds
     * through its own run path ($ORIGIN) only when it sits beside it.  In
     * a split layout (cuSPARSE in math_libs, nvJitLink in the toolkit's
     * lib64) a program's run path does not reach a library's own needs, so
     * the program is linked to it directly: once loaded by the program,
     * the loader reuses it by its soname.  NULL when none. */
    const char *needs;
    const char *label;       /* as people write it, for the modules' whatis */
    const char *description; /* the .pc file's Description */
    bool math;               /* a math library (named as such in whatis) */
} lib_table[] = {
    {"cudart", "cudart", NULL, NULL, NULL, "CUDA runtime", "CUDA Runtime Library", false},
    {"cublas", "cublas", NULL, "cublasLt", NULL, "cuBLAS", "CUDA BLAS Library", true},
    {"cufft", "cufft", NULL, NULL, NULL, "cuFFT", "CUDA Fast Fourier Transform Library", true},
    {"curand", "curand", NULL, NULL, NULL, "cuRAND", "CUDA Random Number Generation Library", true},
    {"cusolver", "cusolver", NULL, NULL, "nvJitLink", "cuSOLVER", "CUDA Direct Solver Library", true},
    {"cusparse", "cusparse", NULL, NULL, "nvJitLink", "cuSPARSE", "CUDA Sparse Matrix Library", true},
    {"nvrtc", "nvrtc", NULL, NULL, NULL, "NVRTC", "CUDA Runtime Compilation Library", false},
    {"cupti", "cupti", NULL, NULL, NULL, "CUPTI", "CUDA Profiling Tools Interface", false},
    {"nvjitlink", "nvJitLink", NULL, NULL, NULL, "nvJitLink", "CUDA JIT Linker Library", false},
    {"nccl", "nccl", NULL, NULL, NULL, "NCCL", "NVIDIA Collective Communication Library", false},
    {"nvshmem", "nvshmem_host", "nvshmem", NULL, NULL, "NVSHMEM", "NVIDIA OpenSHMEM Library", false},
};

const char *ctk_sdk_lib_name(size_t i)
{
    return i < sizeof lib_table / sizeof lib_table[0] ? lib_table[i].name : NULL;
}

bool ctk_sdk_lib_describe(size_t i, ctk_sdk_lib_t *lib)
{
    if (i >= sizeof lib_table / sizeof lib_table[0])
        return false;
    lib->name = lib_table[i].name;
    lib->label = lib_table[i].label;
    lib->description = lib_table[i].description;
    lib->math = lib_table[i].math;
    return true;
}

/* not a stubs or compat dir, by spelling or resolved path */
static bool lib_dir_usable(resolved_t *res, const char *dir)
{
    const char *real;

    if (!dir || is_excluded(dir))
        return false;
    real = resolved(res, dir);
    return real && !is_excluded(real);
}

/* find_libs(), find_versioned() and what they call take the SDK's lib
 * dirs as decide() passes them: NULL in place of one that is not usable
 * (lib_dir_usable()). */

/* Whether lib<needs>.so* is in none of dir, but in another of the SDK's
 * lib dirs (which the ctk .pc puts on -L and the run path). */
static bool needs_elsewhere(const char *needs, const char *dir, const char *const *dirs, size_t n)
{
    size_t i;

    if (!needs || dir_has_lib(dir, needs))
        return false;
    for (i = 0; i < n; i++)
        if (dirs[i] && dir_has_lib(dirs[i], needs))
            return true;
    return false;
}

static bool push_lib(ctk_sdk_t *sdk, size_t t, const char *dir, const char *stem,
                     const char *const *dirs, size_t n, ctk_error_t *err)
{
    ctk_sdk_lib_t *libs, *l;
    bool extra = lib_table[t].extra && dir_has_lib(dir, lib_table[t].extra);
    bool needs = needs_elsewhere(lib_table[t].needs, dir, dirs, n);

    libs = realloc(sdk->libs, (sdk->n_libs + 1) * sizeof *libs);
    if (!libs) {
        ctk_error_nomem(err);
        return false;
    }
    sdk->libs = libs;
    l = &libs[sdk->n_libs];
    memset(l, 0, sizeof *l);
    l->name = lib_table[t].name;
    l->label = lib_table[t].label;
    l->description = lib_table[t].description;
    l->math = lib_table[t].math;
    l->libdir = ctk_strdup(dir, err);
    l->link = ctk_concat(err, "-l", stem, extra ? " -l" : "", extra ? lib_table[t].extra : "",
                         needs ? " -l" : "", needs ? lib_table[t].needs : "", NULL);
    sdk->n_libs++; /* counted even when half filled, so ctk_sdk_free frees it */
    return l->libdir && l->link;
}


/* Look in every lib dir found, system ones included: a library in
 * /usr/lib/<multiarch> still gets its .pc file, though that dir stays off
 * LD_LIBRARY_PATH. */
static bool find_libs(ctk_sdk_t *sdk, const char *const *dirs, size_t n, ctk_error_t *err)
{
    size_t t, i;

    for (t = 0; t < sizeof lib_table / sizeof lib_table[0]; t++) {
        const char *stems[2] = {lib_table[t].stem, lib_table[t].stem2};
        size_t s;
        bool done = false;

        for (s = 0; s < 2 && !done && stems[s]; s++) {
            for (i = 0; i < n && !done; i++) {
                const char *dir = dirs[i];

                if (!dir || !dir_has_lib(dir, stems[s]))
                    continue;
                if (!push_lib(sdk, t, dir, stems[s], dirs, n, err))
                    return false;
                done = true;
            }
        }
    }
    return true;
}

/* What -l and FindCUDAToolkit link by name (CMake's FindCUDAToolkit.cmake:
 * cudart, cuda_driver's stub aside, the math libraries, NPP, nvJPEG,
 * CUPTI, NVRTC, nvJitLink, NVTX, nvml's stub aside), for the toolkit to
 * ship as lib<name>.so.<N> alone. */
static const char *const link_names[] = {
    "cudart", "cublas", "cublasLt", "nvblas", "cufft", "cufftw", "curand", "cusolver",
    "cusolverMg", "cusparse", "nvrtc", "nvJitLink", "nvfatbin", "nvvm", "cupti", "nvToolsExt",
    "nvjpeg", "cufile", "cufile_rdma", "nppc", "nppial", "nppicc", "nppidei", "nppif", "nppig",
    "nppim", "nppist", "nppisu", "nppitc", "npps",
};

const char *ctk_sdk_link_name(size_t i)
{
    return i < sizeof link_names / sizeof link_names[0] ? link_names[i] : NULL;
}

/* Number of the dot-separated components of a version suffix "13" or
 * "13.0.96", 0 when it is not all digits and dots. */
static int version_parts(const char *v)
{
    int n = 1;

    if (!isdigit((unsigned char)*v))
        return 0;
    for (; *v; v++) {
        if (*v == '.') {
            if (!isdigit((unsigned char)v[1]))
                return 0;
            n++;
        } else if (!isdigit((unsigned char)*v)) {
            return 0;
        }
    }
    return n;
}

typedef struct {
    size_t plen;    /* of "lib<name>.so" */
    char pick[256]; /* the best versioned name so far; "" if none */
    int pick_parts, rc;
} versioned_seen_t;

static bool visit_versioned(int dfd, const char *n, void *ud)
{
    versioned_seen_t *a = ud;
    const char *v = n + a->plen;
    int parts = 0;

    if (*v != '\0' && (*v != '.' || !(parts = version_parts(v + 1))))
        return false;
    if (!is_regular_at(dfd, n) || strlen(n) >= sizeof a->pick)
        return false;
    if (*v == '\0') {
        a->rc = 1;
        return true;
    }
    if (!a->pick[0] || parts < a->pick_parts ||
        (parts == a->pick_parts && strverscmp(n, a->pick) > 0)) {
        snprintf(a->pick, sizeof a->pick, "%s", n);
        a->pick_parts = parts;
    }
    return false;
}

/* In dir: 1 when lib<name>.so is a file (after links), 2 when only
 * versioned files lib<name>.so.<N...> are (*best: the one with the fewest
 * version parts, its soname's form, the highest of those; caller frees),
 * 0 when neither, -1 on allocation failure. */
static int versioned_in(const char *dir, const char *name, char **best, ctk_error_t *err)
{
    char prefix[256];
    versioned_seen_t a;

    *best = NULL;
    memset(&a, 0, sizeof a);
    if (!(a.plen = lib_prefix(prefix, name)))
        return 0;
    if (!dir_each(dir, prefix, visit_versioned, &a))
        return 0;
    if (a.rc == 0 && a.pick[0]) {
        if (!(*best = ctk_path_join(dir, a.pick, err)))
            return -1;
        a.rc = 2;
    }
    return a.rc;
}

/* The libraries of link_names found in the first of the SDK's lib dirs
 * that holds them under versioned names alone. */
static bool find_versioned(ctk_sdk_t *sdk, const char *const *dirs, size_t n, ctk_error_t *err)
{
    size_t t, i;

    for (t = 0; t < sizeof link_names / sizeof link_names[0]; t++) {
        int r = 0;

        for (i = 0; i < n && r == 0; i++) {
            ctk_sdk_versioned_t *v;
            char *file = NULL;

            if (!dirs[i])
                continue;
            r = versioned_in(dirs[i], link_names[t], &file, err);
            if (r < 0)
                return false;
            if (r != 2)
                continue;
            v = realloc(sdk->versioned, (sdk->n_versioned + 1) * sizeof *v);
            if (!v) {
                free(file);
                ctk_error_nomem(err);
                return false;
            }
            sdk->versioned = v;
            v[sdk->n_versioned].name = link_names[t];
            v[sdk->n_versioned].file = file;
            sdk->n_versioned++;
        }
    }
    return true;
}

/* ---- the record --------------------------------------------------------------------- */

static char *join(const char *a, const char *b, ctk_error_t *err)
{
    return ctk_path_join(a, b, err);
}

/* dir when it is a directory, else NULL (and free it). */
static char *keep_dir(char *dir)
{
    if (dir && !ctk_is_dir(dir)) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* CUDA 13 keeps Thrust, CUB and libcu++ under include/cccl; nvcc adds that
 * dir itself, a host compiler finds <thrust/...> or <cuda/std/...> only
 * through CPATH or -I. */
static bool find_cccl(ctk_sdk_t *sdk, ctk_error_t *err)
{
    static const char *const parts[] = {"cuda", "thrust", "cub"};
    char *dir = join(sdk->incdir, "cccl", err), *p;
    size_t i;
    bool found = false;

    if (!dir)
        return false;
    for (i = 0; i < sizeof parts / sizeof parts[0] && !found; i++) {
        if (!(p = join(dir, parts[i], err))) {
            free(dir);
            return false;
        }
        found = ctk_is_dir(p);
        free(p);
    }
    if (found)
        sdk->cccl_incdir = dir;
    else
        free(dir);
    return true;
}

static bool load_base(ctx_t *c, ctk_sdk_t *sdk)
{
    const ctk_sdk_conf_t *conf = c->conf;
    rels_t r;
    char *stubs = NULL, *man = NULL;
    bool ok = false;

    if (!need_dir(c, CTK_F_BASE, conf->base))
        goto out;
    if (!(sdk->root = ctk_strdup(conf->base, c->err)) ||
        !(sdk->bindir = join(conf->base, "bin", c->err)) ||
        !(sdk->nvcc = join(sdk->bindir, "nvcc", c->err)))
        goto out;
    if (!ctk_is_executable(sdk->nvcc)) {
        sdk_error(c, CTK_E_SDK, CTK_F_BASE, "no executable bin/nvcc under %s", conf->base);
        goto out;
    }
    rels_include(&r);
    if (!locate(c, CTK_F_BASE, conf->base, &r, WANT_FILE, "cuda_runtime.h", "cuda_runtime.h",
                true, &sdk->incdir))
        goto out;
    if (!find_cccl(sdk, c->err))
        goto out;
    rels_lib(&r);
    if (!locate(c, CTK_F_BASE, conf->base, &r, WANT_LIB, "cudart", "libcudart.so*", true,
                &sdk->libdir))
        goto out;
    if (!(stubs = join(sdk->libdir, "stubs", c->err)))
        goto out;
    if (ctk_is_dir(stubs) && dir_has_lib(stubs, "cuda")) {
        sdk->stubsdir = stubs;
        stubs = NULL;
    }
    if (!(man = join(conf->base, "doc/man", c->err)))
        goto out;
    if (!ctk_is_dir(man)) {
        free(man);
        if (!(man = join(conf->base, "share/man", c->err)))
            goto out;
    }
    sdk->mandir = keep_dir(man);
    man = NULL;
    ok = true;
out:
    free(stubs);
    free(man);
    return ok;
}

/* ---- parts out of step ------------------------------------------------------------ */
/* One part's word on the release. */
typedef struct {
    char what[640]; /* "nvcc --version (/x/bin/nvcc)", "nvidia_nvvm-13.5.37.dist-info" */
    int major, minor;
} part_t;

typedef struct {
    part_t p[24];
    size_t n;
    char dist[1024]; /* where the dist-info found are; "" if none */
} parts_t;

/* by release, then name; |result| 2 when the releases differ, 1 when only the names */
static int part_cmp(const void *a, const void *b)
{
    const part_t *x = a, *y = b;
    int c;

    if (x->major != y->major)
        return x->major < y->major ? -2 : 2;
    if (x->minor != y->minor)
        return x->minor < y->minor ? -2 : 2;
    c = strcmp(x->what, y->what);
    return c < 0 ? -1 : c > 0;
}

static void parts_add(parts_t *ps, int major, int minor, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void parts_add(parts_t *ps, int major, int minor, const char *fmt, ...)
{
    va_list ap;

    if (ps->n >= sizeof ps->p / sizeof ps->p[0])
        return;
    va_start(ap, fmt);
    vsnprintf(ps->p[ps->n].what, sizeof ps->p[ps->n].what, fmt, ap);
    va_end(ap);
    ps->p[ps->n].major = major;
    ps->p[ps->n].minor = minor;
    ps->n++;
}

/* The wheels whose version is the CUDA release's (cuBLAS, cuFFT, CCCL...
 * have their own numbering). */
static const char *const step_wheels[] = {
    "nvidia_cuda_nvcc", "nvidia_cuda_runtime", "nvidia_cuda_crt", "nvidia_nvvm",
    "nvidia_cuda_nvrtc", "nvidia_cuda_cupti",
};

/* "nvidia_nvvm-13.5.37.dist-info" (or, in an assembled tree's dist-info/,
 * "nvidia_nvvm-13.5.37"): a wheel of step_wheels, with its release. */
static bool wheel_release(const char *name, int *major, int *minor)
{
    const char *dash = strchr(name, '-'), *p;
    size_t i, wl = dash ? (size_t)(dash - name) : 0;

    if (!dash)
        return false;
    for (i = 0; i < sizeof step_wheels / sizeof step_wheels[0]; i++) {
        size_t sl = strlen(step_wheels[i]);

        if (strncmp(name, step_wheels[i], sl) != 0)
            continue;
        /* the CUDA 12 and 11 names: nvidia_cuda_runtime_cu12 */
        if (sl == wl || (wl > sl + 3 && strncmp(name + sl, "_cu", 3) == 0 &&
                         strspn(name + sl + 3, "0123456789") == wl - sl - 3))
            break;
    }
    if (i == sizeof step_wheels / sizeof step_wheels[0])
        return false;
    p = dash + 1;
    {
        char *end;

        if (!isdigit((unsigned char)*p))
            return false;
        *major = (int)strtol(p, &end, 10);
        if (*end != '.' || !isdigit((unsigned char)end[1]))
            return false;
        *minor = (int)strtol(end + 1, NULL, 10);
    }
    return true;
}

static void wheels_in(parts_t *ps, const char *dir, bool suffix)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    struct dirent *e;
    DIR *d;

    if (fd < 0) {
        seen_unopened(dir, errno);
        return;
    }
    if (fstat(fd, &st) != 0)
        ctk_seen_opaque();
    else
        ctk_seen_note(CTK_SEEN_STAT, dir, &st, 0);
    if (!(d = fdopendir(fd))) {
        ctk_seen_opaque();
        close(fd);
        return;
    }
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        int ma, mi;

        if (suffix && (n < 10 || strcmp(e->d_name + n - 10, ".dist-info") != 0))
            continue;
        if (wheel_release(e->d_name, &ma, &mi)) {
            parts_add(ps, ma, mi, "%s%s", e->d_name, suffix ? "" : ".dist-info");
            if (!ps->dist[0])
                snprintf(ps->dist, sizeof ps->dist, "%s", dir);
        }
    }
    closedir(d);
}

/* pip's tree: base is <site-packages>/nvidia/<dir>, the dist-infos in <site-packages>. */
static bool wheel_parts(parts_t *ps, const char *base, ctk_error_t *err)
{
    char *copy = ctk_strdup(base, err), *slash, *dist;

    if (!copy)
        return false;
    while ((slash = strrchr(copy, '/')) && slash[1] == '\0' && slash != copy)
        *slash = '\0';
    if ((slash = strrchr(copy, '/')) && slash != copy) {
        *slash = '\0';
        if ((slash = strrchr(copy, '/')) && strcmp(slash + 1, "nvidia") == 0) {
            *slash = '\0';
            wheels_in(ps, copy[0] ? copy : "/", true);
        }
    }
    free(copy);
    if (!(dist = ctk_path_join(base, "dist-info", err)))
        return false;
    wheels_in(ps, dist, false);
    free(dist);
    return true;
}

/* Largest nvcc executable searched for its banner (bytes). */
#define NVCC_BANNER_MAX (256L * 1024 * 1024)

static int scan_banner(FILE *f, long limit, int *major, int *minor);
static bool rodata_range(FILE *f, long *off, long *len);

/* nvcc's release as its executable holds it: the literal "Cuda compilation
 * tools, release X.Y, VX.Y.Z" that `nvcc --version` prints, read, never
 * run (a hung or hostile nvcc cannot stall or harm the load, and no trust
 * is needed to read).  1 found, 0 not (a wrapper script, unreadable), -1
 * out of memory. */
static int nvcc_banner(const char *nvcc, int *major, int *minor)
{
    struct stat st;
    FILE *f;
    int rc = 0;

    {
        /* a regular file only: a FIFO named nvcc must not block the load */
        int fd = open(nvcc, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

        if (fd < 0) {
            seen_unopened(nvcc, errno);
            return 0;
        }
        if (fstat(fd, &st) != 0) {
            ctk_seen_opaque();
            close(fd);
            return 0;
        }
        ctk_seen_note(CTK_SEEN_STAT, nvcc, &st, 0); /* its bytes: what the banner is read from */
        if (!S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))) {
            close(fd);
            return 0;
        }
    }
    if (memo_get(&banner_memo, &st, &rc, major, minor)) {
        fclose(f);
        return rc;
    }
    {
        long off, len;

        /* the banner is a string literal: an ELF nvcc keeps it in .rodata,
         * a tenth of the file; the whole file where that finds none */
        if (rodata_range(f, &off, &len) && fseek(f, off, SEEK_SET) == 0)
            rc = scan_banner(f, len, major, minor);
        if (rc == 0 && fseek(f, 0, SEEK_SET) == 0)
            rc = scan_banner(f, NVCC_BANNER_MAX, major, minor);
    }
    fclose(f);
    if (rc >= 0)
        memo_put(&banner_memo, &st, rc, *major, *minor);
    return rc;
}

/* Where the ELF file f keeps .rodata: false when f is no 64-bit ELF file
 * of this machine's byte order, or has none. */
static bool rodata_range(FILE *f, long *off, long *len)
{
    static const uint16_t one = 1;
    const unsigned char order = *(const unsigned char *)&one ? ELFDATA2LSB : ELFDATA2MSB;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    size_t n;
    bool found = false;

    if (fseek(f, 0, SEEK_SET) != 0 || fread(&eh, 1, sizeof eh, f) != sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != order || eh.e_shentsize != sizeof *sh || eh.e_shnum == 0 ||
        eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > (Elf64_Off)LONG_MAX)
        return false;
    n = eh.e_shnum;
    if (!(sh = malloc(n * sizeof *sh)) || fseek(f, (long)eh.e_shoff, SEEK_SET) != 0 ||
        fread(sh, sizeof *sh, n, f) != n)
        goto out;
    {
        const Elf64_Shdr *st = &sh[eh.e_shstrndx];

        if (st->sh_size == 0 || st->sh_size > 1 << 20 || st->sh_offset > (Elf64_Off)LONG_MAX ||
            !(names = malloc(st->sh_size + 1)) || fseek(f, (long)st->sh_offset, SEEK_SET) != 0 ||
            fread(names, 1, st->sh_size, f) != st->sh_size)
            goto out;
        names[st->sh_size] = '\0';
        for (size_t i = 0; i < n && !found; i++)
            if (sh[i].sh_name < st->sh_size && strcmp(names + sh[i].sh_name, ".rodata") == 0 &&
                sh[i].sh_type == SHT_PROGBITS && sh[i].sh_offset <= (Elf64_Off)LONG_MAX &&
                sh[i].sh_size <= (Elf64_Xword)NVCC_BANNER_MAX) {
                *off = (long)sh[i].sh_offset;
                *len = (long)sh[i].sh_size;
                found = true;
            }
    }
out:
    free(sh);
    free(names);
    return found;
}

/* nvcc_banner()'s reading of the open file f, from where it stands, of
 * at most limit bytes (not closed here). */
static int scan_banner(FILE *f, long limit, int *major, int *minor)
{
    static const char key[] = "Cuda compilation tools, release ";
    const size_t kl = sizeof key - 1, chunk = 256 << 10;
    const size_t comma = sizeof "Cuda compilation tools" - 1; /* the key's ',' */
    char *buf;
    size_t have = 0, n;
    long total = 0;
    int rc = 0;

    if (!(buf = malloc(chunk + 64)))
        return -1;
    while (rc == 0 && total < limit &&
           (n = fread(buf + have, 1, (size_t)((long)(chunk + 64 - have) < limit - total ? (long)(chunk + 64 - have) : limit - total), f)) > 0) {
        char *p = buf, *end;

        total += (long)n;
        have += n;
        end = buf + have;
        /* the first banner with room after it for the release (one nearer
         * the end is found again in the tail kept for the next read), found
         * by its comma: far rarer in an executable than its first letter */
        for (p = buf + comma; p < end && (p = memchr(p, ',', (size_t)(end - p))); p++) {
            char tmp[16], *q, *k = p - comma; /* where the banner would start */
            size_t t = 0;

            if ((size_t)(end - k) < kl + 8)
                break;
            if (memcmp(k, key, kl) != 0)
                continue;
            for (q = k + kl; q < end && t + 1 < sizeof tmp && (isdigit((unsigned char)*q) || *q == '.'); q++)
                tmp[t++] = *q;
            tmp[t] = '\0';
            if (ctk_version_parse(tmp, major, minor, NULL))
                rc = 1;
            break;
        }
        /* keep the tail: the banner may straddle two reads */
        if (rc == 0 && have > kl + 16) {
            memmove(buf, buf + have - (kl + 16), kl + 16);
            have = kl + 16;
        }
    }
    free(buf);
    return rc;
}

/* Each part of the toolkit that says its release into ps: the runtime
 * header, nvcc (its --version, or the banner in its file), and a wheel's
 * dist-info.  false only for want of memory. */
static bool gather_parts(ctx_t *c, ctk_sdk_t *sdk, parts_t *ps)
{
    const ctk_version_t *v = &sdk->version;
    ctk_version_t hv;
    ctk_error_t e;

    ctk_error_init(&e);
    memset(&hv, 0, sizeof hv);
    if (sdk->incdir && try_header(sdk->incdir, &hv, &e) == 1)
        parts_add(ps, hv.major, hv.minor, "CUDART_VERSION (%s)", hv.path);
    if (v->source == CTK_VSRC_NVCC) {
        parts_add(ps, v->major, v->minor, "nvcc --version (%s)", v->path);
    } else if (sdk->nvcc) {
        int ma = 0, mi = 0, r = nvcc_banner(sdk->nvcc, &ma, &mi);

        if (r < 0) {
            ctk_error_nomem(c->err);
            return false;
        }
        if (r > 0)
            parts_add(ps, ma, mi, "nvcc (%s: \"release %d.%d\")", sdk->nvcc, ma, mi);
    }
    if (e.code == CTK_E_NOMEM || !wheel_parts(ps, c->conf->base, c->err)) {
        ctk_error_nomem(c->err);
        return false;
    }
    return true;
}

/* Parts of different releases, grouped by release, the smaller groups
 * (the odd ones) first, into b: "12.4: nvcc (...); 13.0: ..., ...". */
static void describe_releases(parts_t *ps, ctk_buf_t *b)
{
    size_t k, m, order[24], n_order = 0;

    qsort(ps->p, ps->n, sizeof ps->p[0], part_cmp);
    for (k = 0; k < ps->n; k++)
        if (k == 0 || part_cmp(&ps->p[k - 1], &ps->p[k]) / 2 != 0)
            order[n_order++] = k;
    for (m = 1; m <= ps->n; m++) {
        for (k = 0; k < n_order; k++) {
            size_t g = order[k], end = k + 1 < n_order ? order[k + 1] : ps->n, x;

            if (end - g != m)
                continue;
            ctk_buf_printf(b, "%s%d.%d: ", b->len ? "; " : "", ps->p[g].major, ps->p[g].minor);
            for (x = g; x < end; x++)
                ctk_buf_printf(b, "%s%s", x > g ? ", " : "", ps->p[x].what);
        }
    }
    if (ps->dist[0])
        ctk_buf_printf(b, " (the dist-info in %s)", ps->dist);
}

/* The parts agree: a version file that says otherwise is noted in
 * v->out_of_step (a warning; the file is taken). */
static bool note_version_file(ctx_t *c, ctk_version_t *v, const parts_t *ps)
{
    char *t;

    if (!ps->n || (v->source != CTK_VSRC_VERSION_JSON && v->source != CTK_VSRC_VERSION_TXT) ||
        (v->major == ps->p[0].major && v->minor == ps->p[0].minor))
        return true;
    t = ctk_printf(c->err, "%s says CUDA %d.%d, but %s%s say%s %d.%d: the version file is "
                   "taken; correct it, or the module is named for a release it does not hold",
                   v->path, v->major, v->minor, ps->p[0].what, ps->n > 1 ? " and the other parts" : "",
                   ps->n > 1 ? "" : "s", ps->p[0].major, ps->p[0].minor);
    if (!t)
        return false;
    snprintf(v->out_of_step, sizeof v->out_of_step, "%s", t);
    free(t);
    return true;
}

/* Every part that says a release, and the version files; parts that
 * disagree fail the load, a version file alone a warning. */
static bool check_in_step(ctx_t *c, ctk_sdk_t *sdk)
{
    parts_t *ps = malloc(sizeof *ps); /* 16 KB: the entries are written as they are added */
    ctk_buf_t b;
    bool ok = false, differ = false;

    if (!ps) {
        ctk_error_nomem(c->err);
        return false;
    }
    ps->n = 0;
    ps->dist[0] = '\0';
    ctk_buf_init(&b);
    if (!gather_parts(c, sdk, ps))
        goto out;
    for (size_t i = 1; i < ps->n; i++)
        differ |= ps->p[i].major != ps->p[0].major || ps->p[i].minor != ps->p[0].minor;
    if (!differ) {
        ok = note_version_file(c, &sdk->version, ps);
        goto out;
    }
    describe_releases(ps, &b);
    if (b.failed)
        ctk_error_nomem(c->err);
    else
        sdk_error(c, CTK_E_SDK, CTK_F_BASE,
                  "the parts of the toolkit at %s are of different CUDA releases: nvcc, its headers, "
                  "NVVM and the runtime must be one (reinstall the odd ones, or point base at a whole "
                  "toolkit): %s",
                  c->conf->base, b.data);
out:
    ctk_buf_fini(&b);
    free(ps);
    return ok;
}

static bool check_version(ctx_t *c, ctk_sdk_t *sdk)
{
    const ctk_sdk_conf_t *conf = c->conf;
    ctk_version_t *v = &sdk->version;
    ctk_error_t verr;
    char have[48], from[sizeof v->path + 16];
    int dmaj, dmin, dpat;

    ctk_error_init(&verr);
    if (!version_detect(conf->base, sdk->incdir, sdk->nvcc, c->ex, v, &verr)) {
        if (verr.code == CTK_E_NOMEM)
            ctk_error_nomem(c->err);
        else
            sdk_error(c, CTK_E_SDK, CTK_F_BASE, "cannot tell which CUDA release %s is: %s",
                      conf->base, verr.text);
        return false;
    }
    if (!check_in_step(c, sdk))
        return false;
    if (!(sdk->version_mm = ctk_printf(c->err, "%d.%d", v->major, v->minor)))
        return false;
    if (v->patch >= 0 &&
        !(sdk->version_full = ctk_printf(c->err, "%d.%d.%d", v->major, v->minor, v->patch)))
        return false;
    if (!conf->version)
        return true; /* nothing declared (a scan): the toolkit's own word stands */
    if (!ctk_version_parse(conf->version, &dmaj, &dmin, &dpat)) {
        sdk_error(c, CTK_E_VERSION, CTK_F_VERSION, "\"%s\" is not a CUDA release (X.Y or X.Y.Z)",
                  conf->version);
        return false;
    }
    /* a declared patch is checked only against a toolkit that knows its own */
    if (dmaj == v->major && dmin == v->minor && (dpat < 0 || v->patch < 0 || dpat == v->patch))
        return true;
    snprintf(have, sizeof have, "%s", sdk->version_full ? sdk->version_full : sdk->version_mm);
    if (v->source == CTK_VSRC_NVCC)
        snprintf(from, sizeof from, "%s --version", v->path);
    else
        snprintf(from, sizeof from, "%s", v->path);
    if (strcmp(c->mv, conf->version) != 0)
        ctk_error_set(c->err, CTK_E_VERSION, c->source, conf->pos[CTK_F_VERSION].line,
                      conf->pos[CTK_F_VERSION].column,
                      "%s/version: SDK %s declared %s but the toolkit at %s is %s (from %s)",
                      conf->jpath, c->mv, conf->version, conf->base, have, from);
    else
        ctk_error_set(c->err, CTK_E_VERSION, c->source, conf->pos[CTK_F_VERSION].line,
                      conf->pos[CTK_F_VERSION].column,
                      "%s/version: SDK declared %s but the toolkit at %s is %s (from %s)",
                      conf->jpath, conf->version, conf->base, have, from);
    return false;
}

/* cuBLAS: configured root (required) or base (optional). */
static bool load_math(ctx_t *c, ctk_sdk_t *sdk)
{
    const char *root = c->conf->math_libs ? c->conf->math_libs : c->conf->base;
    bool req = c->conf->math_libs != NULL;
    rels_t r;

    if (req && !need_dir(c, CTK_F_MATH_LIBS, root))
        return false;
    rels_include(&r);
    if (!locate(c, CTK_F_MATH_LIBS, root, &r, WANT_FILE, "cublas_v2.h", "cublas_v2.h", req,
                &sdk->math_incdir) &&
        ctk_error_is_set(c->err))
        return false;
    rels_lib(&r);
    if (!locate(c, CTK_F_MATH_LIBS, root, &r, WANT_LIB, "cublas", "libcublas.so*", req,
                &sdk->math_libdir) &&
        ctk_error_is_set(c->err))
        return false;
    return true;
}

/* root holds bin/cicc or libdevice/; an error naming the field when not */
static bool nvvm_parts(ctx_t *c, const char *root)
{
    char *p;
    bool ok;

    if (!(p = join(root, "bin/cicc", c->err)))
        return false;
    ok = access(p, X_OK) == 0;
    ctk_seen_note(CTK_SEEN_EXEC, p, NULL, ok ? 0 : errno);
    free(p);
    if (!ok) {
        if (!(p = join(root, "libdevice", c->err)))
            return false;
        ok = ctk_is_dir(p);
        free(p);
    }
    if (!ok)
        sdk_error(c, CTK_E_SDK, CTK_F_NVVM,
                  "no NVVM under %s (looked for lib64/libnvvm.so*, lib/libnvvm.so*, "
                  "include/nvvm.h, bin/cicc, libdevice/)",
                  root);
    return ok;
}

static bool load_nvvm(ctx_t *c, ctk_sdk_t *sdk)
{
    const char *conf_root = c->conf->nvvm;
    char *d;

    if (conf_root) {
        if (!need_dir(c, CTK_F_NVVM, conf_root))
            return false;
        sdk->nvvm_root = ctk_strdup(conf_root, c->err);
    } else {
        sdk->nvvm_root = join(c->conf->base, "nvvm", c->err);
    }
    if (!sdk->nvvm_root)
        return false;
    if (!ctk_is_dir(sdk->nvvm_root)) {
        free(sdk->nvvm_root);
        sdk->nvvm_root = NULL;
        return true;
    }
    if (!(d = join(sdk->nvvm_root, "lib64", c->err)))
        return false;
    if (!dir_has_lib(d, "nvvm")) {
        free(d);
        if (!(d = join(sdk->nvvm_root, "lib", c->err)))
            return false;
        if (!dir_has_lib(d, "nvvm")) {
            free(d);
            d = NULL;
        }
    }
    sdk->nvvm_libdir = d;
    if (!(d = join(sdk->nvvm_root, "include", c->err)))
        return false;
    if (!dir_holds(d, WANT_FILE, "nvvm.h", c->err)) {
        free(d);
        if (ctk_error_is_set(c->err))
            return false;
        d = NULL;
    }
    sdk->nvvm_incdir = d;
    /* named in the config: it must be an NVVM tree (a wheel-assembled one keeps
       only bin/cicc and libdevice/ there, libnvvm sitting in the toolkit's lib/) */
    if (conf_root && !sdk->nvvm_libdir && !sdk->nvvm_incdir && !nvvm_parts(c, conf_root))
        return false;
    return true;
}

static bool load_cupti(ctx_t *c, ctk_sdk_t *sdk)
{
    const char *root = c->conf->cupti ? c->conf->cupti : c->conf->base;
    bool req = c->conf->cupti != NULL;
    rels_t r;

    if (req && !need_dir(c, CTK_F_CUPTI, root))
        return false;
    memset(&r, 0, sizeof r);
    rels_add(&r, "extras/CUPTI/include");
    rels_add(&r, "include");
    rels_add_targets(&r, targets_include);
    if (!locate(c, CTK_F_CUPTI, root, &r, WANT_FILE, "cupti.h", "cupti.h", req,
                &sdk->cupti_incdir) &&
        ctk_error_is_set(c->err))
        return false;
    memset(&r, 0, sizeof r);
    rels_add(&r, "extras/CUPTI/lib64");
    rels_add(&r, "extras/CUPTI/lib");
    rels_add(&r, "lib64");
    rels_add(&r, "lib");
    rels_add_targets(&r, targets_lib);
    rels_add_targets(&r, targets_lib64);
    rels_add(&r, "lib/" MULTIARCH);
    if (!locate(c, CTK_F_CUPTI, root, &r, WANT_LIB, "cupti", "libcupti.so*", req,
                &sdk->cupti_libdir) &&
        ctk_error_is_set(c->err))
        return false;
    return true;
}

/* NCCL / NVSHMEM: only where configured, and then required. */
static bool load_comm(ctx_t *c, ctk_sdk_field_t f, const char *root, const char *header,
                      want_t lwant, const char *lwhat, const char *llabel, char **incdir,
                      char **libdir)
{
    rels_t r;

    if (!root)
        return true;
    if (!need_dir(c, f, root))
        return false;
    memset(&r, 0, sizeof r);
    rels_add(&r, "include");
    if (!locate(c, f, root, &r, WANT_FILE, header, header, true, incdir))
        return false;
    memset(&r, 0, sizeof r);
    rels_add(&r, "lib");
    rels_add(&r, "lib64");
    return locate(c, f, root, &r, lwant, lwhat, llabel, true, libdir);
}

static bool decide(ctk_sdk_t *sdk, ctk_error_t *err)
{
    const char *path[] = {sdk->bindir, sdk->nvshmem_bindir};
    const char *cpath[] = {sdk->incdir, sdk->cccl_incdir, sdk->math_incdir, sdk->cupti_incdir,
                           sdk->nvvm_incdir, sdk->nccl_incdir, sdk->nvshmem_incdir};
    const char *libs[] = {sdk->libdir, sdk->math_libdir, sdk->cupti_libdir,
                          sdk->nvvm_libdir, sdk->nccl_libdir, sdk->nvshmem_libdir};
    const char *man[] = {sdk->mandir};
    const char *usable[6];
    resolved_t res;
    size_t i;
    bool ok;

    res.n = 0;
    for (i = 0; i < 6; i++)
        usable[i] = lib_dir_usable(&res, libs[i]) ? libs[i] : NULL;
    ok = build_list(&sdk->path, path, 2, &res, err) && build_list(&sdk->cpath, cpath, 7, &res, err) &&
         build_list(&sdk->ld_library_path, libs, 6, &res, err) &&
         build_list(&sdk->library_path, libs, 6, &res, err) &&
         build_list(&sdk->manpath, man, 1, &res, err) && find_libs(sdk, usable, 6, err) &&
         find_versioned(sdk, usable, 6, err);
    resolved_fini(&res);
    return ok;
}

ctk_sdk_t *ctk_sdk_load(const ctk_sdk_conf_t *conf, const char *config_source, ctk_error_t *err)
{
    return ctk_sdk_load_ex(conf, config_source, NULL, err);
}

/* An empty record for conf; NULL for want of memory. */
static ctk_sdk_t *sdk_new(const ctk_sdk_conf_t *conf, ctk_error_t *err)
{
    ctk_sdk_t *sdk = calloc(1, sizeof *sdk);

    if (!sdk) {
        ctk_error_nomem(err);
        return NULL;
    }
    sdk->conf = conf;
    ctk_strlist_init(&sdk->path);
    ctk_strlist_init(&sdk->ld_library_path);
    ctk_strlist_init(&sdk->library_path);
    ctk_strlist_init(&sdk->cpath);
    ctk_strlist_init(&sdk->manpath);
    return sdk;
}

/* The parts beyond the base: math libraries, NVVM, CUPTI, NCCL and
 * NVSHMEM (bin too), each where the config or the layout puts it. */
static bool load_parts(ctx_t *c, ctk_sdk_t *sdk)
{
    const ctk_sdk_conf_t *conf = c->conf;

    if (!load_math(c, sdk) || !load_nvvm(c, sdk) || !load_cupti(c, sdk) ||
        !load_comm(c, CTK_F_NCCL, conf->nccl, "nccl.h", WANT_LIB, "nccl", "libnccl.so*", &sdk->nccl_incdir,
                   &sdk->nccl_libdir) ||
        !load_comm(c, CTK_F_NVSHMEM, conf->nvshmem, "nvshmem.h", WANT_PREFIX, "libnvshmem", "libnvshmem*",
                   &sdk->nvshmem_incdir, &sdk->nvshmem_libdir))
        return false;
    if (conf->nvshmem) {
        if (!(sdk->nvshmem_bindir = join(conf->nvshmem, "bin", c->err)))
            return false;
        sdk->nvshmem_bindir = keep_dir(sdk->nvshmem_bindir);
    }
    return true;
}

ctk_sdk_t *ctk_sdk_load_ex(const ctk_sdk_conf_t *conf, const char *config_source, ctk_sdk_exec_t *ex,
                           ctk_error_t *err)
{
    ctk_sdk_t *sdk = NULL;
    ctk_error_t e;
    ctx_t c;
    bool ok = false;

    ctk_error_init(&e);
    if (ex) {
        ex->nvcc_refused = false;
        ex->nvcc[0] = ex->why[0] = '\0';
    }
    c.ex = ex;
    c.conf = conf;
    c.source = config_source;
    /* what messages call the SDK: its module version; a scan has none yet */
    c.mv = conf->module_version ? conf->module_version
           : conf->version      ? conf->version
           : conf->base         ? conf->base
                                : "?";
    c.err = &e;
    open_dirs_begin();
    if (!conf->base) {
        sdk_error(&c, CTK_E_CONFIG, CTK_F_SDK, "no base directory");
        goto out;
    }
    if (!(sdk = sdk_new(conf, &e)) || !load_base(&c, sdk) || !check_version(&c, sdk))
        goto out;
    if (!(sdk->module_version = ctk_strdup(conf->module_version ? conf->module_version
                                           : conf->version      ? conf->version
                                                                : sdk->version_mm,
                                           &e)) ||
        !load_parts(&c, sdk))
        goto out;
    if (conf->host_compiler_ccbin && !ctk_is_executable(conf->host_compiler_ccbin)) {
        sdk_error(&c, CTK_E_SDK, CTK_F_CCBIN, "%s is not an executable file", conf->host_compiler_ccbin);
        goto out;
    }
    ok = decide(sdk, &e);
out:
    open_dirs_end();
    if (!ok) {
        ctk_sdk_free(sdk);
        sdk = NULL;
        if (err && !ctk_error_is_set(err))
            *err = e;
    }
    return sdk;
}

/* dir/target, or target when it is absolute */
static char *link_join(const char *path, const char *target, ctk_error_t *err)
{
    const char *slash = strrchr(path, '/');

    if (target[0] == '/' || !slash)
        return ctk_strdup(target, err);
    return ctk_printf(err, "%.*s/%s", (int)(slash - path), path, target);
}

char *ctk_sdk_base_link(const char *base, ctk_error_t *err)
{
    char *cur = NULL, *next, target[4096];
    struct stat st;
    int hops;
    ssize_t n;

    if (lstat(base, &st) != 0 || !S_ISLNK(st.st_mode) || stat(base, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return NULL;
    if (!(cur = ctk_strdup(base, err)))
        return NULL;
    for (hops = 0; hops < 40 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        if ((n = readlink(cur, target, sizeof target - 1)) <= 0)
            break;
        target[n] = '\0';
        next = link_join(cur, target, err);
        free(cur);
        if (!(cur = next))
            return NULL;
    }
    if (strstr(cur, "/../") || strstr(cur, "/./") || (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode))) {
        next = ctk_realpath(cur); /* "../x" is only right against the resolved parent */
        free(cur);
        cur = next;
    }
    return cur;
}

bool ctk_sdk_conf_pin_base(ctk_sdk_conf_t *conf, const char *module_name, char **note,
                           ctk_error_t *err)
{
    char *to;

    *note = NULL;
    if (conf->follow_link || !conf->base || !(to = ctk_sdk_base_link(conf->base, err)))
        return !ctk_error_is_set(err);
    *note = ctk_printf(err, "%s/%s: base %s is a symbolic link to %s: the module points at %s, "
                       "and stays there when the link is repointed (regenerate then); to have "
                       "it follow the link instead, set \"follow_link\": true in %s",
                       module_name, conf->module_version ? conf->module_version : conf->version,
                       conf->base, to, to, conf->jpath);
    if (!*note) {
        free(to);
        return false;
    }
    free(conf->base);
    conf->base = to;
    return true;
}

void ctk_sdk_free(ctk_sdk_t *sdk)
{
    size_t i;

    if (!sdk)
        return;
    free(sdk->module_version);
    free(sdk->version_mm);
    free(sdk->version_full);
    free(sdk->root);
    free(sdk->bindir);
    free(sdk->nvcc);
    free(sdk->incdir);
    free(sdk->cccl_incdir);
    free(sdk->libdir);
    free(sdk->stubsdir);
    free(sdk->mandir);
    free(sdk->math_incdir);
    free(sdk->math_libdir);
    free(sdk->nvvm_root);
    free(sdk->nvvm_incdir);
    free(sdk->nvvm_libdir);
    free(sdk->cupti_incdir);
    free(sdk->cupti_libdir);
    free(sdk->nccl_incdir);
    free(sdk->nccl_libdir);
    free(sdk->nvshmem_incdir);
    free(sdk->nvshmem_libdir);
    free(sdk->nvshmem_bindir);
    ctk_strlist_fini(&sdk->path);
    ctk_strlist_fini(&sdk->ld_library_path);
    ctk_strlist_fini(&sdk->library_path);
    ctk_strlist_fini(&sdk->cpath);
    ctk_strlist_fini(&sdk->manpath);
    for (i = 0; i < sdk->n_libs; i++) {
        free(sdk->libs[i].libdir);
        free(sdk->libs[i].link);
    }
    free(sdk->libs);
    for (i = 0; i < sdk->n_versioned; i++)
        free(sdk->versioned[i].file);
    free(sdk->versioned);
    free(sdk);
}
