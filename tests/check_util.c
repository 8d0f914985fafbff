/* check_util.c - strings, buffers, lists and file helpers.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "testutil.h"
#include "util.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

START_TEST(test_util_path_join_normalises_slashes)
{
    static const char *const cases[][3] = {
        { "/a", "b", "/a/b" },       { "/a/", "b", "/a/b" },   { "/a//", "/b", "/a/b" },
        { "/", "b", "/b" },          { "/a", "", "/a" },       { "rel", "x/y", "rel/x/y" },
    };
    char *p = ctk_path_join(cases[_i][0], cases[_i][1], NULL);

    ck_assert_str_eq(p, cases[_i][2]);
    free(p);
}
END_TEST

/* ctk_concat() and ctk_printf() spell the same strings, short and long
 * (past ctk_printf's stack buffer). */
START_TEST(test_util_concat_and_printf_agree)
{
    char big[600], *c, *f;

    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    c = ctk_concat(NULL, "lmod/", "cudatoolkit", "/", "13.0", ".lua", NULL);
    ck_assert_str_eq(c, "lmod/cudatoolkit/13.0.lua");
    free(c);
    c = ctk_concat(NULL, "", NULL);
    ck_assert_str_eq(c, "");
    free(c);
    c = ctk_concat(NULL, "@", big, "/", big, NULL);
    f = ctk_printf(NULL, "@%s/%s", big, big);
    ck_assert_uint_eq(strlen(c), 2 + 2 * strlen(big));
    ck_assert_str_eq(c, f);
    free(c);
    free(f);
}
END_TEST

START_TEST(test_util_buf_grows_and_takes)
{
    ctk_buf_t b;
    char *s;
    size_t len, i;

    ctk_buf_init(&b);
    for (i = 0; i < 1000; i++)
        ck_assert(ctk_buf_printf(&b, "%zu,", i));
    s = ctk_buf_take(&b, &len);
    ck_assert_uint_eq(len, strlen(s));
    ck_assert(strncmp(s, "0,1,2,", 6) == 0);
    ck_assert_ptr_nonnull(strstr(s, "999,"));
    ck_assert_ptr_null(b.data);
    free(s);
}
END_TEST

