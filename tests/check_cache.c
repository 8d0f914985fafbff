/* check_cache.c - cache keys and the atomic entry store.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "cache.h"
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEY_A "0123456789abcdef0123456789abcdef"
#define KEY_B "fedcba9876543210fedcba9876543210"

static void key_of(ctk_cache_key_t *k, char out[33])
{
    ctk_cache_key_hex(k, out);
}

static bool is_key(const char *s)
{
    size_t i;

    for (i = 0; i < 32; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[32] == '\0';
}

/* Number of names in dir but . and .. (-1: cannot read it); the first
 * one read goes to first. */
static int count_entries(const char *dir, char *first, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (first && cap)
        first[0] = '\0';
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n++ == 0 && first)
            snprintf(first, cap, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

static char *entry_path(const char *dir, const char *key)
{
    char *p = NULL;

    ck_assert(asprintf(&p, "%s/v1/%s.json", dir, key) > 0);
    return p;
}

/* ---- keys ------------------------------------------------------------------ */
enum { V_BASE, V_SAME_AGAIN, V_LABEL, V_DATA, V_ORDER, V_SPLIT_DATA, V_SPLIT_LABEL,
       V_EXTRA_EMPTY, V_NULL_STR, V_EMPTY_STR, V_ONE_BIT, V_LABEL_INTO_DATA, V_NONE, N_V };

static void build(int v, char out[33])
{
    ctk_cache_key_t k;

    ctk_cache_key_init(&k);
    switch (v) {
    case V_BASE:
    case V_SAME_AGAIN:
        ctk_cache_key_add(&k, "a", "ab", 2);
        ctk_cache_key_add(&k, "b", "c", 1);
        break;
    case V_LABEL:
        ctk_cache_key_add(&k, "A", "ab", 2);
        ctk_cache_key_add(&k, "b", "c", 1);
        break;
    case V_DATA:
        ctk_cache_key_add(&k, "a", "ab", 2);
        ctk_cache_key_add(&k, "b", "d", 1);
        break;
    case V_ORDER:
        ctk_cache_key_add(&k, "b", "c", 1);
        ctk_cache_key_add(&k, "a", "ab", 2);
        break;
    case V_SPLIT_DATA: /* "ab"+"c" vs "a"+"bc" */
        ctk_cache_key_add(&k, "a", "a", 1);
        ctk_cache_key_add(&k, "b", "bc", 2);
        break;
    case V_SPLIT_LABEL: /* label/data boundary moved */
        ctk_cache_key_add(&k, "aa", "b", 1);
        ctk_cache_key_add(&k, "b", "c", 1);
        break;
    case V_EXTRA_EMPTY:
        ctk_cache_key_add(&k, "a", "ab", 2);
        ctk_cache_key_add(&k, "b", "c", 1);
        ctk_cache_key_add(&k, "", "", 0);
        break;
    case V_NULL_STR:
        ctk_cache_key_add(&k, "a", "ab", 2);
        ctk_cache_key_add(&k, "b", "c", 1);
        ctk_cache_key_add_str(&k, "s", NULL);
        break;
    case V_EMPTY_STR:
        ctk_cache_key_add(&k, "a", "ab", 2);
        ctk_cache_key_add(&k, "b", "c", 1);
        ctk_cache_key_add_str(&k, "s", "");
        break;
    case V_ONE_BIT:
        ctk_cache_key_add(&k, "a", "ac", 2); /* 'b' ^ 1 */
        ctk_cache_key_add(&k, "b", "c", 1);
        break;
    case V_LABEL_INTO_DATA:
        ctk_cache_key_add(&k, "", "aab", 3);
        ctk_cache_key_add(&k, "b", "c", 1);
        break;
    case V_NONE:
        break;
    }
    key_of(&k, out);
}

START_TEST(test_cache_key_changes_with_any_change_of_input)
{
    char keys[N_V][33];
    int i, j;

    for (i = 0; i < N_V; i++) {
        build(i, keys[i]);
        ck_assert_msg(is_key(keys[i]), "variant %d: '%s'", i, keys[i]);
    }
    ck_assert_str_eq(keys[V_BASE], keys[V_SAME_AGAIN]);
    for (i = 0; i < N_V; i++)
        for (j = i + 1; j < N_V; j++)
            if (!(i == V_BASE && j == V_SAME_AGAIN))
                ck_assert_msg(strcmp(keys[i], keys[j]) != 0, "variants %d and %d collide", i, j);
}
END_TEST

START_TEST(test_cache_key_is_stable_across_builds)
{
    /* A change here changes every key on disk: bump the v1 dir with it.
     * Values cross-checked with an independent Python rendering of the
     * framing and hashes described at the top of cache.c. */
    ctk_cache_key_t k;
    char hex[33];

    ctk_cache_key_init(&k);
    key_of(&k, hex);
    ck_assert_str_eq(hex, "f52a15e9a9b5e89b492b8d6066c09227");
    ctk_cache_key_add_str(&k, "nvcc", "/usr/local/cuda-13.0/bin/nvcc");
    key_of(&k, hex);
    ck_assert_str_eq(hex, "e68a5c62c68ece05eddb1a78b8a509a3");
}
END_TEST

static int cmp_half(const void *a, const void *b)
{
    return strncmp(a, b, 16);
}

START_TEST(test_cache_key_halves_each_separate_inputs)
{
    /* Over many small inputs neither 64-bit half repeats on its own: a bug
     * that fed only one of the two hashes would show here. */
    enum { N = 4096 };
    char(*lo)[17] = calloc(N, 17), (*hi)[17] = calloc(N, 17);
    int i;

    for (i = 0; i < N; i++) {
        ctk_cache_key_t k;
        char hex[33];
        unsigned char b[2] = { (unsigned char)(i & 0xff), (unsigned char)(i >> 8) };

        ctk_cache_key_init(&k);
        ctk_cache_key_add(&k, "i", b, sizeof b);
        key_of(&k, hex);
        memcpy(lo[i], hex, 16);
        memcpy(hi[i], hex + 16, 16);
    }
    qsort(lo, N, sizeof lo[0], cmp_half);
    qsort(hi, N, sizeof hi[0], cmp_half);
    for (i = 1; i < N; i++)
        if (strcmp(lo[i - 1], lo[i]) == 0 || strcmp(hi[i - 1], hi[i]) == 0)
            ck_abort_msg("a key half repeats after %d inputs", N);
    free(lo);
    free(hi);
}
END_TEST

static void stat_key(const char *path, char out[33])
{
    ctk_cache_key_t k;

    ctk_cache_key_init(&k);
    ctk_cache_key_add_stat(&k, path);
    key_of(&k, out);
}

static void file_key(const char *path, char out[33])
{
    ctk_cache_key_t k;

    ctk_cache_key_init(&k);
    ctk_cache_key_add_file(&k, path);
    key_of(&k, out);
}

START_TEST(test_cache_stat_key_tracks_touch_and_replace)
{
    char *dir = tu_mkdtemp(), *path = tu_write(dir, "lib.so", "bytes"), *other;
    char a[33], b[33], c[33], d[33], gone[33], gone2[33];
    struct timespec ts[2];
    struct stat st;

    ck_assert_int_eq(stat(path, &st), 0);
    stat_key(path, a);
    stat_key(path, b);
    ck_assert_str_eq(a, b);

    /* touched: only the mtime moves, by one nanosecond */
    ts[0] = st.st_atim;
    ts[1] = st.st_mtim;
    ts[1].tv_nsec = (ts[1].tv_nsec + 1) % 1000000000L;
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
    stat_key(path, b);
    ck_assert_str_ne(a, b);
    /* the same identity again gives the same key: nothing else goes in */
    ts[1] = st.st_mtim;
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
    stat_key(path, c);
    ck_assert_str_eq(a, c);

    /* replaced by a file with the same bytes and mtime: a new inode */
    other = tu_write(dir, "new.so", "bytes");
    ck_assert_int_eq(utimensat(AT_FDCWD, other, ts, 0), 0);
    ck_assert_int_eq(rename(other, path), 0);
    stat_key(path, d);
    ck_assert_str_ne(a, d);

    /* absent is a stable answer of its own, and names the path */
    ck_assert_int_eq(unlink(path), 0);
    stat_key(path, gone);
    stat_key(path, gone2);
    ck_assert_str_eq(gone, gone2);
    ck_assert_str_ne(gone, d);
    stat_key(other, gone2);
    ck_assert_str_ne(gone, gone2);

    free(other);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_file_key_follows_bytes_not_mtime)
{
    char *dir = tu_mkdtemp(), *path = tu_write(dir, "f", "hello"), *big = NULL;
    char a[33], b[33], c[33], empty[33], gone[33];
    struct timespec ts[2] = { { 0, UTIME_OMIT }, { 12345, 678 } };
    int fd;

    file_key(path, a);
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
    file_key(path, b);
    ck_assert_str_eq(a, b);
    free(tu_write(dir, "f", "hellO"));
    file_key(path, b);
    ck_assert_str_ne(a, b);
    free(tu_write(dir, "f", ""));
    file_key(path, empty);
    ck_assert_int_eq(unlink(path), 0);
    file_key(path, gone);
    ck_assert_str_ne(empty, gone);
    ck_assert_str_ne(a, gone);

    /* over 16 MiB: keyed on identity, so a touch still changes the key */
    ck_assert(asprintf(&big, "%s/big", dir) > 0);
    fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)17 << 20), 0);
    close(fd);
    file_key(big, b);
    ck_assert_int_eq(utimensat(AT_FDCWD, big, ts, 0), 0);
    file_key(big, c);
    ck_assert_str_ne(b, c);
    /* a stat identity is never confused with the same file's bytes */
    stat_key(big, a);
    ck_assert_str_ne(a, c);

    free(big);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- store ------------------------------------------------------------------- */
