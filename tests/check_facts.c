/* check_facts.c - the compiled-in CUDA release facts.
 * SPDX-License-Identifier: MIT
 *
 * Expected values are read off shared/research/cuda-facts.json by hand
 * (not through facts.c), so a slip in a table row shows up here.
 */
#include <ctkconf.h>

#include "facts.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every release the research file covers; 12.7 was never released. */
static const int KNOWN[][2] = {
    { 10, 0 }, { 10, 1 }, { 10, 2 }, { 11, 0 }, { 11, 1 }, { 11, 2 }, { 11, 3 }, { 11, 4 },
    { 11, 5 }, { 11, 6 }, { 11, 7 }, { 11, 8 }, { 12, 0 }, { 12, 1 }, { 12, 2 }, { 12, 3 },
    { 12, 4 }, { 12, 5 }, { 12, 6 }, { 12, 8 }, { 12, 9 }, { 13, 0 },
};
#define N_KNOWN ((int)(sizeof KNOWN / sizeof KNOWN[0]))

static bool is_known(int major, int minor)
{
    int i;

    for (i = 0; i < N_KNOWN; i++)
        if (KNOWN[i][0] == major && KNOWN[i][1] == minor)
            return true;
    return false;
}

/* "580.65.06" -> 580: driver branches compare by their first field */
static long driver_branch(const char *v)
{
    return strtol(v, NULL, 10);
}

START_TEST(test_facts_gcc_max_per_release)
{
    static const int cases[][3] = {
        { 10, 0, 7 },  { 10, 1, 8 },  { 10, 2, 8 },  { 11, 0, 9 },  { 11, 1, 10 },
        { 11, 3, 10 }, { 11, 4, 11 }, { 11, 8, 11 }, { 12, 0, 12 }, { 12, 3, 12 },
        { 12, 4, 13 }, { 12, 6, 13 }, { 12, 8, 14 }, { 12, 9, 14 }, { 13, 0, 15 },
    };

    ck_assert_msg(ctk_facts_gcc_max(cases[_i][0], cases[_i][1]) == cases[_i][2],
                  "gcc_max(%d.%d) = %d, want %d", cases[_i][0], cases[_i][1],
                  ctk_facts_gcc_max(cases[_i][0], cases[_i][1]), cases[_i][2]);
}
END_TEST

START_TEST(test_facts_gcc_min_only_where_known)
{
    ck_assert_int_eq(ctk_facts_gcc_min(11, 0), 5);
    ck_assert_int_eq(ctk_facts_gcc_min(11, 4), 6);
    ck_assert_int_eq(ctk_facts_gcc_min(10, 0), 0);
    ck_assert_int_eq(ctk_facts_gcc_min(12, 4), 0);
    ck_assert_int_eq(ctk_facts_gcc_min(13, 0), 0);
}
END_TEST

START_TEST(test_facts_gcc_max_never_falls)
{
    int i;

    for (i = 1; i < N_KNOWN; i++)
        ck_assert_msg(ctk_facts_gcc_max(KNOWN[i][0], KNOWN[i][1]) >=
                          ctk_facts_gcc_max(KNOWN[i - 1][0], KNOWN[i - 1][1]),
                      "gcc_max falls at %d.%d", KNOWN[i][0], KNOWN[i][1]);
}
END_TEST

/* release major, minor, cc major, cc minor, expected */
static const int SM_CASES[][5] = {
    { 12, 4, 9, 0, 1 },   { 12, 0, 3, 5, 0 },   { 11, 8, 3, 5, 1 },   { 11, 8, 9, 0, 1 },
    { 11, 7, 9, 0, 0 },   { 11, 8, 8, 9, 1 },   { 11, 0, 3, 0, 0 },   { 10, 2, 3, 0, 1 },
    { 10, 0, 8, 0, 0 },   { 11, 0, 8, 0, 1 },   { 11, 0, 8, 6, 0 },   { 11, 1, 8, 6, 1 },
    { 11, 3, 8, 7, 0 },   { 11, 4, 8, 7, 1 },   { 12, 0, 5, 0, 1 },   { 12, 6, 10, 0, 0 },
    { 12, 8, 10, 0, 1 },  { 12, 8, 10, 1, 1 },  { 12, 8, 10, 3, 0 },  { 12, 8, 12, 0, 1 },
    { 12, 8, 12, 1, 0 },  { 12, 9, 10, 3, 1 },  { 12, 9, 12, 1, 1 },  { 12, 9, 8, 8, 0 },
    { 12, 9, 11, 0, 0 },  { 13, 0, 7, 0, 0 },   { 13, 0, 7, 2, 0 },   { 13, 0, 5, 0, 0 },
    { 13, 0, 7, 5, 1 },   { 13, 0, 8, 8, 1 },   { 13, 0, 10, 1, 0 },  { 13, 0, 11, 0, 1 },
    { 13, 0, 12, 1, 1 },  { 12, 4, 9, 1, 0 },   { 12, 4, 6, 3, 0 },   { 12, 4, 9, 10, 0 },
    { 12, 4, -1, 0, 0 },  { 12, 4, 9, -1, 0 },
};

