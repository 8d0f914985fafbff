/* check_lpattern.c - placeholder, replaced by the tests. */
#include <ctkconf.h>

#include <check.h>
#include <stdlib.h>

START_TEST(placeholder)
{
    ck_assert(1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lpattern");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int nf;

    tcase_add_test(tc, placeholder);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
