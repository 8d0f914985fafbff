/* check_lint.c - (being written). SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "testutil.h"

START_TEST(test_placeholder)
{
    ck_assert_int_eq(1, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lint");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_placeholder);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
