/* check_write.c - tests of the output tree writer, manifest, lock and diff.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "diff.h"
#include "failmalloc.h"
#include "testutil.h"
#include "util.h"
#include "write.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

static char *tmp;   /* per-test private dir */
static char *out;   /* tmp/out, not created */

static void setup(void)
{
    tmp = tu_mkdtemp();
    ck_assert_ptr_nonnull(tmp);
    ck_assert_int_ne(asprintf(&out, "%s/out", tmp), -1);
}

static void teardown(void)
{
    tu_rmtree(tmp);
    free(tmp);
    free(out);
    tmp = out = NULL;
}

static char *path_in(const char *dir, const char *rel)
{
    char *p = NULL;

    ck_assert_int_ne(asprintf(&p, "%s/%s", dir, rel), -1);
    return p;
}

static void add(ctk_outset_t *set, const char *rel, const char *text)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_outset_take(set, rel, strdup(text), strlen(text), &err), "%s: %s", rel,
                  err.text);
}

/* files is {rel, text, rel, text, ..., NULL} */
static void fill(ctk_outset_t *set, const char *const *files)
{
    ctk_outset_init(set);
    for (; files && files[0]; files += 2)
        add(set, files[0], files[1]);
}

static ctk_plan_t *plan_ok(const ctk_outset_t *set)
{
    ctk_error_t err;
    ctk_plan_t *plan;

    ctk_error_init(&err);
    plan = ctk_write_plan(out, set, &err);
    ck_assert_msg(plan != NULL, "plan: %s: %s", err.source, err.text);
    return plan;
}

/* Plan and apply files (see fill) into out; returns the plan's counts. */
static void run_files(const char *const *files, bool force, size_t *created, size_t *updated,
                      size_t *removed, size_t *same)
{
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;

    fill(&set, files);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, created, updated, removed, same, NULL);
    ctk_error_init(&err);
    ck_assert_msg(ctk_write_apply(plan, force, &err), "apply: %s: %s", err.source, err.text);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
}

static void assert_file(const char *dir, const char *rel, const char *want)
{
    char *p = path_in(dir, rel), *got = tu_read(p);

    ck_assert_msg(got != NULL, "%s is missing", p);
    ck_assert_str_eq(got, want);
    free(got);
    free(p);
}

static bool exists(const char *dir, const char *rel)
{
    struct stat st;
    char *p = path_in(dir, rel);
    bool r = lstat(p, &st) == 0;

    free(p);
    return r;
}

static void set_old_mtime(const char *dir, const char *rel)
{
    struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
    char *p = path_in(dir, rel);

    ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
    free(p);
}

static bool has_old_mtime(const char *dir, const char *rel)
{
    struct stat st;
    char *p = path_in(dir, rel);

    ck_assert_int_eq(lstat(p, &st), 0);
    free(p);
    return st.st_mtim.tv_sec == 1000000000 && st.st_mtim.tv_nsec == 0;
}

static mode_t mode_of(const char *dir, const char *rel)
{
    struct stat st;
    char *p = path_in(dir, rel);

    ck_assert_int_eq(lstat(p, &st), 0);
    free(p);
    return st.st_mode & 07777;
}

static int tmp_count;
static int count_tmp_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    if (strstr(p + f->base, ".ctkgen-tmp-"))
        tmp_count++;
    return 0;
}

/* Temporary files left anywhere under dir. */
static int count_tmp(const char *dir)
{
    tmp_count = 0;
    nftw(dir, count_tmp_cb, 16, FTW_PHYS);
    return tmp_count;
}

static const char *const RUN1[] = {
    "lmod/cudatoolkit/12.4.lua", "-- 12.4\nprepend_path(\"PATH\", \"/opt/cuda-12.4/bin\")\n",
    "lmod/cudatoolkit/12.6.lua", "-- 12.6\n",
    "tcl/cudatoolkit/12.4", "#%Module\n# 12.4\n",
    "pkgconfig/ctk-12.4.pc", "Name: ctk\nVersion: 12.4\n",
    NULL};

/* ---- outset ------------------------------------------------------------------ */

static const char *const bad_paths[] = {
    "", "/etc/passwd", "a/../b", "..", "a//b", "a/", "./a", "a/./b", "a\nb",
    ".ctkgen-manifest", ".ctkgen.lock", "lmod/.x.ctkgen-tmp-abcdef",
};