START_TEST(test_facts_sm_supported_cases)
{
    const int *c = SM_CASES[_i];

    ck_assert_msg(ctk_facts_sm_supported(c[0], c[1], c[2], c[3]) == c[4],
                  "CUDA %d.%d cc %d.%d: got %d, want %d", c[0], c[1], c[2], c[3],
                  ctk_facts_sm_supported(c[0], c[1], c[2], c[3]), c[4]);
}
END_TEST

START_TEST(test_facts_hopper_in_every_12x_and_13x_kepler_in_none)
{
    int i, n = 0;

    for (i = 0; i < N_KNOWN; i++) {
        if (KNOWN[i][0] < 12)
            continue;
        n++;
        ck_assert_int_eq(ctk_facts_sm_supported(KNOWN[i][0], KNOWN[i][1], 9, 0), 1);
        ck_assert_int_eq(ctk_facts_sm_supported(KNOWN[i][0], KNOWN[i][1], 8, 0), 1);
        ck_assert_int_eq(ctk_facts_sm_supported(KNOWN[i][0], KNOWN[i][1], 3, 5), 0);
        ck_assert_int_eq(ctk_facts_sm_supported(KNOWN[i][0], KNOWN[i][1], 3, 7), 0);
    }
    ck_assert_int_eq(n, 10);
}
END_TEST

START_TEST(test_facts_sm_range_per_release)
{
    static const int cases[][4] = {
        { 10, 0, 30, 75 },  { 10, 2, 30, 75 },  { 11, 0, 35, 80 },  { 11, 1, 35, 86 },
        { 11, 4, 35, 87 },  { 11, 8, 35, 90 },  { 12, 0, 50, 90 },  { 12, 6, 50, 90 },
        { 12, 8, 50, 120 }, { 12, 9, 50, 121 }, { 13, 0, 75, 121 },
    };
    int lo = -1, hi = -1;

    ck_assert(ctk_facts_sm_range(cases[_i][0], cases[_i][1], &lo, &hi));
    ck_assert_int_eq(lo, cases[_i][2]);
    ck_assert_int_eq(hi, cases[_i][3]);
    /* the ends of the range are real targets */
    ck_assert_int_eq(ctk_facts_sm_supported(cases[_i][0], cases[_i][1], lo / 10, lo % 10), 1);
    ck_assert_int_eq(ctk_facts_sm_supported(cases[_i][0], cases[_i][1], hi / 10, hi % 10), 1);
    ck_assert(ctk_facts_sm_range(cases[_i][0], cases[_i][1], NULL, NULL));
}
END_TEST

START_TEST(test_facts_sm_13_0_matches_nvcc_list)
{
    /* nvcc 13.0.88 --list-gpu-code, the file's verified-local list */
    static const int want[] = { 75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121 };
    int sm, n = 0;
    size_t i;

    for (sm = 10; sm < 200; sm++) {
        bool listed = false;

        for (i = 0; i < sizeof want / sizeof want[0]; i++)
            listed = listed || want[i] == sm;
        ck_assert_msg(ctk_facts_sm_supported(13, 0, sm / 10, sm % 10) == (listed ? 1 : 0),
                      "sm_%d", sm);
        n += listed;
    }
    ck_assert_int_eq(n, 12);
}
END_TEST