START_TEST(test_cache_put_then_get_round_trips)
{
    char *dir = tu_mkdtemp(), *got;
    ctk_error_t err;
    const char *text = "{\"verdict\":\"pass\",\"nl\":\"a\\nb\"}\nsecond line\n";

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_cache_get(dir, KEY_A, &err));
    ck_assert(!ctk_error_is_set(&err));
    ck_assert(ctk_cache_put(dir, KEY_A, text, &err));
    got = ctk_cache_get(dir, KEY_A, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, text);
    free(got);
    /* overwrite */
    ck_assert(ctk_cache_put(dir, KEY_A, "", &err));
    got = ctk_cache_get(dir, KEY_A, &err);
    ck_assert_str_eq(got, "");
    free(got);
    /* another key is another entry */
    ck_assert_ptr_null(ctk_cache_get(dir, KEY_B, &err));
    ck_assert(!ctk_error_is_set(&err));
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_get_from_missing_dir_is_a_miss)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_cache_get("/nonexistent/ctkgen-cache", KEY_A, &err));
    ck_assert(!ctk_error_is_set(&err));
}
END_TEST

START_TEST(test_cache_rejects_malformed_keys)
{
    static const char *const bad[] = {
        "",
        "0123456789abcdef0123456789abcde",   /* 31 */
        "0123456789abcdef0123456789abcdef0", /* 33 */
        "0123456789ABCDEF0123456789abcdef",  /* upper case */
        "0123456789abcdef0123456789abcdeg",
        "../../../../../../../../etc/pass",
        "0123456789abcdef/123456789abcdef",
        NULL,
    };
    char *dir = tu_mkdtemp();
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_cache_get(dir, bad[_i], &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ctk_error_init(&err);
    ck_assert(!ctk_cache_put(dir, bad[_i], "x", &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_int_eq(count_entries(dir, NULL, 0), 0); /* not even v1/ */
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_creates_private_dirs_and_files)
{
    char *dir = tu_mkdtemp(), *root = NULL, *v1 = NULL, *entry;
    char first[256];
    struct stat st;
    mode_t old = umask(0);

    ck_assert(asprintf(&root, "%s/deep/er/cache", dir) > 0);
    ck_assert(asprintf(&v1, "%s/v1", root) > 0);
    ck_assert(ctk_cache_put(root, KEY_A, "x", NULL));
    umask(old);
    entry = entry_path(root, KEY_A);
    ck_assert_int_eq(stat(root, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0700);
    ck_assert_int_eq(stat(v1, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0700);
    ck_assert_int_eq(stat(entry, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0600);
    /* nothing but the entry: the temp file was renamed, not left */
    ck_assert_int_eq(count_entries(v1, first, sizeof first), 1);
    ck_assert_str_eq(first, KEY_A ".json");
    free(entry);
    free(v1);
    free(root);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_put_reports_unusable_dir)
{
    char *dir = tu_mkdtemp(), *file = tu_write(dir, "plain", "x"), *under = NULL;
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert(!ctk_cache_put(file, KEY_A, "x", &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, file);
    ck_assert_ptr_null(ctk_cache_get(file, KEY_A, NULL));

    if (geteuid() != 0) {
        ck_assert(asprintf(&under, "%s/ro/cache", dir) > 0);
        free(tu_mkdirs(dir, "ro"));
        ck_assert_int_eq(tu_sh("chmod 500 '%s/ro'", dir), 0);
        ctk_error_init(&err);
        ck_assert(!ctk_cache_put(under, KEY_A, "x", &err));
        ck_assert_int_eq(err.code, CTK_E_IO);
        free(under);
    }
    free(file);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_half_written_entry_is_a_miss)
{
    char *dir = tu_mkdtemp(), *other = tu_mkdtemp(), *src, *whole, *got;
    ctk_error_t err;

    /* a put that stopped before its rename: the temp file holds a whole,
     * well-formed entry, and still nobody reads it */
    ck_assert(ctk_cache_put(other, KEY_A, "{\"a\":0}", NULL));
    src = entry_path(other, KEY_A);
    whole = tu_read(src);
    free(tu_write(dir, "v1/." KEY_A ".Ab12Cd", whole));
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_cache_get(dir, KEY_A, &err));
    ck_assert(!ctk_error_is_set(&err));
    /* the next put is not disturbed by it */
    ck_assert(ctk_cache_put(dir, KEY_A, "{\"a\":1}", &err));
    got = ctk_cache_get(dir, KEY_A, &err);
    ck_assert_str_eq(got, "{\"a\":1}");
    free(got);
    free(whole);
    free(src);
    tu_rmtree(other);
    free(other);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Damage a good entry in one way; get must call it a miss. */
START_TEST(test_cache_damaged_entry_is_a_miss)
{
    char *dir = tu_mkdtemp(), *path, *good, *bad = NULL;
    ctk_error_t err;
    size_t n;

    ck_assert(ctk_cache_put(dir, KEY_A, "{\"verdict\":\"pass\"}", NULL));
    path = entry_path(dir, KEY_A);
    good = tu_read(path);
    n = strlen(good);
    switch (_i) {
    case 0: /* truncated text */
        bad = strndup(good, n - 3);
        break;
    case 1: /* one byte of the text changed */
        bad = strdup(good);
        bad[n - 3] = 'P';
        break;
    case 2: /* text appended */
        ck_assert(asprintf(&bad, "%s,", good) > 0);
        break;
    case 3: /* empty file */
        bad = strdup("");
        break;
    case 4: /* no header at all */
        bad = strdup("{\"verdict\":\"pass\"}");
        break;
    case 5: /* header cut off */
        bad = strndup(good, 20);
        break;
    case 6: /* another key's entry copied here */
        ck_assert(ctk_cache_put(dir, KEY_B, "{\"verdict\":\"pass\"}", NULL));
        {
            char *pb = entry_path(dir, KEY_B);

            bad = tu_read(pb);
            free(pb);
        }
        break;
    }
    ck_assert_ptr_nonnull(bad);
    ck_assert_int_eq(unlink(path), 0);
    free(tu_write(dir, "v1/" KEY_A ".json", bad));
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_cache_get(dir, KEY_A, &err));
    ck_assert(!ctk_error_is_set(&err));
    free(bad);
    free(good);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_unreadable_entry_is_a_miss)
{
    char *dir = tu_mkdtemp(), *path;
    ctk_error_t err;

    ck_assert(ctk_cache_put(dir, KEY_A, "x", NULL));
    path = entry_path(dir, KEY_A);
    /* root reads a mode 0000 file anyway; nobody reads a directory */
    if (geteuid() != 0) {
        ck_assert_int_eq(chmod(path, 0), 0);
        ctk_error_init(&err);
        ck_assert_ptr_null(ctk_cache_get(dir, KEY_A, &err));
        ck_assert(!ctk_error_is_set(&err));
    }
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_cache_get(dir, KEY_A, &err));
    ck_assert(!ctk_error_is_set(&err));
    /* and put cannot replace it: an error, never a crash or a hang */
    ck_assert(!ctk_cache_put(dir, KEY_A, "x", &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_cache_concurrent_puts_leave_one_whole_entry)
{
    enum { KIDS = 12, LEN = 200000 };
    char *dir = tu_mkdtemp(), *got, *v1 = NULL;
    pid_t pids[KIDS];
    int i, status, ok = 0;
    size_t j;

    for (i = 0; i < KIDS; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            char *text = malloc(LEN + 1);
            int r, rounds;

            memset(text, 'a' + i, LEN);
            text[LEN] = '\0';
            for (rounds = 0, r = 0; rounds < 5; rounds++)
                r |= !ctk_cache_put(dir, KEY_A, text, NULL);
            free(text);
            _exit(r);
        }
    }
    for (i = 0; i < KIDS; i++) {
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    ck_assert_int_eq(ok, KIDS);
    got = ctk_cache_get(dir, KEY_A, NULL);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(strlen(got), LEN);
    for (j = 1; j < LEN; j++)
        ck_assert_msg(got[j] == got[0], "entry mixes two writers at byte %zu", j);
    ck_assert(got[0] >= 'a' && got[0] < 'a' + KIDS);
    free(got);
    ck_assert(asprintf(&v1, "%s/v1", dir) > 0);
    ck_assert_int_eq(count_entries(v1, NULL, 0), 1);
    free(v1);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- default dir ------------------------------------------------------------- */
static char *saved_xdg, *saved_home;

static void save_env(void)
{
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

    saved_xdg = x ? strdup(x) : NULL;
    saved_home = h ? strdup(h) : NULL;
}

static void restore_env(void)
{
    if (saved_xdg)
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    if (saved_home)
        setenv("HOME", saved_home, 1);
    else
        unsetenv("HOME");
    free(saved_xdg);
    free(saved_home);
    saved_xdg = saved_home = NULL;
}

START_TEST(test_cache_default_dir_from_environment)
{
    /* XDG_CACHE_HOME, HOME, expected (NULL: none) */
    static const char *const cases[][3] = {
        { "/x/cache", "/home/u", "/x/cache/ctkgen" },
        { "/x/cache/", "/home/u", "/x/cache/ctkgen" },
        { NULL, "/home/u", "/home/u/.cache/ctkgen" },
        { "", "/home/u/", "/home/u/.cache/ctkgen" },
        { "relative/cache", "/home/u", "/home/u/.cache/ctkgen" }, /* XDG: ignore relative */
        { NULL, NULL, NULL },
        { "", "", NULL },
    };
    const char *const *c = cases[_i];
    ctk_error_t err;
    char *got;

    save_env();
    if (c[0])
        setenv("XDG_CACHE_HOME", c[0], 1);
    else
        unsetenv("XDG_CACHE_HOME");
    if (c[1])
        setenv("HOME", c[1], 1);
    else
        unsetenv("HOME");
    ctk_error_init(&err);
    got = ctk_cache_default_dir(&err);
    restore_env();
    if (c[2])
        ck_assert_str_eq(got, c[2]);
    else
        ck_assert_ptr_null(got);
    ck_assert(!ctk_error_is_set(&err));
    free(got);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cache");
    TCase *keys = tcase_create("keys"), *store = tcase_create("store");

    tcase_add_test(keys, test_cache_key_changes_with_any_change_of_input);
    tcase_add_test(keys, test_cache_key_is_stable_across_builds);
    tcase_add_test(keys, test_cache_key_halves_each_separate_inputs);
    tcase_add_test(keys, test_cache_stat_key_tracks_touch_and_replace);
    tcase_add_test(keys, test_cache_file_key_follows_bytes_not_mtime);
    tcase_add_test(store, test_cache_put_then_get_round_trips);
    tcase_add_test(store, test_cache_get_from_missing_dir_is_a_miss);
    tcase_add_loop_test(store, test_cache_rejects_malformed_keys, 0, 8);
    tcase_add_test(store, test_cache_creates_private_dirs_and_files);
    tcase_add_test(store, test_cache_put_reports_unusable_dir);
    tcase_add_test(store, test_cache_half_written_entry_is_a_miss);
    tcase_add_loop_test(store, test_cache_damaged_entry_is_a_miss, 0, 7);
    tcase_add_test(store, test_cache_unreadable_entry_is_a_miss);
    tcase_add_test(store, test_cache_concurrent_puts_leave_one_whole_entry);
    tcase_add_loop_test(store, test_cache_default_dir_from_environment, 0, 7);
    suite_add_tcase(s, keys);
    suite_add_tcase(s, store);
    return tu_run(s);
}