START_TEST(test_outset_rejects_unsafe_paths)
{
    ctk_outset_t set;
    ctk_error_t err;

    ctk_outset_init(&set);
    ctk_error_init(&err);
    ck_assert(!ctk_outset_take(&set, bad_paths[_i], strdup("x"), 1, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_uint_eq(set.n, 0);
    ctk_outset_fini(&set);
}
END_TEST

START_TEST(test_outset_rejects_duplicates)
{
    ctk_outset_t set;
    ctk_error_t err;

    ctk_outset_init(&set);
    add(&set, "lmod/.version", "x");
    ctk_error_init(&err);
    ck_assert(!ctk_outset_take(&set, "lmod/.version", strdup("y"), 1, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_str_eq(err.source, "lmod/.version");
    ck_assert_uint_eq(set.n, 1);
    ctk_outset_fini(&set);
    ctk_outset_fini(NULL);
}
END_TEST

/* Past many index growths, every path is still found as a duplicate, and
 * drop keeps the others in order, findable. */
START_TEST(test_outset_many_and_drop)
{
    ctk_outset_t set;
    ctk_strlist_t keep;
    ctk_error_t err;
    char rel[64];
    size_t i;

    ctk_outset_init(&set);
    ctk_strlist_init(&keep);
    for (i = 0; i < 5000; i++) {
        snprintf(rel, sizeof rel, "lmod/cudatoolkit/13.0-t%zu.lua", i);
        add(&set, rel, "x");
    }
    ck_assert_uint_eq(set.n, 5000);
    for (i = 0; i < 5000; i += 499) {
        snprintf(rel, sizeof rel, "lmod/cudatoolkit/13.0-t%zu.lua", i);
        ctk_error_init(&err);
        ck_assert_msg(!ctk_outset_take(&set, rel, strdup("y"), 1, &err), "%s taken twice", rel);
        ck_assert_str_eq(err.text, "output path produced twice");
        if (i % 2 == 0)
            ck_assert(ctk_strlist_push(&keep, rel, &err));
    }
    ctk_error_init(&err);
    ck_assert(ctk_outset_drop(&set, &keep, &err));
    ck_assert_uint_eq(set.n, 5000 - keep.len);
    ck_assert_str_eq(set.files[0].relpath, "lmod/cudatoolkit/13.0-t1.lua");
    /* a dropped path may be taken again; one kept may not */
    ck_assert(ctk_outset_take(&set, keep.items[0], strdup("z"), 1, &err));
    ck_assert(!ctk_outset_take(&set, "lmod/cudatoolkit/13.0-t499.lua", strdup("z"), 1, &err));
    ctk_strlist_fini(&keep);
    ctk_outset_fini(&set);
}
END_TEST

START_TEST(test_plan_rejects_file_and_dir_at_one_path)
{
    static const char *const files[] = {"tcl/x", "a", "tcl/x/12.4", "b", NULL};
    ctk_outset_t set;
    ctk_error_t err;

    fill(&set, files);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_ptr_nonnull(strstr(err.text, "tcl/x"));
    ctk_outset_fini(&set);
}
END_TEST

/* ---- create / same / update / remove ------------------------------------------ */

START_TEST(test_write_creates_tree_and_manifest)
{
    size_t c, u, r, s;
    char h[4][17], *want = NULL, *mpath = path_in(out, ".ctkgen-manifest");
    ctk_outset_t set;
    ctk_plan_t *plan;

    fill(&set, RUN1);
    plan = plan_ok(&set);
    ck_assert(ctk_plan_has_changes(plan));
    ck_assert(plan->manifest_changed);
    ck_assert_uint_eq(plan->n, 4);
    /* sorted by relpath */
    ck_assert_str_eq(plan->items[0].relpath, "lmod/cudatoolkit/12.4.lua");
    ck_assert_str_eq(plan->items[1].relpath, "lmod/cudatoolkit/12.6.lua");
    ck_assert_str_eq(plan->items[2].relpath, "pkgconfig/ctk-12.4.pc");
    ck_assert_str_eq(plan->items[3].relpath, "tcl/cudatoolkit/12.4");
    ck_assert(!exists(tmp, "out")); /* planning writes nothing */
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    run_files(RUN1, false, &c, &u, &r, &s);
    ck_assert_uint_eq(c, 4);
    ck_assert_uint_eq(u + r + s, 0);
    assert_file(out, "lmod/cudatoolkit/12.4.lua", RUN1[1]);
    assert_file(out, "lmod/cudatoolkit/12.6.lua", RUN1[3]);
    assert_file(out, "tcl/cudatoolkit/12.4", RUN1[5]);
    assert_file(out, "pkgconfig/ctk-12.4.pc", RUN1[7]);

    ctk_hash_hex(RUN1[1], strlen(RUN1[1]), h[0]);
    ctk_hash_hex(RUN1[3], strlen(RUN1[3]), h[1]);
    ctk_hash_hex(RUN1[7], strlen(RUN1[7]), h[2]);
    ctk_hash_hex(RUN1[5], strlen(RUN1[5]), h[3]);
    ck_assert_int_ne(asprintf(&want,
                              "# ctkgen manifest v1\n"
                              "%s lmod/cudatoolkit/12.4.lua\n"
                              "%s lmod/cudatoolkit/12.6.lua\n"
                              "%s pkgconfig/ctk-12.4.pc\n"
                              "%s tcl/cudatoolkit/12.4\n",
                              h[0], h[1], h[2], h[3]), -1);
    assert_file(out, ".ctkgen-manifest", want);
    ck_assert_int_eq(count_tmp(tmp), 0);
    free(want);
    free(mpath);
}
END_TEST

START_TEST(test_write_second_run_changes_nothing)
{
    static const char *const touched[] = {
        "lmod/cudatoolkit/12.4.lua", "lmod/cudatoolkit/12.6.lua", "tcl/cudatoolkit/12.4",
        "pkgconfig/ctk-12.4.pc", ".ctkgen-manifest", "lmod/cudatoolkit", "lmod", "tcl",
        "pkgconfig", "tcl/cudatoolkit", "."};
    size_t i, c, u, r, s, conf;
    char *before, *after, *mpath = path_in(out, ".ctkgen-manifest");
    ctk_outset_t set;
    ctk_plan_t *plan;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    before = tu_read(mpath);
    /* an old mtime everywhere, so a rewrite cannot hide in the same tick */
    for (i = 0; i < sizeof touched / sizeof touched[0]; i++)
        set_old_mtime(out, touched[i]);

    fill(&set, RUN1);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, &c, &u, &r, &s, &conf);
    ck_assert_uint_eq(s, 4);
    ck_assert_uint_eq(c + u + r + conf, 0);
    ck_assert(!ctk_plan_has_changes(plan));
    ck_assert(!plan->manifest_changed);
    ck_assert(ctk_write_apply(plan, false, NULL));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    for (i = 0; i < sizeof touched / sizeof touched[0]; i++)
        ck_assert_msg(has_old_mtime(out, touched[i]), "%s was touched", touched[i]);
    after = tu_read(mpath);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
    free(mpath);
}
END_TEST

START_TEST(test_write_updates_only_changed_file)
{
    static const char *const run2[] = {
        "lmod/cudatoolkit/12.4.lua", "-- 12.4 changed\n",
        "lmod/cudatoolkit/12.6.lua", "-- 12.6\n",
        "tcl/cudatoolkit/12.4", "#%Module\n# 12.4\n",
        "pkgconfig/ctk-12.4.pc", "Name: ctk\nVersion: 12.4\n",
        NULL};
    size_t c, u, r, s, conf;
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    char h[17], *m, *mp;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    set_old_mtime(out, "lmod/cudatoolkit/12.6.lua");
    set_old_mtime(out, "lmod/cudatoolkit/12.4.lua");

    fill(&set, run2);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, &c, &u, &r, &s, &conf);
    ck_assert_uint_eq(u, 1);
    ck_assert_uint_eq(s, 3);
    ck_assert_uint_eq(c + r + conf, 0);
    ck_assert_int_eq(plan->items[0].kind, CTK_CHANGE_UPDATE);
    ck_assert(!plan->items[0].conflict);
    ck_assert_str_eq(plan->items[0].old_data, RUN1[1]);
    ck_assert_uint_eq(plan->items[0].old_len, strlen(RUN1[1]));
    ck_assert(plan->manifest_changed);
    ctk_error_init(&err);
    ck_assert(ctk_write_apply(plan, false, &err));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    assert_file(out, "lmod/cudatoolkit/12.4.lua", "-- 12.4 changed\n");
    ck_assert(!has_old_mtime(out, "lmod/cudatoolkit/12.4.lua"));
    ck_assert(has_old_mtime(out, "lmod/cudatoolkit/12.6.lua"));
    ctk_hash_hex("-- 12.4 changed\n", 16, h);
    mp = path_in(out, ".ctkgen-manifest");
    m = tu_read(mp);
    ck_assert_ptr_nonnull(strstr(m, h));
    free(m);
    free(mp);
    ck_assert_int_eq(count_tmp(tmp), 0);
}
END_TEST

START_TEST(test_write_removes_stale_files_and_empty_dirs)
{
    static const char *const run1[] = {
        "lmod/cudatoolkit/12.4.lua", "a\n", "lmod/old/1.lua", "b\n",
        "tcl/old/1", "c\n", "keep/old/1", "d\n", NULL};
    static const char *const run2[] = {"lmod/cudatoolkit/12.4.lua", "a\n", NULL};
    size_t c, u, r, s;
    char *m, *p;

    run_files(run1, false, NULL, NULL, NULL, NULL);
    /* an admin's own file keeps its directory alive */
    p = tu_write(out, "keep/old/README", "mine\n");
    free(p);

    run_files(run2, false, &c, &u, &r, &s);
    ck_assert_uint_eq(r, 3);
    ck_assert_uint_eq(s, 1);
    ck_assert_uint_eq(c + u, 0);
    ck_assert(!exists(out, "lmod/old"));
    ck_assert(!exists(out, "tcl")); /* emptied all the way up */
    ck_assert(exists(out, "lmod/cudatoolkit/12.4.lua"));
    ck_assert(!exists(out, "keep/old/1"));
    assert_file(out, "keep/old/README", "mine\n");
    ck_assert(exists(out, "."));
    p = path_in(out, ".ctkgen-manifest");
    m = tu_read(p);
    ck_assert_ptr_null(strstr(m, "old"));
    free(m);
    free(p);

    /* a stale file already deleted by hand is simply forgotten */
    run_files(run1, false, NULL, NULL, NULL, NULL);
    p = path_in(out, "tcl/old/1");
    ck_assert_int_eq(unlink(p), 0);
    free(p);
    run_files(run2, false, &c, &u, &r, &s);
    ck_assert_uint_eq(r, 2);
}
END_TEST

START_TEST(test_write_file_gives_way_to_directory)
{
    static const char *const run1[] = {"tcl/cudatoolkit", "old layout\n", NULL};
    static const char *const run2[] = {"tcl/cudatoolkit/12.4", "new layout\n", NULL};
    size_t c, u, r, s;

    run_files(run1, false, NULL, NULL, NULL, NULL);
    run_files(run2, false, &c, &u, &r, &s);
    ck_assert_uint_eq(c, 1);
    ck_assert_uint_eq(r, 1);
    assert_file(out, "tcl/cudatoolkit/12.4", "new layout\n");
    ck_assert_uint_eq(mode_of(out, "tcl/cudatoolkit"), 0755);
}
END_TEST

/* ---- conflicts ------------------------------------------------------------------ */

START_TEST(test_write_refuses_hand_edited_file)
{
    static const char *const run2[] = {
        "lmod/cudatoolkit/12.4.lua", "-- 12.4\nprepend_path(\"PATH\", \"/opt/cuda-12.4/bin\")\n",
        "lmod/cudatoolkit/12.6.lua", "-- 12.6 new\n",
        "lmod/cudatoolkit/12.8.lua", "-- 12.8\n",
        NULL};
    char *p, *m1, *m2, *mpath = path_in(out, ".ctkgen-manifest");
    size_t conf;
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    p = tu_write(out, "lmod/cudatoolkit/12.4.lua", "-- fixed by the admin\n");
    free(p);
    m1 = tu_read(mpath);

    /* ctkgen still produces the old text: the hand edit would be lost */
    fill(&set, run2);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, NULL, NULL, NULL, NULL, &conf);
    ck_assert_uint_eq(conf, 1);
    ck_assert_int_eq(plan->items[0].kind, CTK_CHANGE_UPDATE);
    ck_assert(plan->items[0].conflict);
    /* what --check and --dry-run ask: the same refusal, and --force lifts it */
    ctk_error_init(&err);
    ck_assert(!ctk_plan_allowed(plan, false, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.text, "lmod/cudatoolkit/12.4.lua was edited by hand (or not written "
                               "by ctkgen); use --force to overwrite");
    ctk_error_init(&err);
    ck_assert(ctk_plan_allowed(plan, true, &err));
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, false, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.text, "lmod/cudatoolkit/12.4.lua was edited by hand (or not written "
                               "by ctkgen); use --force to overwrite");
    /* nothing at all was written */
    assert_file(out, "lmod/cudatoolkit/12.4.lua", "-- fixed by the admin\n");
    assert_file(out, "lmod/cudatoolkit/12.6.lua", "-- 12.6\n");
    ck_assert(!exists(out, "lmod/cudatoolkit/12.8.lua"));
    ck_assert(exists(out, "tcl/cudatoolkit/12.4"));
    m2 = tu_read(mpath);
    ck_assert_str_eq(m1, m2);
    free(m2);

    /* --force */
    ctk_error_init(&err);
    ck_assert_msg(ctk_write_apply(plan, true, &err), "%s", err.text);
    assert_file(out, "lmod/cudatoolkit/12.4.lua", run2[1]);
    assert_file(out, "lmod/cudatoolkit/12.8.lua", "-- 12.8\n");
    ck_assert(!exists(out, "tcl"));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    /* and the next run is clean */
    fill(&set, run2);
    plan = plan_ok(&set);
    ck_assert(!ctk_plan_has_changes(plan));
    ck_assert(!plan->manifest_changed);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    free(m1);
    free(mpath);
}
END_TEST

/* ---- bookkeeping another user could have written ------------------------------------ */

/* How a planted bookkeeping file is made one ctkgen must not trust: owned
 * by another user (as root), group-writable, world-writable. */
static const char *const foreign_kinds[] = {"another owner", "mode 0664", "mode 0646"};

static void make_foreign(const char *path, int kind)
{
    if (kind == 0 && geteuid() == 0)
        ck_assert_int_eq(chown(path, 65534, 65534), 0);
    else
        ck_assert_int_eq(chmod(path, kind == 2 ? 0646 : 0664), 0);
}

/* A manifest text listing files with the hashes of the given bytes. */
static char *manifest_of(const char *const *files)
{
    ctk_buf_t b;
    char h[17];

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "# ctkgen manifest v1\n");
    for (; files[0]; files += 2) {
        ctk_hash_hex(files[1], strlen(files[1]), h);
        ctk_buf_printf(&b, "%s %s\n", h, files[0]);
    }
    ck_assert(!b.failed);
    return ctk_buf_take(&b, NULL);
}

static bool notes_name(const ctk_plan_t *plan, const char *what)
{
    size_t i;

    for (i = 0; i < plan->notes.len; i++)
        if (strstr(plan->notes.items[i], what))
            return true;
    return false;
}

/* A pending manifest, a manifest or a temp file that another user could
 * have written decides nothing: an admin's file it names is neither
 * removed nor counted as ctkgen's, each is named in the plan's notes, and
 * a planted temp file stays where it is. */
START_TEST(test_plan_ignores_bookkeeping_another_user_could_write)
{
    static const char *const admin[] = {"lmod/cudatoolkit/12.2.lua", "-- by hand\n", NULL};
    static const char *const run2[] = {
        "lmod/cudatoolkit/12.4.lua", "-- 12.4\nprepend_path(\"PATH\", \"/opt/cuda-12.4/bin\")\n",
        "lmod/cudatoolkit/12.6.lua", "-- 12.6 new\n",
        "tcl/cudatoolkit/12.4", "#%Module\n# 12.4\n",
        "pkgconfig/ctk-12.4.pc", "Name: ctk\nVersion: 12.4\n",
        NULL};
    const char *tmpname = "lmod/cudatoolkit/.12.6.lua.ctkgen-tmp-Zz9Zz9";
    char *pend = path_in(out, CTK_PENDING_NAME), *man = path_in(out, CTK_MANIFEST_NAME);
    char *text = manifest_of(admin), *p, *q;
    size_t removed, conf;
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    struct stat st;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    free(tu_write(out, admin[0], admin[1]));

    /* a planted pending manifest naming the admin's file, and a temp file */
    p = tu_write(out, CTK_PENDING_NAME, text);
    make_foreign(p, _i);
    q = tu_write(out, tmpname, "planted");
    make_foreign(q, _i);
    fill(&set, run2);
    plan = plan_ok(&set);
    ck_assert(!plan->pending);
    ctk_plan_counts(plan, NULL, NULL, &removed, NULL, &conf);
    ck_assert_uint_eq(removed, 0);
    ck_assert_uint_eq(conf, 0);
    ck_assert_uint_eq(plan->notes.len, 2);
    ck_assert_msg(notes_name(plan, pend), "no note names %s", pend);
    ck_assert(notes_name(plan, ".12.6.lua.ctkgen-tmp-Zz9Zz9"));
    ck_assert(notes_name(plan, _i == 0 && geteuid() == 0 ? "owned by" : "may write it"));
    ctk_error_init(&err);
    ck_assert_msg(ctk_write_apply(plan, false, &err), "%s", err.text);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    assert_file(out, admin[0], admin[1]);
    assert_file(out, "lmod/cudatoolkit/12.6.lua", "-- 12.6 new\n");
    assert_file(out, tmpname, "planted");
    /* the run's own pending manifest took the planted one's place, then went */
    ck_assert(!exists(out, CTK_PENDING_NAME));
    free(p);

    /* with nothing to change, a planted pending manifest is only ignored */
    p = tu_write(out, CTK_PENDING_NAME, text);
    make_foreign(p, _i);
    fill(&set, run2);
    plan = plan_ok(&set);
    ck_assert(!plan->pending && !ctk_plan_has_changes(plan) && !plan->manifest_changed);
    ck_assert(notes_name(plan, pend));
    ctk_error_init(&err);
    ck_assert(ctk_write_apply(plan, false, &err));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    assert_file(out, admin[0], admin[1]);
    ck_assert(exists(out, CTK_PENDING_NAME));
    ck_assert_int_eq(unlink(p), 0);
    free(p);

    /* a planted manifest (none of ctkgen's in the way) naming the admin's
     * file beside ctkgen's: not removed; the run writes its own manifest */
    ck_assert_int_eq(unlink(man), 0);
    free(text);
    {
        static const char *const both[] = {
            "lmod/cudatoolkit/12.2.lua", "-- by hand\n",
            "lmod/cudatoolkit/12.4.lua", "-- 12.4\nprepend_path(\"PATH\", \"/opt/cuda-12.4/bin\")\n",
            NULL};

        text = manifest_of(both);
    }
    p = tu_write(out, CTK_MANIFEST_NAME, text);
    make_foreign(p, _i);
    free(p);
    fill(&set, run2);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, NULL, NULL, &removed, NULL, &conf);
    ck_assert_uint_eq(removed, 0);
    ck_assert_uint_eq(conf, 0);
    ck_assert(plan->manifest_changed);
    ck_assert(notes_name(plan, man));
    ctk_error_init(&err);
    ck_assert_msg(ctk_write_apply(plan, false, &err), "%s", err.text);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    assert_file(out, admin[0], admin[1]);
    ck_assert_int_eq(lstat(man, &st), 0);
    ck_assert_int_eq(st.st_uid, geteuid());
    ck_assert_int_eq(st.st_mode & 07777, 0644);
    p = tu_read(man);
    ck_assert_ptr_null(strstr(p, "12.2.lua"));
    free(p);

    /* and the next run trusts that one: a clean re-run, no note but the
     * planted temp file's */
    fill(&set, run2);
    plan = plan_ok(&set);
    ck_assert(!ctk_plan_has_changes(plan) && !plan->manifest_changed);
    ck_assert_uint_eq(plan->notes.len, 1);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    free(q);
    free(text);
    free(pend);
    free(man);
}
END_TEST