START_TEST(test_facts_driver_minimums)
{
    const char *full = NULL, *compat = "x";
    int i;

    ck_assert(ctk_facts_driver_min(10, 0, &full, &compat));
    ck_assert_str_eq(full, "410.48");
    ck_assert_ptr_null(compat);
    ck_assert(ctk_facts_driver_min(10, 1, &full, &compat));
    ck_assert_str_eq(full, "418.39");
    ck_assert_ptr_null(compat);
    ck_assert(ctk_facts_driver_min(11, 8, &full, &compat));
    ck_assert_str_eq(full, "520.61.05");
    ck_assert_str_eq(compat, "450.80.02");
    ck_assert(ctk_facts_driver_min(12, 0, &full, &compat));
    ck_assert_str_eq(full, "525.60.13");
    ck_assert(ctk_facts_driver_min(12, 9, &full, &compat));
    ck_assert_str_eq(full, "575.51.03");
    ck_assert(ctk_facts_driver_min(13, 0, &full, &compat));
    ck_assert_str_eq(full, "580.65.06");
    ck_assert_int_eq(driver_branch(compat), 580);
    ck_assert(ctk_facts_driver_min(13, 0, NULL, NULL));

    for (i = 0; i < N_KNOWN; i++) {
        int ma = KNOWN[i][0], mi = KNOWN[i][1];

        full = compat = NULL;
        ck_assert(ctk_facts_driver_min(ma, mi, &full, &compat));
        ck_assert_ptr_nonnull(full);
        if (ma == 10) {
            ck_assert_ptr_null(compat);
            continue;
        }
        ck_assert_ptr_nonnull(compat);
        /* the compat floor is per major and never above the full minimum */
        ck_assert_int_eq(driver_branch(compat), ma == 11 ? 450 : ma == 12 ? 525 : 580);
        ck_assert_int_le(driver_branch(compat), driver_branch(full));
        if (ma == 12)
            ck_assert_str_eq(compat, "525.60.13");
        if (i > 0) {
            const char *prev = NULL;

            ck_assert(ctk_facts_driver_min(KNOWN[i - 1][0], KNOWN[i - 1][1], &prev, NULL));
            ck_assert_int_ge(driver_branch(full), driver_branch(prev));
        }
    }
}
END_TEST

START_TEST(test_facts_unknown_releases_answer_unknown)
{
    int ma, mi, lo = 7, hi = 7;
    const char *full = "x", *compat = "y";

    for (ma = -1; ma <= 15; ma++) {
        for (mi = -1; mi <= 10; mi++) {
            bool known = is_known(ma, mi);

            ck_assert_msg((ctk_facts_gcc_max(ma, mi) != 0) == known, "gcc_max %d.%d", ma, mi);
            ck_assert_msg((ctk_facts_sm_supported(ma, mi, 9, 0) != -1) == known,
                          "sm_supported %d.%d", ma, mi);
            ck_assert_msg(ctk_facts_sm_range(ma, mi, &lo, &hi) == known, "sm_range %d.%d", ma, mi);
            ck_assert_msg(ctk_facts_driver_min(ma, mi, &full, &compat) == known,
                          "driver_min %d.%d", ma, mi);
            if (!known) {
                ck_assert_int_eq(ctk_facts_gcc_min(ma, mi), 0);
                ck_assert_int_eq(ctk_facts_sm_supported(ma, mi, 3, 5), -1);
            }
        }
    }
    /* never released, and the first release after the tables */
    ck_assert_int_eq(ctk_facts_gcc_max(12, 7), 0);
    ck_assert_int_eq(ctk_facts_sm_supported(12, 7, 9, 0), -1);
    ck_assert_int_eq(ctk_facts_gcc_max(13, 1), 0);
    /* a failed lookup leaves the outputs alone */
    lo = hi = 7;
    full = "x";
    ck_assert(!ctk_facts_sm_range(9, 2, &lo, &hi));
    ck_assert(!ctk_facts_driver_min(9, 2, &full, NULL));
    ck_assert_int_eq(lo, 7);
    ck_assert_int_eq(hi, 7);
    ck_assert_str_eq(full, "x");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("facts");
    TCase *tc = tcase_create("facts");

    tcase_add_loop_test(tc, test_facts_gcc_max_per_release, 0, 15);
    tcase_add_test(tc, test_facts_gcc_min_only_where_known);
    tcase_add_test(tc, test_facts_gcc_max_never_falls);
    tcase_add_loop_test(tc, test_facts_sm_supported_cases, 0,
                        (int)(sizeof SM_CASES / sizeof SM_CASES[0]));
    tcase_add_test(tc, test_facts_hopper_in_every_12x_and_13x_kepler_in_none);
    tcase_add_loop_test(tc, test_facts_sm_range_per_release, 0, 11);
    tcase_add_test(tc, test_facts_sm_13_0_matches_nvcc_list);
    tcase_add_test(tc, test_facts_driver_minimums);
    tcase_add_test(tc, test_facts_unknown_releases_answer_unknown);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