START_TEST(test_util_edit_distance)
{
    ck_assert_uint_eq(ctk_edit_distance("base", "base"), 0);
    ck_assert_uint_eq(ctk_edit_distance("bsae", "base"), 1);      /* a swap is one edit */
    ck_assert_uint_eq(ctk_edit_distance("lmod.lau", "lmod.lua"), 1);
    ck_assert_uint_eq(ctk_edit_distance("mathlibs", "math_libs"), 1);
    ck_assert_uint_eq(ctk_edit_distance("", "abc"), 3);
    ck_assert_uint_eq(ctk_edit_distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(ctk_edit_distance(
        "a123456789012345678901234567890123456789012345678901234567890123", "a"), SIZE_MAX);
}
END_TEST

START_TEST(test_util_strlist_push_and_contains)
{
    ctk_strlist_t l;

    ctk_strlist_init(&l);
    ck_assert(ctk_strlist_push(&l, "a", NULL));
    ck_assert(ctk_strlist_take(&l, strdup("b"), NULL));
    ck_assert_uint_eq(l.len, 2);
    ck_assert(ctk_strlist_contains(&l, "b"));
    ck_assert(!ctk_strlist_contains(&l, "c"));
    ctk_strlist_fini(&l);
    ctk_strlist_fini(NULL);
}
END_TEST

START_TEST(test_util_file_read_limits_and_errors)
{
    char *dir = tu_mkdtemp(), *path = tu_write(dir, "f", "hello"), *missing = NULL;
    ctk_error_t err;
    size_t len = 0;
    char *s;

    ctk_error_init(&err);
    s = ctk_file_read(path, 100, &len, &err);
    ck_assert_str_eq(s, "hello");
    ck_assert_uint_eq(len, 5);
    free(s);
    ck_assert_ptr_null(ctk_file_read(path, 3, &len, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, path);
    ctk_error_init(&err);
    ck_assert(asprintf(&missing, "%s/none", dir) > 0);
    ck_assert_ptr_null(ctk_file_read(missing, 100, &len, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert(ctk_is_dir(dir) && !ctk_is_dir(path) && ctk_is_file(path) && !ctk_is_executable(path));
    free(missing);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A FIFO (nobody writing), a device, a directory or a link to one is
 * refused at once, named for what it is; a link is followed unless
 * CTK_READ_NOFOLLOW; /proc is refused with CTK_READ_NO_KERNEL_FS. */
START_TEST(test_util_file_read_refuses_what_is_not_a_regular_file)
{
    char *dir = tu_mkdtemp(), *fifo = NULL, *link = NULL, *flink = NULL, *path = tu_write(dir, "f", "hello");
    const char *what = "unset";
    ctk_error_t err;
    size_t len = 0;
    char *s;
    time_t t0 = time(NULL);

    ck_assert(asprintf(&fifo, "%s/fifo.lua", dir) > 0 && mkfifo(fifo, 0600) == 0);
    ck_assert(asprintf(&link, "%s/link.lua", dir) > 0 && symlink(path, link) == 0);
    ck_assert(asprintf(&flink, "%s/flink.pc", dir) > 0 && symlink(fifo, flink) == 0);

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_file_read_ex(fifo, 100, 0, &len, &what, &err));
    ck_assert_str_eq(what, "a FIFO");
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, fifo);
    ck_assert_msg(strstr(err.text, "a FIFO") && strstr(err.text, "not a regular file"), "%s", err.text);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_file_read(flink, 100, &len, &err));
    ck_assert_ptr_nonnull(strstr(err.text, "a FIFO"));
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_file_read_ex("/dev/null", 100, 0, &len, &what, &err));
    ck_assert_str_eq(what, "a character device");
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_file_read_ex(dir, 100, 0, &len, &what, &err));
    ck_assert_str_eq(what, "a directory");

    /* a link to a regular file: followed, unless refused as a link */
    s = ctk_file_read_ex(link, 100, 0, &len, &what, NULL);
    ck_assert_str_eq(s, "hello");
    ck_assert_ptr_null(what);
    free(s);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_file_read_ex(link, 100, CTK_READ_NOFOLLOW, &len, &what, &err));
    ck_assert_str_eq(what, "a symbolic link");
    ck_assert_ptr_nonnull(strstr(err.text, "a symbolic link"));
    s = ctk_file_read_ex(path, 100, CTK_READ_NOFOLLOW | CTK_READ_NO_KERNEL_FS, &len, &what, NULL);
    ck_assert_str_eq(s, "hello");
    free(s);

    /* a "regular" file of /proc: read as one by default, refused on request */
    s = ctk_file_read_ex("/proc/self/stat", 1 << 16, 0, &len, &what, NULL);
    ck_assert_ptr_nonnull(s);
    free(s);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_file_read_ex("/proc/self/stat", 1 << 16, CTK_READ_NO_KERNEL_FS, &len, &what, &err));
    ck_assert_ptr_nonnull(strstr(what, "kernel file system"));
    ck_assert_ptr_nonnull(strstr(err.text, "/proc"));

    /* none of it waited for a writer */
    ck_assert_int_le(time(NULL) - t0, 2);
    free(fifo);
    free(link);
    free(flink);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_util_first_error_wins)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_error_set(&err, CTK_E_CONFIG, "a.json", 3, 4, "first %d", 1);
    ctk_error_set(&err, CTK_E_IO, "b", 1, 1, "second");
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_str_eq(err.text, "first 1");
    ck_assert_int_eq(ctk_error_exit_code(&err), CTK_EXIT_INPUT);
    ctk_error_set(NULL, CTK_E_IO, NULL, 0, 0, "ignored");
}
END_TEST