START_TEST(test_write_interrupted_run_rolls_back_or_forward)
{
    static const char *const run2[] = {
        "lmod/cudatoolkit/12.4.lua", "-- 12.4 new\n",
        "lmod/cudatoolkit/12.8.lua", "-- 12.8\n",
        NULL};
    char *p, *pend = path_in(out, CTK_PENDING_NAME);
    size_t conf, created, updated, removed;
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    FILE *fp;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    /* a run towards run2 killed after its pending manifest, one update,
     * one create and a half-written temp file */
    fill(&set, run2);
    plan = plan_ok(&set);
    fp = fopen(pend, "w");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(plan->manifest, 1, plan->manifest_len, fp), plan->manifest_len);
    ck_assert_int_eq(fclose(fp), 0);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    free(tu_write(out, "lmod/cudatoolkit/12.4.lua", "-- 12.4 new\n"));
    free(tu_write(out, "lmod/cudatoolkit/12.8.lua", "-- 12.8\n"));
    free(tu_write(out, "lmod/cudatoolkit/.12.6.lua.ctkgen-tmp-Ab3dEf", "-- 12"));
    /* an admin's file that merely looks alike is not touched */
    free(tu_write(out, "lmod/cudatoolkit/.notes.ctkgen-tmp-keep", "mine"));

    /* the old config again: neither file counts as edited by hand; the
     * created one goes, the updated one comes back, the temp file goes */
    fill(&set, RUN1);
    plan = plan_ok(&set);
    ck_assert(plan->pending);
    ck_assert(plan->manifest_changed);
    ctk_plan_counts(plan, &created, &updated, &removed, NULL, &conf);
    ck_assert_uint_eq(conf, 0);
    ck_assert_uint_eq(updated, 1);
    ck_assert_uint_eq(removed, 1);
    ctk_error_init(&err);
    ck_assert_msg(ctk_write_apply(plan, false, &err), "%s", err.text);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    assert_file(out, "lmod/cudatoolkit/12.4.lua", RUN1[1]);
    ck_assert(!exists(out, "lmod/cudatoolkit/12.8.lua"));
    ck_assert(!exists(out, "lmod/cudatoolkit/.12.6.lua.ctkgen-tmp-Ab3dEf"));
    ck_assert(exists(out, "lmod/cudatoolkit/.notes.ctkgen-tmp-keep"));
    ck_assert(!exists(out, CTK_PENDING_NAME));
    ck_assert_int_eq(count_tmp(out), 0 + 1); /* the admin's look-alike only */

    /* and with a pending manifest that names a file edited by hand since,
     * the edit is still a conflict */
    fill(&set, run2);
    plan = plan_ok(&set);
    fp = fopen(pend, "w");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(plan->manifest, 1, plan->manifest_len, fp), plan->manifest_len);
    ck_assert_int_eq(fclose(fp), 0);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    p = tu_write(out, "lmod/cudatoolkit/12.6.lua", "-- edited by the admin\n");
    free(p);
    fill(&set, run2);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, NULL, NULL, NULL, NULL, &conf);
    ck_assert_uint_eq(conf, 1);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    free(pend);
}
END_TEST

START_TEST(test_write_force_restores_without_touching_manifest)
{
    char *p;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    p = tu_write(out, "tcl/cudatoolkit/12.4", "#%Module\n# by hand\n");
    free(p);
    set_old_mtime(out, ".ctkgen-manifest");
    set_old_mtime(out, "lmod/cudatoolkit/12.4.lua");
    run_files(RUN1, true, NULL, NULL, NULL, NULL);
    assert_file(out, "tcl/cudatoolkit/12.4", RUN1[5]);
    /* what ctkgen wrote is what the manifest already says */
    ck_assert(has_old_mtime(out, ".ctkgen-manifest"));
    ck_assert(has_old_mtime(out, "lmod/cudatoolkit/12.4.lua"));
}
END_TEST

START_TEST(test_write_refuses_removing_hand_edited_file)
{
    static const char *const run2[] = {"lmod/cudatoolkit/12.4.lua", RUN1[1], NULL};
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    size_t r, conf;
    char *p;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    p = tu_write(out, "tcl/cudatoolkit/12.4", "#%Module\n# site tweak\n");
    free(p);
    fill(&set, run2);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, NULL, NULL, &r, NULL, &conf);
    ck_assert_uint_eq(r, 3);
    ck_assert_uint_eq(conf, 1);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, false, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.text, "tcl/cudatoolkit/12.4 was edited by hand and ctkgen no longer "
                               "generates it; use --force to remove it");
    ck_assert(exists(out, "lmod/cudatoolkit/12.6.lua"));
    assert_file(out, "tcl/cudatoolkit/12.4", "#%Module\n# site tweak\n");
    ck_assert(ctk_write_apply(plan, true, NULL));
    ck_assert(!exists(out, "tcl"));
    ck_assert(!exists(out, "lmod/cudatoolkit/12.6.lua"));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
}
END_TEST

START_TEST(test_write_file_not_written_by_ctkgen_is_conflict)
{
    static const char *const run[] = {
        "lmod/cudatoolkit/12.4.lua", "-- generated\n",
        "lmod/cudatoolkit/12.6.lua", "-- same\n",
        "lmod/cudatoolkit/12.8.lua", "-- x\n",
        "lmod/cudatoolkit/13.0.lua", "-- y\n",
        "lmod/cudatoolkit/13.1.lua", "-- z\n",
        NULL};
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    size_t s, conf;
    char *p, *m;

    /* a hand-written module an admin put there, and no manifest at all */
    p = tu_write(out, "lmod/cudatoolkit/12.4.lua", "-- handwritten\n");
    free(p);
    /* a file that happens to hold exactly what ctkgen writes is adopted */
    p = tu_write(out, "lmod/cudatoolkit/12.6.lua", "-- same\n");
    free(p);
    fill(&set, run);
    plan = plan_ok(&set);
    ctk_plan_counts(plan, NULL, NULL, NULL, &s, &conf);
    ck_assert_uint_eq(conf, 1);
    ck_assert_uint_eq(s, 1);
    ck_assert(plan->items[0].conflict);
    ck_assert(!plan->items[1].conflict);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, false, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, out);
    ck_assert_ptr_nonnull(strstr(err.text, "lmod/cudatoolkit/12.4.lua was edited by hand"));
    ck_assert(!exists(out, ".ctkgen-manifest"));
    ck_assert(!exists(out, "lmod/cudatoolkit/13.0.lua"));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    /* several conflicts: the message names the first few and counts the rest */
    for (s = 0; run[s]; s += 2) {
        p = tu_write(out, run[s], "-- mine\n");
        free(p);
    }
    fill(&set, run);
    plan = plan_ok(&set);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, false, &err));
    ck_assert_str_eq(err.text, "5 files were edited by hand (or not written by ctkgen): "
                               "lmod/cudatoolkit/12.4.lua, lmod/cudatoolkit/12.6.lua, "
                               "lmod/cudatoolkit/12.8.lua and 2 more; use --force to overwrite");
    ck_assert(ctk_write_apply(plan, true, NULL));
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    assert_file(out, "lmod/cudatoolkit/12.4.lua", "-- generated\n");
    p = path_in(out, ".ctkgen-manifest");
    m = tu_read(p);
    ck_assert_ptr_nonnull(strstr(m, " lmod/cudatoolkit/12.6.lua\n"));
    free(m);
    free(p);
}
END_TEST

/* ---- symlinks and things in the way ----------------------------------------------- */

START_TEST(test_write_refuses_symlinked_dir)
{
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    char *outside = tu_mkdirs(tmp, "outside"), *link, *want;

    ck_assert_int_eq(mkdir(out, 0755), 0);
    link = path_in(out, "lmod");
    ck_assert_int_eq(symlink(outside, link), 0);
    fill(&set, RUN1);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, link);
    ck_assert_ptr_nonnull(strstr(err.text, "symlink"));
    ck_assert_int_eq(tu_sh("test -z \"$(ls -A '%s')\"", outside), 0);

    /* planted after planning: apply must still not follow it */
    ck_assert_int_eq(unlink(link), 0);
    plan = plan_ok(&set);
    ck_assert_int_eq(symlink(outside, link), 0);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, false, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_int_eq(tu_sh("test -z \"$(ls -A '%s')\"", outside), 0);
    ck_assert(!exists(out, ".ctkgen-manifest"));
    ck_assert_int_eq(count_tmp(tmp), 0);
    ctk_plan_free(plan);

    /* a symlink deeper down, below a real directory */
    ck_assert_int_eq(unlink(link), 0);
    want = tu_mkdirs(out, "lmod");
    free(want);
    free(link);
    link = path_in(out, "lmod/cudatoolkit");
    ck_assert_int_eq(symlink(outside, link), 0);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, link);
    ck_assert_int_eq(tu_sh("test -z \"$(ls -A '%s')\"", outside), 0);
    ctk_outset_fini(&set);
    free(link);
    free(outside);
}
END_TEST

START_TEST(test_write_refuses_symlinked_file)
{
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    char *target = tu_write(tmp, "outside/passwd", "precious\n"), *link, *d;

    d = tu_mkdirs(out, "lmod/cudatoolkit");
    free(d);
    link = path_in(out, "lmod/cudatoolkit/12.4.lua");
    ck_assert_int_eq(symlink(target, link), 0);
    fill(&set, RUN1);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, link);
    assert_file(tmp, "outside/passwd", "precious\n");

    /* planted after planning: the link is replaced, its target untouched */
    ck_assert_int_eq(unlink(link), 0);
    plan = plan_ok(&set);
    ck_assert_int_eq(symlink(target, link), 0);
    ck_assert(ctk_write_apply(plan, true, NULL));
    assert_file(tmp, "outside/passwd", "precious\n");
    ck_assert_uint_eq(mode_of(out, "lmod/cudatoolkit/12.4.lua"), 0644);
    assert_file(out, "lmod/cudatoolkit/12.4.lua", RUN1[1]);
    ctk_plan_free(plan);

    /* a symlinked manifest is refused too */
    free(link);
    link = path_in(out, ".ctkgen-manifest");
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(symlink(target, link), 0);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, link);
    assert_file(tmp, "outside/passwd", "precious\n");
    ctk_outset_fini(&set);
    free(link);
    free(target);
}
END_TEST

START_TEST(test_write_refuses_file_where_dir_needed)
{
    ctk_outset_t set;
    ctk_error_t err;
    char *p = tu_write(out, "lmod", "not a dir\n"), *want = path_in(out, "lmod");

    free(p);
    fill(&set, RUN1);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, want);
    ck_assert_ptr_nonnull(strstr(err.text, "not a directory"));
    ctk_outset_fini(&set);
    free(want);

    /* and a directory where a file goes */
    ck_assert_int_eq(tu_sh("rm -f '%s/lmod' && mkdir -p '%s/pkgconfig/ctk-12.4.pc'", out, out),
                     0);
    fill(&set, RUN1);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_ptr_nonnull(strstr(err.text, "directory"));
    ctk_outset_fini(&set);
}
END_TEST

/* ---- modes -------------------------------------------------------------------------- */

static const mode_t umasks[] = {077, 000, 022, 027};

START_TEST(test_write_modes_ignore_umask)
{
    static const char *const dirs[] = {"lmod", "lmod/cudatoolkit", "tcl", "tcl/cudatoolkit",
                                       "pkgconfig", "."};
    mode_t old = umask(umasks[_i]);
    char *deep;
    size_t i;

    free(out);
    ck_assert_int_ne(asprintf(&out, "%s/a/b/out", tmp), -1);
    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    umask(old);
    for (i = 0; RUN1[i]; i += 2)
        ck_assert_uint_eq(mode_of(out, RUN1[i]), 0644);
    ck_assert_uint_eq(mode_of(out, ".ctkgen-manifest"), 0644);
    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        ck_assert_msg(mode_of(out, dirs[i]) == 0755, "%s has mode %o", dirs[i],
                      (unsigned)mode_of(out, dirs[i]));
    ck_assert_uint_eq(mode_of(tmp, "a"), 0755);
    ck_assert_uint_eq(mode_of(tmp, "a/b"), 0755);

    /* the lock file too, and existing directories are left as they are */
    deep = tu_mkdirs(out, "site");
    ck_assert_int_eq(chmod(deep, 0700), 0);
    free(deep);
    umask(umasks[_i]);
    {
        ctk_lock_t *lock = ctk_write_lock(out, 0, NULL);

        ck_assert_ptr_nonnull(lock);
        ctk_write_unlock(lock);
    }
    umask(old);
    ck_assert_uint_eq(mode_of(out, "site"), 0700);
    /* the lock file is the runner's alone */
    ck_assert_uint_eq(mode_of(out, ".ctkgen.lock"), 0600);
}
END_TEST

/* ---- failures ----------------------------------------------------------------------- */

START_TEST(test_write_failure_keeps_old_file)
{
    static const char *const run2[] = {
        "lmod/cudatoolkit/12.4.lua", NULL /* big, filled below */,
        "lmod/cudatoolkit/12.6.lua", "-- 12.6\n", NULL};
    struct rlimit old_rl, rl;
    char *big = malloc(65536), *m1, *m2, *mpath = path_in(out, ".ctkgen-manifest");
    const char *files[5];
    void (*old_sig)(int);
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    bool ok;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    m1 = tu_read(mpath);
    memset(big, 'x', 65535);
    big[65535] = '\0';
    memcpy(files, run2, sizeof files);
    files[1] = big;
    fill(&set, files);
    plan = plan_ok(&set);

    /* a full disk, as root can meet it too: writes past 4 KiB fail (EFBIG) */
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old_rl), 0);
    rl = old_rl;
    rl.rlim_cur = 4096;
    old_sig = signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    ctk_error_init(&err);
    ok = ctk_write_apply(plan, false, &err);
    setrlimit(RLIMIT_FSIZE, &old_rl);
    signal(SIGXFSZ, old_sig);

    ck_assert(!ok);
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_ptr_nonnull(strstr(err.source, "lmod/cudatoolkit/12.4.lua"));
    ck_assert_ptr_nonnull(strstr(err.text, strerror(EFBIG)));
    assert_file(out, "lmod/cudatoolkit/12.4.lua", RUN1[1]);
    ck_assert_int_eq(count_tmp(tmp), 0);
    m2 = tu_read(mpath);
    ck_assert_str_eq(m1, m2);
    free(m2);

    /* a directory in the way of the rename: the temp file is cleaned up */
    ck_assert_int_eq(tu_sh("rm '%s/lmod/cudatoolkit/12.4.lua' && "
                           "mkdir '%s/lmod/cudatoolkit/12.4.lua'", out, out), 0);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, false, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_int_eq(count_tmp(tmp), 0);
    m2 = tu_read(mpath);
    ck_assert_str_eq(m1, m2);
    free(m2);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    /* without privileges, a read-only directory */
    if (getuid() != 0) {
        char *d = path_in(out, "lmod/cudatoolkit");

        ck_assert_int_eq(tu_sh("rmdir '%s/lmod/cudatoolkit/12.4.lua' && printf 'old\\n' > "
                               "'%s/lmod/cudatoolkit/12.4.lua'", out, out), 0);
        fill(&set, files);
        plan = plan_ok(&set);
        ck_assert_int_eq(chmod(d, 0555), 0);
        ctk_error_init(&err);
        ck_assert(!ctk_write_apply(plan, true, &err));
        ck_assert_int_eq(err.code, CTK_E_IO);
        ck_assert_ptr_nonnull(strstr(err.text, strerror(EACCES)));
        chmod(d, 0755);
        assert_file(out, "lmod/cudatoolkit/12.4.lua", "old\n");
        ck_assert_int_eq(count_tmp(tmp), 0);
        ctk_plan_free(plan);
        ctk_outset_fini(&set);
        free(d);
    }
    free(m1);
    free(mpath);
    free(big);
}
END_TEST

/* In a child that became uid/gid 65534: the checks of
 * test_write_denied_finds_the_directory_in_the_way as an exit status, 0
 * when all hold, else the number of the first that failed. */
static int denied_as_nobody(const char *ro, const char *mine)
{
    char *sub = path_in(ro, "a/b"), *lock = path_in(ro, CTK_LOCK_NAME);
    ctk_denied_t d;

    if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
        return 1;
    if (!ctk_write_denied(ro, &d) || strcmp(d.dir, ro) || d.why != EACCES || d.uid != 65534 ||
        d.owner_uid != 0 || d.mode != 0755 || strcmp(d.owner, "root"))
        return 2;
    if (!ctk_write_denied(sub, &d) || strcmp(d.dir, ro))
        return 3; /* a directory to create: the nearest one there */
    if (!ctk_write_denied(lock, &d) || strcmp(d.dir, ro))
        return 4; /* a file: its directory */
    if (ctk_write_denied(mine, &d))
        return 5;
    free(sub);
    free(lock);
    return 0;
}

/* ctk_write_denied names the directory this user may not write in (the
 * path, its directory, or the nearest one that exists), its owner and mode,
 * and says nothing of one it may write in. */
START_TEST(test_write_denied_finds_the_directory_in_the_way)
{
    char *ro = path_in(tmp, "ro"), *mine = path_in(tmp, "mine");
    ctk_denied_t d;
    pid_t child;
    int status;

    ck_assert(!ctk_write_denied(out, &d));
    ck_assert(!ctk_write_denied(tmp, &d));
    ck_assert_int_eq(mkdir(ro, 0755), 0);
    ck_assert_int_eq(chmod(ro, 0755), 0);
    ck_assert_int_eq(mkdir(mine, 0755), 0);
    ck_assert_int_eq(tu_sh("printf '1\\n' > '%s/%s'", ro, CTK_LOCK_NAME), 0);
    if (getuid() == 0) {
        /* mode 0755 on the way, so the other user reaches ro and mine */
        ck_assert_int_eq(chmod(tmp, 0755), 0);
        ck_assert_int_eq(chown(mine, 65534, 65534), 0);
        child = fork();
        ck_assert_int_ge(child, 0);
        if (child == 0)
            _exit(denied_as_nobody(ro, mine));
        ck_assert_int_eq(waitpid(child, &status, 0), child);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "check %d failed as uid 65534",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    } else {
        /* its own directory, made read-only */
        ck_assert_int_eq(chmod(ro, 0555), 0);
        ck_assert(ctk_write_denied(ro, &d));
        ck_assert_str_eq(d.dir, ro);
        ck_assert_int_eq(d.uid, d.owner_uid);
        ck_assert_int_eq(d.mode, 0555);
        chmod(ro, 0755);
    }
    free(ro);
    free(mine);
}
END_TEST

START_TEST(test_write_dir_replaced_by_file_after_plan)
{
    static const char *const run2[] = {"lmod/new/1.lua", "n\n", NULL};
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    char *p;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    fill(&set, run2);
    plan = plan_ok(&set);
    p = tu_write(out, "lmod/new", "in the way\n");
    free(p);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, true, &err));
    ck_assert(err.code == CTK_E_CONFLICT || err.code == CTK_E_IO);
    assert_file(out, "lmod/new", "in the way\n");
    ck_assert_int_eq(count_tmp(tmp), 0);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
}
END_TEST

/* ctk_write_read reads the tree as generate does: a regular file, a
 * missing one (or a file where a directory should be) as absent, and
 * refuses a symlink at the file or on the way, and a FIFO, without
 * following or opening it for reading. */
START_TEST(test_write_read_follows_no_link)
{
    char *elsewhere = tu_write(tmp, "secret", "secret\n"), *p, *data = NULL;
    ctk_error_t err;
    size_t len = 0;

    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    ck_assert_int_eq(ctk_write_read(out, "tcl/cudatoolkit/12.4", 1024, &data, &len, NULL), 1);
    ck_assert_str_eq(data, "#%Module\n# 12.4\n");
    ck_assert_uint_eq(len, strlen(data));
    free(data);
    data = NULL;
    ck_assert_int_eq(ctk_write_read(out, "tcl/cudatoolkit/9.9", 1024, &data, &len, NULL), 0);
    ck_assert_int_eq(ctk_write_read(out, "tcl/cudatoolkit/12.4/x", 1024, &data, &len, NULL), 0);
    ck_assert_int_eq(ctk_write_read(out, "none/x", 1024, &data, &len, NULL), 0);
    ck_assert_ptr_null(data);

    /* too large for the caller */
    ctk_error_init(&err);
    ck_assert_int_eq(ctk_write_read(out, "tcl/cudatoolkit/12.4", 4, &data, &len, &err), -1);
    ck_assert_int_eq(err.code, CTK_E_IO);

    /* a symlink at the file */
    p = path_in(out, "pkgconfig/ctk-12.4.pc");
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(symlink(elsewhere, p), 0);
    ctk_error_init(&err);
    ck_assert_int_eq(ctk_write_read(out, "pkgconfig/ctk-12.4.pc", 1024, &data, &len, &err), -1);
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, p);
    ck_assert_ptr_nonnull(strstr(err.text, "symlink"));
    free(p);

    /* a FIFO: refused at once, not waited on */
    p = path_in(out, "tcl/cudatoolkit/12.4");
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(mkfifo(p, 0644), 0);
    ctk_error_init(&err);
    ck_assert_int_eq(ctk_write_read(out, "tcl/cudatoolkit/12.4", 1024, &data, &len, &err), -1);
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, p);
    free(p);

    /* a symlinked directory on the way */
    p = path_in(out, "lmod");
    ck_assert_int_eq(tu_sh("mv '%s' '%s/lmod-real'", p, tmp), 0);
    ck_assert_int_eq(symlink("../lmod-real", p), 0);
    ctk_error_init(&err);
    ck_assert_int_eq(ctk_write_read(out, "lmod/cudatoolkit/12.6.lua", 1024, &data, &len, &err), -1);
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, p);
    ck_assert_ptr_null(data);
    free(p);
    free(elsewhere);
}
END_TEST

/* ---- inputs and reuse ---------------------------------------------------------- */

#define IN_A "0123456789abcdef"
#define IN_B "fedcba9876543210"