START_TEST(test_util_same_file_is_identity_not_spelling)
{
    char *dir = tu_scratch();
    char *a = tu_keep(tu_write(dir, "a/lib.so", "x")), *copy = tu_keep(tu_write(dir, "c/lib.so", "x"));
    char *sym = tu_str("%s/s/lib.so", dir), *hard = tu_str("%s/h/lib.so", dir), *chain = tu_str("%s/s2", dir);

    tu_keep(tu_mkdirs(dir, "s"));
    tu_keep(tu_mkdirs(dir, "h"));
    ck_assert_int_eq(symlink(a, sym), 0);
    ck_assert_int_eq(link(a, hard), 0);
    ck_assert_int_eq(symlink("s/lib.so", chain), 0);
    ck_assert(ctk_same_file(a, a));
    ck_assert(ctk_same_file(sym, a));        /* a tree of symlinks: the same library */
    ck_assert(ctk_same_file(a, hard));       /* a hard-link copy: the same library */
    ck_assert(ctk_same_file(chain, hard));
    ck_assert(!ctk_same_file(a, copy));      /* equal bytes, another file */
    ck_assert(!ctk_same_file(a, tu_str("%s/missing", dir)));
    ck_assert(!ctk_same_file(tu_str("%s/missing", dir), tu_str("%s/missing", dir)));
    tu_scratch_end(&dir);
}
END_TEST

START_TEST(test_util_hash_is_stable)
{
    char h1[17], h2[17], h3[17];

    ctk_hash_hex("abc", 3, h1);
    ctk_hash_hex("abc", 3, h2);
    ctk_hash_hex("abd", 3, h3);
    ck_assert_str_eq(h1, h2);
    ck_assert_str_ne(h1, h3);
    ck_assert_str_eq(h1, "e71fa2190541574b"); /* FNV-1a 64 of "abc" */
    /* FNV-1a's published vectors, of every length modulo four */
    ctk_hash_hex("", 0, h1);
    ck_assert_str_eq(h1, "cbf29ce484222325");
    ctk_hash_hex("a", 1, h1);
    ck_assert_str_eq(h1, "af63dc4c8601ec8c");
    ctk_hash_hex("foobar", 6, h1);
    ck_assert_str_eq(h1, "85944171f73967e8");
    ctk_hash_hex("foob", 4, h1);
    ck_assert_str_eq(h1, "dd120e790c2512af");
}
END_TEST

/* A record of what was looked at: the same answers hash the same; each
 * kind of change to what was looked at changes the hash. */
static uint64_t seen_looking(const char *dir, ctk_seen_t **out)
{
    ctk_seen_t *s = ctk_seen_new();
    char *p;

    ck_assert_ptr_nonnull(s);
    ctk_seen_begin(s);
    ck_assert(ctk_is_dir(tu_str("%s/d", dir)));
    ck_assert(ctk_is_file(tu_str("%s/d/f", dir)));
    ck_assert(!ctk_is_file(tu_str("%s/d/missing", dir)));
    ck_assert(ctk_is_executable(tu_str("%s/d/x", dir)));
    p = ctk_realpath(tu_str("%s/link", dir));
    ck_assert_ptr_nonnull(p);
    free(p);
    free(ctk_file_read(tu_str("%s/d/f", dir), 100, NULL, NULL));
    ctk_seen_end();
    /* a question outside the record is not noted */
    ck_assert(ctk_is_file(tu_str("%s/d/g", dir)));
    *out = s;
    return ctk_seen_hash(s);
}