/* RUN1 written with inputs IN_A on its first two files */
static void write_with_inputs(void)
{
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;

    fill(&set, RUN1);
    set.n -= 2; /* the last two: no inputs */
    ctk_outset_mark_input(&set, 0, IN_A);
    set.n += 2;
    plan = plan_ok(&set);
    ctk_error_init(&err);
    ck_assert_msg(ctk_write_apply(plan, false, &err), "apply: %s", err.text);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
}

/* RUN1 as a re-run would give it: the first two reused under IN_A */
static void fill_reused(ctk_outset_t *set, const ctk_records_t *rec)
{
    char hash[17], input[17];
    ctk_error_t err;
    size_t i;

    ctk_outset_init(set);
    ctk_error_init(&err);
    for (i = 0; RUN1[2 * i]; i++) {
        if (i < 2) {
            ck_assert(ctk_records_find(rec, RUN1[2 * i], hash, input));
            ck_assert_str_eq(input, IN_A);
            ck_assert(ctk_outset_reuse(set, RUN1[2 * i], hash, input, &err));
        } else {
            add(set, RUN1[2 * i], RUN1[2 * i + 1]);
        }
    }
}

START_TEST(test_manifest_records_inputs)
{
    char *mp = path_in(out, ".ctkgen-manifest"), *m, h[17], line[128], hash[17], input[17];
    ctk_records_t *rec;
    ctk_error_t err;

    write_with_inputs();
    m = tu_read(mp);
    ck_assert_ptr_nonnull(strstr(m, "# ctkgen manifest v2\n"));
    ctk_hash_hex(RUN1[1], strlen(RUN1[1]), h);
    snprintf(line, sizeof line, "%s %s %s\n", h, IN_A, RUN1[0]);
    ck_assert_msg(strstr(m, line), "no line \"%s\" in:\n%s", line, m);
    ctk_hash_hex(RUN1[5], strlen(RUN1[5]), h);
    snprintf(line, sizeof line, "%s ---------------- %s\n", h, RUN1[4]);
    ck_assert_msg(strstr(m, line), "no line \"%s\" in:\n%s", line, m);
    ctk_error_init(&err);
    rec = ctk_write_records(out, &err);
    ck_assert_ptr_nonnull(rec);
    ck_assert(ctk_records_find(rec, RUN1[2], hash, input));
    ctk_hash_hex(RUN1[3], strlen(RUN1[3]), h);
    ck_assert_str_eq(hash, h);
    ck_assert_str_eq(input, IN_A);
    ck_assert(!ctk_records_find(rec, RUN1[4], hash, input)); /* no inputs recorded */
    ck_assert(!ctk_records_find(rec, "lmod/none.lua", hash, input));
    ctk_records_free(rec);
    free(m);
    free(mp);
}
END_TEST

START_TEST(test_reuse_unchanged_is_same)
{
    char *mp = path_in(out, ".ctkgen-manifest"), *before, *after;
    ctk_records_t *rec;
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;
    size_t c, u, r, same;

    write_with_inputs();
    before = tu_read(mp);
    ctk_error_init(&err);
    rec = ctk_write_records(out, &err);
    fill_reused(&set, rec);
    plan = plan_ok(&set);
    ck_assert_uint_eq(plan->stale, 0);
    ctk_plan_counts(plan, &c, &u, &r, &same, NULL);
    ck_assert_uint_eq(c + u + r, 0);
    ck_assert_uint_eq(same, 4);
    ck_assert(!plan->manifest_changed);
    ck_assert(ctk_write_apply(plan, false, &err));
    after = tu_read(mp);
    ck_assert_str_eq(before, after);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    ctk_records_free(rec);
    free(before);
    free(after);
    free(mp);
}
END_TEST