START_TEST(test_util_seen_rechecks_what_was_looked_at)
{
    char *dir = tu_scratch();
    ctk_seen_t *s, *again;
    ctk_seen_kind_t k;
    uint64_t h;
    size_t i;

    tu_keep(tu_write(dir, "d/f", "one"));
    tu_keep(tu_write(dir, "d/g", "g"));
    tu_keep(tu_write(dir, "d/x", "#!/bin/sh\n"));
    tu_keep(tu_mkdirs(dir, "e"));
    ck_assert_int_eq(chmod(tu_str("%s/d/x", dir), 0755), 0);
    ck_assert_int_eq(symlink("d", tu_str("%s/link", dir)), 0);
    h = seen_looking(dir, &s);
    ck_assert(ctk_seen_usable(s));
    /* each question once: d/f was asked by ctk_is_file and by the read */
    ck_assert_uint_eq(ctk_seen_count(s), 6);
    ck_assert_str_eq(ctk_seen_question(s, 4, &k), tu_str("%s/d/x", dir)); /* after its stat */
    ck_assert_int_eq(k, CTK_SEEN_EXEC);
    ck_assert_uint_eq(ctk_seen_recheck(s), h);
    /* a record read back from its questions rechecks the same */
    again = ctk_seen_new();
    for (i = 0; i < ctk_seen_count(s); i++) {
        const char *q = ctk_seen_question(s, i, &k);

        ck_assert(ctk_seen_ask(again, k, q));
    }
    ck_assert_uint_eq(ctk_seen_recheck(again), h);
    ck_assert(!ctk_seen_ask(again, CTK_SEEN_KINDS, "/x"));
    ck_assert(!ctk_seen_ask(again, CTK_SEEN_STAT, "relative"));

    /* a file rewritten in place, same size: its mtime or ctime moves */
    ck_assert_int_eq(tu_sh("sleep 0.01; printf two > '%s/d/f'", dir), 0);
    ck_assert_uint_ne(ctk_seen_recheck(s), h);
    ck_assert_uint_ne(ctk_seen_recheck(again), h);
    ctk_seen_free(s);
    h = seen_looking(dir, &s);
    ck_assert_uint_eq(ctk_seen_recheck(s), h);
    /* a missing file that appears */
    tu_keep(tu_write(dir, "d/missing", "now"));
    ck_assert_uint_ne(ctk_seen_recheck(s), h);
    ck_assert_int_eq(unlink(tu_str("%s/d/missing", dir)), 0);
    /* a directory whose entries changed (the file was removed again: d's
       mtime moved since the record) */
    ck_assert_uint_ne(ctk_seen_recheck(s), h);
    ctk_seen_free(s);
    h = seen_looking(dir, &s);
    /* the executable bit taken away */
    ck_assert_int_eq(chmod(tu_str("%s/d/x", dir), 0644), 0);
    ck_assert_uint_ne(ctk_seen_recheck(s), h);
    ck_assert_int_eq(chmod(tu_str("%s/d/x", dir), 0755), 0);
    ctk_seen_free(s);
    h = seen_looking(dir, &s);
    /* a symlink that now resolves elsewhere */
    ck_assert_int_eq(unlink(tu_str("%s/link", dir)), 0);
    ck_assert_int_eq(symlink("e", tu_str("%s/link", dir)), 0);
    ck_assert_uint_ne(ctk_seen_recheck(s), h);
    ctk_seen_free(s);
    ctk_seen_free(again);

    /* a relative path, or work marked opaque, proves nothing */
    s = ctk_seen_new();
    ctk_seen_begin(s);
    (void)ctk_is_dir("relative/dir");
    ctk_seen_end();
    ck_assert(!ctk_seen_usable(s));
    ctk_seen_free(s);
    s = ctk_seen_new();
    ctk_seen_begin(s);
    ck_assert(ctk_is_dir(dir));
    ctk_seen_opaque();
    ctk_seen_end();
    ck_assert(!ctk_seen_usable(s));
    ctk_seen_opaque(); /* outside a record: nothing */
    ctk_seen_free(s);
    tu_scratch_end(&dir);
}
END_TEST

/* A private dir: DIR/NAME-XXXXXX, mode 0700, a new one each call; a DIR
 * that is not there is CTK_E_IO naming what was meant.  $TMPDIR counts as
 * the base only when absolute. */