/* 0: edited by hand, 1: removed */
START_TEST(test_reuse_not_on_disk_is_stale)
{
    char *p = path_in(out, RUN1[0]), *before;
    ctk_records_t *rec;
    ctk_outset_t set;
    ctk_plan_t *plan;
    ctk_error_t err;

    write_with_inputs();
    if (_i == 0)
        free(tu_write(out, RUN1[0], "-- edited\n"));
    else
        ck_assert_int_eq(unlink(p), 0);
    before = _i == 0 ? tu_read(p) : NULL;
    ctk_error_init(&err);
    rec = ctk_write_records(out, &err);
    fill_reused(&set, rec);
    plan = plan_ok(&set);
    ck_assert_uint_eq(plan->stale, 1);
    ck_assert(!ctk_plan_allowed(plan, true, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_plan_diff(plan, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ctk_error_init(&err);
    ck_assert(!ctk_write_apply(plan, true, &err)); /* never, even forced */
    if (_i == 0) {
        char *now = tu_read(p);

        ck_assert_str_eq(now, before);
        free(now);
    }
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
    ctk_records_free(rec);
    free(before);
    free(p);
}
END_TEST

START_TEST(test_records_absent_or_foreign_are_empty)
{
    char hash[17], input[17];
    ctk_records_t *rec;
    ctk_error_t err;

    ctk_error_init(&err);
    rec = ctk_write_records(out, &err); /* no manifest yet */
    ck_assert_ptr_nonnull(rec);
    ck_assert(!ctk_records_find(rec, RUN1[0], hash, input));
    ctk_records_free(rec);
    write_with_inputs();
    {
        char *mp = path_in(out, ".ctkgen-manifest");

        ck_assert_int_eq(chmod(mp, 0666), 0); /* others may write it: decides nothing */
        rec = ctk_write_records(out, &err);
        ck_assert_ptr_nonnull(rec);
        ck_assert(!ctk_records_find(rec, RUN1[0], hash, input));
        ctk_records_free(rec);
        ck_assert_int_eq(chmod(mp, 0644), 0);
        rec = ctk_write_records(out, &err); /* and the same, trusted, does */
        ck_assert(ctk_records_find(rec, RUN1[0], hash, input));
        ctk_records_free(rec);
        free(mp);
    }
    free(tu_write(out, ".ctkgen-manifest", "# ctkgen manifest v2\nnot a line\n"));
    rec = ctk_write_records(out, &err); /* unreadable: the plan says so */
    ck_assert_ptr_nonnull(rec);
    ck_assert(!ctk_error_is_set(&err));
    ck_assert(!ctk_records_find(rec, RUN1[0], hash, input));
    ctk_records_free(rec);
}
END_TEST

START_TEST(test_reuse_refuses_bad_hashes)
{
    ctk_outset_t set;
    ctk_error_t err;

    ctk_outset_init(&set);
    ctk_error_init(&err);
    ck_assert(!ctk_outset_reuse(&set, "a.lua", "xyz", IN_A, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_uint_eq(set.n, 0);
    ctk_outset_fini(&set);
}
END_TEST

/* ---- manifest ------------------------------------------------------------------------ */

static const struct {
    const char *text;
    int line;
} corrupt[] = {
    {"", 1},
    {"# ctkgen manifest v3\n", 1},
    {"# ctkgen manifest v2\n0123456789abcdef lmod/a.lua\n", 2},
    {"# ctkgen manifest v2\n0123456789abcdef 0123456789abcdeF lmod/a.lua\n", 2},
    {"# ctkgen manifest v2\n0123456789abcdef --------------- lmod/a.lua\n", 2},
    {"# ctkgen manifest v2\n0123456789abcdef ---------------- \n", 2},
    {"# ctkgen manifest v1\n0123456789abcdef lmod/a.lua\nnot a line\n", 3},
    {"# ctkgen manifest v1\n0123456789ABCDEF lmod/a.lua\n", 2},
    {"# ctkgen manifest v1\n0123456789abcde lmod/a.lua\n", 2},
    {"# ctkgen manifest v1\n0123456789abcdef ../../etc/passwd\n", 2},
    {"# ctkgen manifest v1\n0123456789abcdef /etc/passwd\n", 2},
    {"# ctkgen manifest v1\n0123456789abcdef .ctkgen.lock\n", 2},
    {"# ctkgen manifest v1\n\n", 2},
    {"# ctkgen manifest v1\n0123456789abcdef a\n0123456789abcdef b", 3},
    {"# ctkgen manifest v1\n0123456789abcdef a\n0123456789abcdef b\n0123456789abcdef a\n", 4},
};

START_TEST(test_manifest_corrupt_line_is_error)
{
    char *p = tu_write(out, ".ctkgen-manifest", corrupt[_i].text);
    ctk_outset_t set;
    ctk_error_t err;

    fill(&set, RUN1);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_plan(out, &set, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, p);
    ck_assert_int_eq(err.line, corrupt[_i].line);
    ck_assert_ptr_nonnull(strstr(err.text, "manifest"));
    ctk_outset_fini(&set);
    free(p);
}
END_TEST

START_TEST(test_manifest_outdir_may_not_exist)
{
    ctk_outset_t set;
    ctk_plan_t *plan;

    ctk_outset_init(&set);
    plan = plan_ok(&set);
    ck_assert_uint_eq(plan->n, 0);
    ck_assert(!ctk_plan_has_changes(plan));
    ck_assert(plan->manifest_changed);
    ck_assert_str_eq(plan->manifest, "# ctkgen manifest v1\n");
    ctk_plan_free(plan);
    ctk_plan_free(NULL);
    ctk_outset_fini(&set);
}
END_TEST

/* ---- lock ---------------------------------------------------------------------------- */

START_TEST(test_lock_second_run_fails_without_wait)
{
    int up[2], down[2];
    char c = 0, *lockpath, *text, *mpath, want[64];
    ctk_lock_t *lock;
    ctk_error_t err;
    pid_t child;
    int status;

    ck_assert_int_eq(pipe(up), 0);
    ck_assert_int_eq(pipe(down), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        ctk_lock_t *held = ctk_write_lock(out, 0, NULL);
        char ok = held ? 'L' : 'F';

        if (write(up[1], &ok, 1) != 1 || read(down[0], &c, 1) != 1)
            ok = 'F';
        ctk_write_unlock(held);
        _exit(ok == 'L' ? 0 : 1);
    }
    lockpath = path_in(out, ".ctkgen.lock");
    ck_assert_int_eq(read(up[0], &c, 1), 1);
    ck_assert_int_eq(c, 'L');
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_lock(out, 0, &err));
    ck_assert_int_eq(err.code, CTK_E_LOCK);
    ck_assert_ptr_nonnull(strstr(err.text, lockpath));
    ck_assert_ptr_nonnull(strstr(err.text, "another process holds"));
    /* the holder, as /proc/locks names it, when this system has one */
    if (access("/proc/locks", R_OK) == 0) {
        snprintf(want, sizeof want, "pid %ld (", (long)child);
        ck_assert_msg(strstr(err.text, want) != NULL, "%s", err.text);
    }

    ck_assert_int_eq(write(down[1], "x", 1), 1);
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* free again; nothing was ever written into the lock file */
    lock = ctk_write_lock(out, 0, NULL);
    ck_assert_ptr_nonnull(lock);
    text = tu_read(lockpath);
    ck_assert_str_eq(text, "");
    free(text);

    /* the lock file is never part of the output */
    run_files(RUN1, false, NULL, NULL, NULL, NULL);
    mpath = path_in(out, ".ctkgen-manifest");
    text = tu_read(mpath);
    ck_assert_ptr_null(strstr(text, "lock"));
    free(text);
    free(mpath);
    run_files(NULL, false, NULL, NULL, NULL, NULL);
    ck_assert(exists(out, ".ctkgen.lock"));
    ck_assert(!exists(out, "lmod"));
    ctk_write_unlock(lock);
    ctk_write_unlock(NULL);
    close(up[0]);
    close(up[1]);
    close(down[0]);
    close(down[1]);
    free(lockpath);
}
END_TEST

/* In a child process (flock is per open file, so the child's locks meet
 * ours as another run's would): a reader must not get past our writer. */
static bool reader_refused(void)
{
    ctk_error_t e;

    ctk_error_init(&e);
    return !ctk_write_lock_shared(out, 0, &e) && e.code == CTK_E_LOCK;
}

/* ... a reader gets in beside our reader, a writer does not. */
static bool readers_share(void)
{
    ctk_lock_t *r = ctk_write_lock_shared(out, 0, NULL);
    ctk_error_t e;
    bool shared = r != NULL;

    ctk_write_unlock(r);
    ctk_error_init(&e);
    return shared && !ctk_write_lock(out, 0, &e) && e.code == CTK_E_LOCK;
}

/* Run fn in a child; whether it returned true. */
static bool in_child(bool (*fn)(void))
{
    pid_t child = fork();
    int status;

    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(fn() ? 0 : 1);
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Readers share the lock with readers, not with a writer, and create nothing. */
START_TEST(test_lock_shared_for_readers)
{
    char *lockpath = path_in(out, ".ctkgen.lock"), *missing = path_in(out, "none");
    ctk_lock_t *w, *r1;
    ctk_error_t err;

    /* no tree, no lock file: nothing to wait for, nothing created */
    r1 = ctk_write_lock_shared(missing, 0, NULL);
    ck_assert_ptr_nonnull(r1);
    ck_assert(access(missing, F_OK) != 0);
    ctk_write_unlock(r1);
    r1 = ctk_write_lock_shared(out, 0, NULL);
    ck_assert_ptr_nonnull(r1);
    ck_assert(!exists(out, ".ctkgen.lock"));
    ctk_write_unlock(r1);

    w = ctk_write_lock(out, 0, NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert_msg(in_child(reader_refused), "a reader got past a writer");
    ctk_write_unlock(w);

    r1 = ctk_write_lock_shared(out, 0, NULL);
    ck_assert_ptr_nonnull(r1);
    ck_assert_msg(in_child(readers_share), "readers did not share, or a writer got past a reader");
    ctk_write_unlock(r1);

    /* a read-only lock file is enough for a reader */
    ck_assert_int_eq(chmod(lockpath, 0444), 0);
    r1 = ctk_write_lock_shared(out, 0, &err);
    ck_assert_ptr_nonnull(r1);
    ctk_write_unlock(r1);
    free(lockpath);
    free(missing);
}
END_TEST

START_TEST(test_lock_waits_for_holder)
{
    int up[2];
    char c = 0;
    ctk_lock_t *lock;
    ctk_error_t err;
    pid_t child;
    int status;

    ck_assert_int_eq(pipe(up), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        ctk_lock_t *held = ctk_write_lock(out, 0, NULL);
        char ok = held ? 'L' : 'F';
        struct timespec ts = {0, 200000000};

        if (write(up[1], &ok, 1) != 1)
            ok = 'F';
        nanosleep(&ts, NULL);
        ctk_write_unlock(held);
        _exit(ok == 'L' ? 0 : 1);
    }
    ck_assert_int_eq(read(up[0], &c, 1), 1);
    ck_assert_int_eq(c, 'L');
    ctk_error_init(&err);
    lock = ctk_write_lock(out, CTK_LOCK_WAIT_FOREVER, &err);
    ck_assert_msg(lock != NULL, "%s", err.text);
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ctk_write_unlock(lock);
    close(up[0]);
    close(up[1]);
}
END_TEST

/* Waiting at most so long: the lock still held, it fails in about that
 * time, saying how long it waited. */
START_TEST(test_lock_wait_timeout_gives_up)
{
    int up[2], down[2];
    char c = 0;
    ctk_lock_t *lock;
    ctk_error_t err;
    double t0, t;
    struct timespec ts;
    pid_t child;
    int status;

    ck_assert_int_eq(pipe(up), 0);
    ck_assert_int_eq(pipe(down), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        ctk_lock_t *held = ctk_write_lock(out, 0, NULL);
        char ok = held ? 'L' : 'F';

        if (write(up[1], &ok, 1) != 1 || read(down[0], &c, 1) != 1)
            ok = 'F';
        ctk_write_unlock(held);
        _exit(ok == 'L' ? 0 : 1);
    }
    ck_assert_int_eq(read(up[0], &c, 1), 1);
    ck_assert_int_eq(c, 'L');
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    ctk_error_init(&err);
    /* a reader waits for the writer as long as a writer would */
    ck_assert_ptr_null(ctk_write_lock_shared(out, 0.3, &err));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 - t0;
    ck_assert_int_eq(err.code, CTK_E_LOCK);
    ck_assert_msg(t >= 0.29 && t < 2.0, "waited %.3f s", t);
    ck_assert_msg(strstr(err.text, "gave up after waiting 0.3 s") != NULL, "%s", err.text);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_lock(out, 0.2, &err));
    ck_assert_int_eq(err.code, CTK_E_LOCK);

    /* once the holder is gone, a bounded wait gets the lock */
    ck_assert_int_eq(write(down[1], "x", 1), 1);
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    lock = ctk_write_lock(out, 5, &err);
    ck_assert_ptr_nonnull(lock);
    ctk_write_unlock(lock);
    close(up[0]);
    close(up[1]);
    close(down[0]);
    close(down[1]);
}
END_TEST

/* A lock file open to others (from an older ctkgen) is made 0600; taking
 * the lock again and again never changes its bytes or its mtime. */
START_TEST(test_lock_file_private_and_never_written)
{
    char *lockpath;
    ctk_lock_t *lock;
    struct stat st;
    char *text;
    int i;

    ck_assert_int_eq(mkdir(out, 0755), 0);
    lockpath = tu_write(out, CTK_LOCK_NAME, "4242\n");
    ck_assert_int_eq(chmod(lockpath, 0644), 0);
    set_old_mtime(out, CTK_LOCK_NAME);
    for (i = 0; i < 3; i++) {
        lock = i == 1 ? ctk_write_lock_shared(out, 0, NULL) : ctk_write_lock(out, 0, NULL);
        ck_assert_ptr_nonnull(lock);
        ck_assert_ptr_null(ctk_write_lock_note(lock));
        ctk_write_unlock(lock);
    }
    ck_assert_int_eq(lstat(lockpath, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    ck_assert(has_old_mtime(out, CTK_LOCK_NAME));
    text = tu_read(lockpath);
    ck_assert_str_eq(text, "4242\n");
    free(text);
    free(lockpath);
}
END_TEST

/* In a child that became uid/gid 65534: a reader of root's tree, whose
 * lock file it may not open, reads without the lock and is told why; a
 * writer is refused.  0 when all hold, else the number of the check. */
static int lock_as_nobody(void)
{
    ctk_lock_t *lock;
    ctk_error_t e;
    const char *note;

    if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
        return 1;
    ctk_error_init(&e);
    lock = ctk_write_lock_shared(out, 0, &e);
    if (!lock)
        return 2;
    note = ctk_write_lock_note(lock);
    if (!note || !strstr(note, "belongs to root") || !strstr(note, "without"))
        return 3;
    ctk_write_unlock(lock);
    ctk_error_init(&e);
    if (ctk_write_lock(out, 0, &e) || !strstr(e.text, strerror(EACCES)))
        return 4;
    return 0;
}

/* A lock file another user owns is refused by a writer and by a reader
 * (whoever can open it can hold it); no one but its owner can open ours. */
START_TEST(test_lock_refuses_another_users_lock_file)
{
    char *lockpath = path_in(out, CTK_LOCK_NAME);
    ctk_lock_t *lock;
    ctk_error_t err;
    pid_t child;
    int status;

    if (geteuid() != 0) {
        printf("SKIP: test_lock_refuses_another_users_lock_file needs root (chown, setuid)\n");
        free(lockpath);
        return;
    }
    lock = ctk_write_lock(out, 0, NULL);
    ck_assert_ptr_nonnull(lock);
    ctk_write_unlock(lock);
    ck_assert_int_eq(chmod(tmp, 0755), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(lock_as_nobody());
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "check %d failed as uid 65534",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    /* planted by another user, open to all */
    ck_assert_int_eq(chown(lockpath, 65534, 65534), 0);
    ck_assert_int_eq(chmod(lockpath, 0644), 0);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_lock(out, 0, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    ck_assert_str_eq(err.source, lockpath);
    ck_assert_msg(strstr(err.text, "owned by nobody") || strstr(err.text, "owned by uid 65534"),
                  "%s", err.text);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_lock_shared(out, 0, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    /* untouched */
    ck_assert_uint_eq(mode_of(out, CTK_LOCK_NAME), 0644);
    free(lockpath);
}
END_TEST

START_TEST(test_lock_refuses_symlink)
{
    char *target = tu_write(tmp, "elsewhere", "x\n"), *link = path_in(out, ".ctkgen.lock");
    ctk_error_t err;

    ck_assert_int_eq(mkdir(out, 0755), 0);
    ck_assert_int_eq(symlink(target, link), 0);
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_write_lock(out, 0, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFLICT);
    assert_file(tmp, "elsewhere", "x\n");
    free(link);
    free(target);
}
END_TEST

/* ---- diff ---------------------------------------------------------------------------- */

static const struct {
    const char *a, *b, *want;
} diffs[] = {
    {"a\nb\nc\n", "a\nB\nc\n",
     "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
    {"same\n", "same\n", ""},
    {"", "", ""},
    {"", "x\ny\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
    {"x\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n"},
    {"a\nb", "a\nb\n",
     "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
    {"a\nb\n", "a\nc",
     "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"},
    {"a\nz", "b\nz",
     "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n z\n\\ No newline at end of file\n"},
    /* changes 8 lines apart: two hunks */
    {"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n",
     "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n"
     "@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
    /* 6 lines apart: one hunk */
    {"1\n2\n3\n4\n5\n6\n7\n8\n", "one\n2\n3\n4\n5\n6\n7\neight\n",
     "--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n-1\n+one\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n"},
    /* insertion in the middle; context is cut at 3 lines */
    {"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
     "--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n"},
    /* removals before additions within a run */
    {"a\nb\nc\nd\n", "a\nx\ny\nd\n",
     "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n-c\n+x\n+y\n d\n"},
};

START_TEST(test_diff_exact_output)
{
    char *d = ctk_diff_unified("a/f", diffs[_i].a, strlen(diffs[_i].a), "b/f", diffs[_i].b,
                               strlen(diffs[_i].b), NULL);

    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(d, diffs[_i].want);
    free(d);
}
END_TEST

START_TEST(test_diff_matches_gnu_diff)
{
    char *a, *b, *want, *got, *pa, *pb, *pw;
    size_t i;

    for (i = 0; i < sizeof diffs / sizeof diffs[0]; i++) {
        if (!*diffs[i].want)
            continue;
        pa = tu_write(tmp, "a", diffs[i].a);
        pb = tu_write(tmp, "b", diffs[i].b);
        pw = path_in(tmp, "want");
        ck_assert_int_le(tu_sh("cd '%s' && diff -u --label a/f --label b/f a b > want", tmp), 1);
        want = tu_read(pw);
        a = tu_read(pa);
        b = tu_read(pb);
        got = ctk_diff_unified("a/f", a, strlen(a), "b/f", b, strlen(b), NULL);
        ck_assert_str_eq(got, want);
        free(got);
        free(a);
        free(b);
        free(want);
        free(pa);
        free(pb);
        free(pw);
    }
}
END_TEST

/* Length of the longest common subsequence of two line arrays. */
static size_t lcs(char **x, size_t n, char **y, size_t m)
{
    size_t *row = calloc((m + 1) * 2, sizeof *row), i, j, r;

    for (i = 1; i <= n; i++) {
        size_t *cur = row + (i % 2) * (m + 1), *prev = row + ((i + 1) % 2) * (m + 1);

        for (j = 1; j <= m; j++)
            cur[j] = strcmp(x[i - 1], y[j - 1]) == 0 ? prev[j - 1] + 1
                     : prev[j] > cur[j - 1]          ? prev[j]
                                                     : cur[j - 1];
    }
    r = row[(n % 2) * (m + 1) + m];
    free(row);
    return r;
}

static size_t random_text(unsigned *seed, char *buf, char **lines, size_t maxlines)
{
    size_t n = (size_t)rand_r(seed) % maxlines, i, len = 0;

    for (i = 0; i < n; i++) {
        lines[i] = buf + len;
        len += (size_t)snprintf(buf + len, 16, "l%d\n", rand_r(seed) % 6);
    }
    if (n > 0 && rand_r(seed) % 4 == 0)
        buf[--len] = '\0'; /* no newline at the end */
    buf[len] = '\0';
    return n;
}

START_TEST(test_diff_random_is_minimal_and_applies)
{
    static char abuf[4096], bbuf[4096];
    char *al[200], *bl[200], *acopy[200], *bcopy[200];
    unsigned seed = 12345;
    int iter;

    for (iter = 0; iter < 60; iter++) {
        size_t na = random_text(&seed, abuf, al, 60), nb = random_text(&seed, bbuf, bl, 60);
        size_t i, minus = 0, plus = 0, l;
        char *d, *p, *q, *got;

        d = ctk_diff_unified("a/f", abuf, strlen(abuf), "b/f", bbuf, strlen(bbuf), NULL);
        ck_assert_ptr_nonnull(d);
        for (p = d; *p; p = q + 1) {
            q = strchr(p, '\n');
            if (p[0] == '-' && p[1] != '-')
                minus++;
            if (p[0] == '+' && p[1] != '+')
                plus++;
        }
        /* minimal: removals + additions == n + m - 2 * LCS */
        for (i = 0; i < na; i++) {
            l = strcspn(al[i], "\n");
            acopy[i] = strndup(al[i], l + (al[i][l] == '\n'));
        }
        for (i = 0; i < nb; i++) {
            l = strcspn(bl[i], "\n");
            bcopy[i] = strndup(bl[i], l + (bl[i][l] == '\n'));
        }
        ck_assert_uint_eq(minus + plus, na + nb - 2 * lcs(acopy, na, bcopy, nb));
        for (i = 0; i < na; i++)
            free(acopy[i]);
        for (i = 0; i < nb; i++)
            free(bcopy[i]);

        /* and patch(1) turns a into b with it */
        free(tu_write(tmp, "t/f", abuf));
        free(tu_write(tmp, "p", d));
        ck_assert_int_eq(tu_sh("cd '%s/t' && patch -p1 -s --batch < ../p", tmp), 0);
        p = path_in(tmp, "t/f");
        got = tu_read(p);
        if (*bbuf) {
            ck_assert_ptr_nonnull(got);
            ck_assert_str_eq(got, bbuf);
        }
        free(got);
        free(p);
        free(d);
    }
}
END_TEST

START_TEST(test_diff_huge_input_falls_back_to_replace)
{
    ctk_buf_t a, b;
    char *d, *p, *got;
    int i;

    ctk_buf_init(&a);
    ctk_buf_init(&b);
    for (i = 0; i < 3000; i++) {
        ctk_buf_printf(&a, "a%d\n", i);
        ctk_buf_printf(&b, "b%d\n", i);
    }
    ctk_buf_puts(&a, "tail\n");
    ctk_buf_puts(&b, "tail\n");
    /* distance 6000 > CTK_DIFF_MAX_D */
    d = ctk_diff_unified("a/f", a.data, a.len, "b/f", b.data, b.len, NULL);
    ck_assert_ptr_nonnull(d);
    ck_assert(ctk_str_has_prefix(d, "--- a/f\n+++ b/f\n@@ -1,3001 +1,3001 @@\n-a0\n"));
    free(tu_write(tmp, "t/f", a.data));
    free(tu_write(tmp, "p", d));
    ck_assert_int_eq(tu_sh("cd '%s/t' && patch -p1 -s --batch < ../p", tmp), 0);
    p = path_in(tmp, "t/f");
    got = tu_read(p);
    ck_assert_str_eq(got, b.data);
    free(got);
    free(p);
    free(d);
    ctk_buf_fini(&a);
    ctk_buf_fini(&b);
}
END_TEST

START_TEST(test_plan_diff_exact_output)
{
    static const char *const run1[] = {
        "lmod/a.lua", "1\n2\n3\n", "lmod/gone.lua", "bye\n", "lmod/same.lua", "s\n",
        "tcl/edited", "x\n", NULL};
    static const char *const run2[] = {
        "lmod/a.lua", "1\nTWO\n3\n", "lmod/new.lua", "hi\n", "lmod/same.lua", "s\n",
        "tcl/edited", "x\n", NULL};
    ctk_outset_t set;
    ctk_plan_t *plan;
    char *d, *p;

    run_files(run1, false, NULL, NULL, NULL, NULL);
    p = tu_write(out, "tcl/edited", "x by hand\n");
    free(p);
    fill(&set, run2);
    plan = plan_ok(&set);
    d = ctk_plan_diff(plan, NULL);
    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(d, "--- a/lmod/a.lua\n+++ b/lmod/a.lua\n@@ -1,3 +1,3 @@\n 1\n-2\n+TWO\n 3\n"
                        "--- a/lmod/gone.lua\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
                        "--- /dev/null\n+++ b/lmod/new.lua\n@@ -0,0 +1 @@\n+hi\n"
                        "# conflict: tcl/edited edited by hand (or not written by ctkgen)\n"
                        "--- a/tcl/edited\n+++ b/tcl/edited\n@@ -1 +1 @@\n-x by hand\n+x\n");
    free(d);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);

    /* no changes, no text */
    fill(&set, run1);
    run_files(run1, true, NULL, NULL, NULL, NULL);
    plan = plan_ok(&set);
    d = ctk_plan_diff(plan, NULL);
    ck_assert_str_eq(d, "");
    free(d);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
}
END_TEST

START_TEST(test_plan_diff_applies_with_patch_and_git)
{
    static const char *const run1[] = {
        "lmod/cudatoolkit/12.4.lua",
        "-- 1\n-- 2\n-- 3\n-- 4\n-- 5\n-- 6\n-- 7\n-- 8\n-- 9\n-- 10\n-- 11\n-- 12\n",
        "lmod/cudatoolkit/12.6.lua", "gone\n",
        "lmod/old/1.lua", "stale dir\n",
        "tcl/cudatoolkit/12.4", "no newline",
        "tcl/cudatoolkit/.version", "#%Module\nset ModulesVersion 12.4\n",
        NULL};
    static const char *const run2[] = {
        "lmod/cudatoolkit/12.4.lua",
        "-- one\n-- 2\n-- 3\n-- 4\n-- 5\n-- 6\n-- 7\n-- 8\n-- 9\n-- 10\n-- 11\n-- twelve\n",
        "lmod/cudatoolkit/13.0.lua", "new\nfile\n",
        "pkgconfig/ctk-13.0.pc", "Name: ctk\nLibs: -L/x -lcudart",
        "tcl/cudatoolkit/12.4", "no newline\nnow has one\n",
        "tcl/cudatoolkit/.version", "#%Module\nset ModulesVersion 13.0\n",
        NULL};
    ctk_outset_t set;
    ctk_plan_t *plan;
    char *d, *p;

    run_files(run1, false, NULL, NULL, NULL, NULL);
    p = tu_write(out, "lmod/cudatoolkit/12.6.lua", "gone, edited\n");
    free(p);
    ck_assert_int_eq(tu_sh("cp -a '%s' '%s/viapatch' && cp -a '%s' '%s/viagit'", out, tmp, out,
                           tmp), 0);
    fill(&set, run2);
    plan = plan_ok(&set);
    d = ctk_plan_diff(plan, NULL);
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_nonnull(strstr(d, "# conflict: lmod/cudatoolkit/12.6.lua edited by hand"));
    p = tu_write(tmp, "plan.diff", d);
    free(p);
    ck_assert(ctk_write_apply(plan, true, NULL));
    ck_assert_int_eq(tu_sh("cd '%s/viapatch' && patch -p1 -s --batch < ../plan.diff", tmp), 0);
    ck_assert_int_eq(tu_sh("diff -r -x .ctkgen-manifest '%s' '%s/viapatch'", out, tmp), 0);
    if (tu_sh("git --version >/dev/null 2>&1") == 0) {
        ck_assert_int_eq(tu_sh("cd '%s/viagit' && git apply -p1 ../plan.diff", tmp), 0);
        ck_assert_int_eq(tu_sh("diff -r -x .ctkgen-manifest '%s' '%s/viagit'", out, tmp), 0);
    }
    free(d);
    ctk_plan_free(plan);
    ctk_outset_fini(&set);
}
END_TEST

/* ---- out of memory --------------------------------------------------------------
 * Each sweep (tests/failmalloc.c) fails every allocation of one call in
 * turn: each failure must be CTK_E_NOMEM, leak no memory and no file
 * descriptor, and an apply must leave the tree as it was or as it is meant
 * to be, for the next run to finish. */
#ifdef TU_HAVE_FAILING_MALLOC

/* The tree under dir as text: one line per entry, sorted, "rel/" for a
 * directory and "rel: bytes" for a file (temp files and the manifests
 * included).  An absent dir and an empty one read the same.  Caller frees. */
static char **tree_lines;
static size_t tree_n, tree_cap, tree_root;

static int tree_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    char *line = NULL, *text;

    (void)flag;
    if (f->level == 0)
        return 0;
    if (S_ISDIR(st->st_mode)) {
        ck_assert_int_ne(asprintf(&line, "%s/", p + tree_root), -1);
    } else {
        text = S_ISREG(st->st_mode) ? tu_read(p) : NULL;
        ck_assert_int_ne(asprintf(&line, "%s: %s", p + tree_root, text ? text : "(not a file)"),
                         -1);
        free(text);
    }
    if (tree_n == tree_cap) {
        tree_cap = tree_cap ? tree_cap * 2 : 32;
        tree_lines = realloc(tree_lines, tree_cap * sizeof *tree_lines);
        ck_assert_ptr_nonnull(tree_lines);
    }
    tree_lines[tree_n++] = line;
    return 0;
}

static int line_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static char *tree_text(const char *dir)
{
    ctk_buf_t b;
    size_t i;

    tree_n = 0;
    tree_root = strlen(dir) + 1;
    if (exists(dir, "."))
        ck_assert_int_eq(nftw(dir, tree_cb, 16, FTW_PHYS), 0);
    qsort(tree_lines, tree_n, sizeof *tree_lines, line_cmp);
    ctk_buf_init(&b);
    for (i = 0; i < tree_n; i++) {
        ck_assert(ctk_buf_printf(&b, "%s\n", tree_lines[i]));
        free(tree_lines[i]);
    }
    free(tree_lines);
    tree_lines = NULL;
    tree_n = tree_cap = 0;
    return ctk_buf_take(&b, NULL);
}

/* From SWEEP_RUN1 to SWEEP_RUN2: a file kept, one updated, three created,
 * two removed and one removed with its directory. */
static const char *const SWEEP_RUN1[] = {
    "lmod/cudatoolkit/12.4.lua", "-- 12.4\n",
    "lmod/cudatoolkit/12.6.lua", "-- 12.6\n",
    "lmod/old/1.lua", "-- old\n",
    "tcl/cudatoolkit/12.4", "#%Module\n# 12.4\n",
    "tcl/cudatoolkit/12.6", "#%Module\n# 12.6\n",
    "pkgconfig/ctk-12.4.pc", "Name: ctk\nVersion: 12.4\n",
    NULL};
static const char *const SWEEP_RUN2[] = {
    "lmod/cudatoolkit/12.4.lua", "-- 12.4\n",
    "lmod/cudatoolkit/12.6.lua", "-- 12.6 new\n",
    "lmod/cudatoolkit/12.8.lua", "-- 12.8\n",
    "tcl/cudatoolkit/12.8", "#%Module\n# 12.8\n",
    "pkgconfig/ctk-12.8.pc", "Name: ctk\nVersion: 12.8\n",
    NULL};

/* A sweep's figure, in the log. */
static long swept(const char *name, long n)
{
    fprintf(stderr, "check_write: %s: %ld allocations, each failed in turn\n", name, n);
    return n;
}

static ctk_outset_t sweep_set;
static ctk_plan_t *sweep_plan;
static const char *const *sweep_before; /* the old tree's files; NULL: no tree */
static char *sweep_old, *sweep_new;     /* tree_text() of both */
static size_t sweep_counts[5];

static void *op_plan(ctk_error_t *err)
{
    return ctk_write_plan(out, &sweep_set, err);
}

static void release_plan(void *p)
{
    size_t c[5];

    ctk_plan_counts(p, &c[0], &c[1], &c[2], &c[3], &c[4]);
    ck_assert(memcmp(c, sweep_counts, sizeof c) == 0);
    ctk_plan_free(p);
}

static char *sweep_diff;

static void *op_diff(ctk_error_t *err)
{
    return ctk_plan_diff(sweep_plan, err);
}

static void release_diff(void *p)
{
    ck_assert_str_eq(p, sweep_diff);
    free(p);
}

static void *op_apply(ctk_error_t *err)
{
    return ctk_write_apply(sweep_plan, false, err) ? sweep_plan : NULL;
}

static void assert_tree(const char *want, const char *what)
{
    char *now = tree_text(out);

    ck_assert_msg(strcmp(now, want) == 0, "%s:\n%s\nwanted:\n%s", what, now, want);
    free(now);
}

static void release_apply(void *p)
{
    (void)p;
    assert_tree(sweep_new, "the tree a clean apply leaves");
}

/* The tree as it was before the apply under test. */
static void make_old_tree(void)
{
    tu_rmtree(out);
    if (sweep_before)
        run_files(sweep_before, false, NULL, NULL, NULL, NULL);
}

static void apply_after_failure(long n)
{
    char *now = tree_text(out);

    ck_assert_msg(strcmp(now, sweep_old) == 0 || strcmp(now, sweep_new) == 0,
                  "apply: allocation %ld failing left a tree neither old nor new:\n%s", n, now);
    free(now);
    /* the next run finishes the job */
    run_files(SWEEP_RUN2, false, NULL, NULL, NULL, NULL);
    assert_tree(sweep_new, "the tree the next run leaves");
    make_old_tree();
    assert_tree(sweep_old, "the old tree, made again");
}

/* Sweep an apply of SWEEP_RUN2 over the tree the files before make (NULL:
 * over nothing). */
static long sweep_apply(const char *name, const char *const *before)
{
    ctk_error_t err;
    long n;

    sweep_before = before;
    make_old_tree();
    sweep_old = tree_text(out);
    run_files(SWEEP_RUN2, false, NULL, NULL, NULL, NULL);
    sweep_new = tree_text(out);
    make_old_tree();
    fill(&sweep_set, SWEEP_RUN2);
    ctk_error_init(&err);
    sweep_plan = ctk_write_plan(out, &sweep_set, &err);
    ck_assert_msg(sweep_plan != NULL, "%s", err.text);
    n = swept(name, tu_alloc_sweep_with(name, op_apply, release_apply, apply_after_failure));
    ctk_plan_free(sweep_plan);
    ctk_outset_fini(&sweep_set);
    free(sweep_old);
    free(sweep_new);
    return n;
}

static void *op_lock(ctk_error_t *err)
{
    return ctk_write_lock(out, 0, err);
}

static void release_lock(void *p)
{
    ctk_write_unlock(p);
}

static char *sweep_path;

static void *op_write_file(ctk_error_t *err)
{
    return ctk_write_file_atomic(sweep_path, "text\n", 5, err) ? sweep_path : NULL;
}

static void release_nothing(void *p)
{
    (void)p;
}
#endif

START_TEST(test_write_plan_out_of_memory_is_nomem)
{
#ifdef TU_HAVE_FAILING_MALLOC
    char *pend = path_in(out, CTK_PENDING_NAME);
    ctk_error_t err;
    FILE *fp;
    long n;

    /* into nothing */
    fill(&sweep_set, SWEEP_RUN2);
    sweep_plan = plan_ok(&sweep_set);
    ctk_plan_counts(sweep_plan, &sweep_counts[0], &sweep_counts[1], &sweep_counts[2],
                    &sweep_counts[3], &sweep_counts[4]);
    ctk_plan_free(sweep_plan);
    n = swept("ctk_write_plan into nothing",
              tu_alloc_sweep("ctk_write_plan into nothing", op_plan, release_plan));
    ck_assert_int_gt(n, 10);

    /* over a tree an interrupted run left half changed, with its pending
     * manifest, a temp file and a file edited by hand since */
    run_files(SWEEP_RUN1, false, NULL, NULL, NULL, NULL);
    sweep_plan = plan_ok(&sweep_set);
    fp = fopen(pend, "w");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(sweep_plan->manifest, 1, sweep_plan->manifest_len, fp),
                      sweep_plan->manifest_len);
    ck_assert_int_eq(fclose(fp), 0);
    ctk_plan_free(sweep_plan);
    free(tu_write(out, "lmod/cudatoolkit/12.8.lua", "-- 12.8\n"));
    free(tu_write(out, "lmod/cudatoolkit/.12.6.lua.ctkgen-tmp-Ab3dEf", "-- 12"));
    free(tu_write(out, "tcl/cudatoolkit/12.4", "#%Module\n# by hand\n"));
    sweep_plan = plan_ok(&sweep_set);
    ck_assert(sweep_plan->pending);
    ctk_plan_counts(sweep_plan, &sweep_counts[0], &sweep_counts[1], &sweep_counts[2],
                    &sweep_counts[3], &sweep_counts[4]);
    ck_assert_uint_eq(sweep_counts[4], 1);
    ctk_plan_free(sweep_plan);
    n = swept("ctk_write_plan over an interrupted run",
              tu_alloc_sweep("ctk_write_plan over an interrupted run", op_plan, release_plan));
    ck_assert_int_gt(n, 30);

    /* and its diff */
    sweep_plan = plan_ok(&sweep_set);
    ctk_error_init(&err);
    sweep_diff = ctk_plan_diff(sweep_plan, &err);
    ck_assert_msg(sweep_diff != NULL, "%s", err.text);
    n = swept("ctk_plan_diff", tu_alloc_sweep("ctk_plan_diff", op_diff, release_diff));
    ck_assert_int_gt(n, 10);
    free(sweep_diff);
    ctk_plan_free(sweep_plan);
    ctk_outset_fini(&sweep_set);
    free(pend);
#endif
}
END_TEST

START_TEST(test_write_apply_out_of_memory_leaves_old_or_new_tree)
{
#ifdef TU_HAVE_FAILING_MALLOC
    ck_assert_int_gt(sweep_apply("ctk_write_apply into nothing", NULL), 3);
    ck_assert_int_gt(sweep_apply("ctk_write_apply over a tree", SWEEP_RUN1), 3);
#endif
}
END_TEST

START_TEST(test_write_lock_and_single_file_out_of_memory_is_nomem)
{
#ifdef TU_HAVE_FAILING_MALLOC
    long n;

    n = swept("ctk_write_lock", tu_alloc_sweep("ctk_write_lock", op_lock, release_lock));
    ck_assert_int_gt(n, 1);
    sweep_path = path_in(tmp, "one.txt");
    n = tu_alloc_sweep("ctk_write_file_atomic", op_write_file, release_nothing);
    ck_assert_int_gt(swept("ctk_write_file_atomic", n), 0);
    assert_file(tmp, "one.txt", "text\n");
    free(sweep_path);
#endif
}
END_TEST

static Suite *write_suite(void)
{
    Suite *s = suite_create("write");
    TCase *tc = tcase_create("write");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_outset_rejects_unsafe_paths, 0,
                        sizeof bad_paths / sizeof bad_paths[0]);
    tcase_add_test(tc, test_outset_rejects_duplicates);
    tcase_add_test(tc, test_outset_many_and_drop);
    tcase_add_test(tc, test_plan_rejects_file_and_dir_at_one_path);
    tcase_add_test(tc, test_write_creates_tree_and_manifest);
    tcase_add_test(tc, test_write_second_run_changes_nothing);
    tcase_add_test(tc, test_write_interrupted_run_rolls_back_or_forward);
    tcase_add_loop_test(tc, test_plan_ignores_bookkeeping_another_user_could_write, 0,
                        sizeof foreign_kinds / sizeof foreign_kinds[0]);
    tcase_add_test(tc, test_write_updates_only_changed_file);
    tcase_add_test(tc, test_write_removes_stale_files_and_empty_dirs);
    tcase_add_test(tc, test_write_file_gives_way_to_directory);
    tcase_add_test(tc, test_write_refuses_hand_edited_file);
    tcase_add_test(tc, test_write_force_restores_without_touching_manifest);
    tcase_add_test(tc, test_write_refuses_removing_hand_edited_file);
    tcase_add_test(tc, test_write_file_not_written_by_ctkgen_is_conflict);
    tcase_add_test(tc, test_write_refuses_symlinked_dir);
    tcase_add_test(tc, test_write_refuses_symlinked_file);
    tcase_add_test(tc, test_write_read_follows_no_link);
    tcase_add_test(tc, test_write_refuses_file_where_dir_needed);
    tcase_add_loop_test(tc, test_write_modes_ignore_umask, 0, sizeof umasks / sizeof umasks[0]);
    tcase_add_test(tc, test_write_failure_keeps_old_file);
    tcase_add_test(tc, test_write_dir_replaced_by_file_after_plan);
    tcase_add_test(tc, test_write_denied_finds_the_directory_in_the_way);
    tcase_add_loop_test(tc, test_manifest_corrupt_line_is_error, 0,
                        sizeof corrupt / sizeof corrupt[0]);
    tcase_add_test(tc, test_manifest_outdir_may_not_exist);
    tcase_add_test(tc, test_manifest_records_inputs);
    tcase_add_test(tc, test_reuse_unchanged_is_same);
    tcase_add_loop_test(tc, test_reuse_not_on_disk_is_stale, 0, 2);
    tcase_add_test(tc, test_records_absent_or_foreign_are_empty);
    tcase_add_test(tc, test_reuse_refuses_bad_hashes);
    tcase_add_test(tc, test_lock_second_run_fails_without_wait);
    tcase_add_test(tc, test_lock_waits_for_holder);
    tcase_add_test(tc, test_lock_shared_for_readers);
    tcase_add_test(tc, test_lock_refuses_symlink);
    tcase_add_test(tc, test_lock_wait_timeout_gives_up);
    tcase_add_test(tc, test_lock_file_private_and_never_written);
    tcase_add_test(tc, test_lock_refuses_another_users_lock_file);
    tcase_add_loop_test(tc, test_diff_exact_output, 0, sizeof diffs / sizeof diffs[0]);
    tcase_add_test(tc, test_diff_matches_gnu_diff);
    tcase_add_test(tc, test_diff_random_is_minimal_and_applies);
    tcase_add_test(tc, test_diff_huge_input_falls_back_to_replace);
    tcase_add_test(tc, test_plan_diff_exact_output);
    tcase_add_test(tc, test_plan_diff_applies_with_patch_and_git);
    if (tu_alloc_sweeps_possible("check_write")) {
        tcase_add_test(tc, test_write_plan_out_of_memory_is_nomem);
        tcase_add_test(tc, test_write_apply_out_of_memory_leaves_old_or_new_tree);
        tcase_add_test(tc, test_write_lock_and_single_file_out_of_memory_is_nomem);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(write_suite());
}