START_TEST(test_util_strlist_split_leaves_out_empty_words)
{
    ctk_strlist_t l;
    ctk_error_t err;
    char *longw = tu_keep(malloc(5001));

    ctk_error_init(&err);
    ctk_strlist_init(&l);
    ck_assert(ctk_strlist_split(&l, "::/a:/b::/c d\t:", ": \t", &err));
    ck_assert_uint_eq(l.len, 4);
    ck_assert_str_eq(l.items[0], "/a");
    ck_assert_str_eq(l.items[1], "/b");
    ck_assert_str_eq(l.items[2], "/c");
    ck_assert_str_eq(l.items[3], "d");
    /* appends; nothing for NULL, "" or separators alone */
    ck_assert(ctk_strlist_split(&l, NULL, ":", &err));
    ck_assert(ctk_strlist_split(&l, "", ":", &err));
    ck_assert(ctk_strlist_split(&l, ":::", ":", &err));
    ck_assert(ctk_strlist_split(&l, "x y", ":", &err));
    ck_assert_uint_eq(l.len, 5);
    ck_assert_str_eq(l.items[4], "x y");
    /* a word is not cut, however long */
    memset(longw, 'w', 5000);
    longw[5000] = '\0';
    ck_assert(ctk_strlist_split(&l, longw, ":", &err));
    ck_assert_uint_eq(strlen(l.items[5]), 5000);
    ck_assert_int_eq(err.code, CTK_E_OK);
    ctk_strlist_fini(&l);
}
END_TEST

START_TEST(test_util_make_dtemp_is_private_and_new)
{
    char *dir = tu_scratch(), *a, *b, *missing;
    struct stat st;
    ctk_error_t err;
    const char *was = getenv("TMPDIR");
    char *saved = was ? strdup(was) : NULL;

    ctk_error_init(&err);
    a = ctk_make_dtemp(dir, "ctkgen-x", "temp dir", &err);
    b = ctk_make_dtemp(dir, "ctkgen-x", "temp dir", &err);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_ne(a, b);
    ck_assert_int_eq(strncmp(a, dir, strlen(dir)), 0);
    ck_assert_int_eq(strncmp(a + strlen(dir), "/ctkgen-x-", 10), 0);
    ck_assert_uint_eq(strlen(a), strlen(dir) + 16);
    ck_assert_int_eq(stat(a, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    missing = tu_keep(ctk_path_join(dir, "not-there", NULL));
    ck_assert_ptr_null(ctk_make_dtemp(missing, "run", "dir", &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_ptr_nonnull(strstr(err.text, "cannot create a private dir: "));
    setenv("TMPDIR", "relative/tmp", 1);
    ck_assert_str_eq(ctk_tmp_base(), "/tmp");
    setenv("TMPDIR", dir, 1);
    ck_assert_str_eq(ctk_tmp_base(), dir);
    unsetenv("TMPDIR");
    ck_assert_str_eq(ctk_tmp_base(), "/tmp");
    if (saved)
        setenv("TMPDIR", saved, 1);
    free(saved);
    rmdir(a);
    rmdir(b);
    free(a);
    free(b);
    tu_scratch_end(&dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");

    tcase_add_loop_test(tc, test_util_path_join_normalises_slashes, 0, 6);
    tcase_add_test(tc, test_util_concat_and_printf_agree);
    tcase_add_test(tc, test_util_buf_grows_and_takes);
    tcase_add_test(tc, test_util_strlist_push_and_contains);
    tcase_add_test(tc, test_util_edit_distance);
    tcase_add_test(tc, test_util_file_read_limits_and_errors);
    tcase_add_test(tc, test_util_file_read_refuses_what_is_not_a_regular_file);
    tcase_add_test(tc, test_util_first_error_wins);
    tcase_add_test(tc, test_util_hash_is_stable);
    tcase_add_test(tc, test_util_same_file_is_identity_not_spelling);
    tcase_add_test(tc, test_util_seen_rechecks_what_was_looked_at);
    tcase_add_test(tc, test_util_make_dtemp_is_private_and_new);
    tcase_add_test(tc, test_util_strlist_split_leaves_out_empty_words);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
