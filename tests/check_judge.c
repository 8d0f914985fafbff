/* check_judge.c - a probe's run on another machine is judged as a local one.
 * SPDX-License-Identifier: MIT
 *
 * ctk_validate_judge_run() gets what a Slurm job recorded (exit status,
 * stdout, stderr) for each staged probe.  The GPU verdicts that only a
 * real GPU and driver produce (a driver older than the toolkit, a GPU
 * outside its architectures) are fed here as the probes would print them,
 * since no machine this suite runs on has such a GPU.  Also: the sh
 * quoting the job scripts are written with reads back exactly through sh.
 */
#include <ctkconf.h>

#include "quote.h"
#include "report.h"
#include "testutil.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ctk_sdk_t sdk13;
static char libdir[] = "/tmp/ctkgen-judge-XXXXXX";
static char libcudart[sizeof libdir + 32];

/* the toolkit's lib dir, holding a libcudart.so.13, as the shared file
 * system shows it to the machine that judges */
static void setup(void)
{
    FILE *f;

    ck_assert_ptr_nonnull(mkdtemp(libdir));
    snprintf(libcudart, sizeof libcudart, "%s/libcudart.so.13", libdir);
    ck_assert_ptr_nonnull(f = fopen(libcudart, "w"));
    fclose(f);
    memset(&sdk13, 0, sizeof sdk13);
    sdk13.version.major = 13;
    sdk13.version.minor = 0;
    sdk13.libdir = libdir;
}

static void teardown(void)
{
    unlink(libcudart);
    rmdir(libdir);
}

/* One probe's JSON line, as kernels/probe.cu prints it. */
static char *report(const char *status, int driver, int devices, const char *cc, bool ok)
{
    char buf[1024];

    snprintf(buf, sizeof buf,
             "{\"probe\":\"cuda\",\"cudart_header\":13000,\"runtime\":13000,\"driver\":%d,\"devices\":%d,"
             "\"status\":\"%s\",\"device\":\"%s\",\"cc\":\"%s\",\"kernel_ok\":%s,"
             "\"libcudart\":\"%s\"}\n",
             driver, devices, status, devices ? "NVIDIA H100 80GB HBM3" : "", cc, ok ? "true" : "false", libcudart);
    return strdup(buf);
}

/* Judge one run of kind k into cell. */
static void judge(ctk_vart_t *cell, ctk_probe_kind_t k, int exit_status, bool timed_out, char *out,
                  const char *err_text)
{
    ctk_vlaunch_t l = {0};
    ctk_proc_result_t r;
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_proc_result_init(&r);
    l.probe = k;
    l.art = CTK_ART_PC;
    l.name = k == CTK_PROBE_SASS ? "probe_sass" : k == CTK_PROBE_PTX ? "probe_ptx" : "probe_pc";
    r.exit_status = exit_status;
    r.timed_out = timed_out;
    r.out = out ? out : strdup("");
    r.err = strdup(err_text);
    ck_assert_msg(ctk_validate_judge_run(&sdk13, &l, &r, 120, false, "on node gpu-h100-1 (partition gpu-h100)",
                                         cell, &err),
                  "%s", err.text);
    ctk_proc_result_fini(&r);
}

static void cell_init(ctk_vart_t *c)
{
    ctk_vart_init(c, CTK_ART_PC);
}

static const ctk_finding_t *only(const ctk_vart_t *c, const char *code)
{
    ck_assert_msg(c->findings.len == 1, "%zu findings, first %s", c->findings.len,
                  c->findings.len ? c->findings.items[0].code : "-");
    ck_assert_str_eq(c->findings.items[0].code, code);
    return &c->findings.items[0];
}

START_TEST(test_judge_pass_on_a_gpu)
{
    ctk_vart_t c;

    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaSuccess", 12090, 1, "9.0", true), "");
    ctk_vart_settle(&c);
    ck_assert_int_eq(c.verdict, CTK_VERDICT_PASS);
    ck_assert(c.launched);
    ck_assert_str_eq(c.cuda.device, "NVIDIA H100 80GB HBM3");
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_no_driver_is_a_skip_naming_the_node)
{
    ctk_vart_t c;

    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaErrorInsufficientDriver", 0, 0, "0.0", false), "");
    ctk_vart_settle(&c);
    ck_assert_int_eq(c.verdict, CTK_VERDICT_SKIP);
    ck_assert_str_eq(c.skip_code, "CTK-SKIP-001");
    ck_assert_ptr_nonnull(strstr(c.skip_reason, "on node gpu-h100-1 (partition gpu-h100)"));
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_driver_older_than_toolkit_ptx)
{
    ctk_vart_t c;
    const ctk_finding_t *f;

    cell_init(&c);
    /* a 12.9 driver: the plain build's PTX cannot be JIT-compiled */
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaErrorUnsupportedPtxVersion", 12090, 1, "9.0", false), "");
    f = only(&c, "CTK-GPU-006");
    ck_assert_ptr_nonnull(strstr(f->text, "CUDA 12.9, older than this toolkit's 13.0"));
    ck_assert_ptr_nonnull(strstr(f->text, "-arch=sm_90"));
    ck_assert_ptr_nonnull(strstr(f->text, "580.65.06"));
    ctk_vart_settle(&c);
    ck_assert_int_eq(c.verdict, CTK_VERDICT_FAIL);
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_sass_runs_ptx_does_not)
{
    ctk_vart_t c;
    const ctk_finding_t *f;

    cell_init(&c);
    /* the plain build held SASS for this GPU: it ran; PTX alone cannot */
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaSuccess", 12090, 1, "7.5", true), "");
    judge(&c, CTK_PROBE_SASS, 0, false, report("cudaSuccess", 12090, 1, "7.5", true), "");
    judge(&c, CTK_PROBE_PTX, 0, false, report("cudaErrorUnsupportedPtxVersion", 12090, 1, "7.5", false), "");
    f = only(&c, "CTK-GPU-007");
    ck_assert_int_eq(f->severity, CTK_SEV_WARNING);
    ck_assert_ptr_nonnull(strstr(f->text, "-arch=sm_75"));
    ctk_vart_settle(&c);
    ck_assert_int_eq(c.verdict, CTK_VERDICT_PASS);
    ck_assert(c.sass.present && c.ptx.present);
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_both_fail_once)
{
    ctk_vart_t c;

    cell_init(&c);
    /* the plain build failed on PTX already: the PTX-only run adds nothing */
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaErrorUnsupportedPtxVersion", 12090, 1, "9.0", false), "");
    judge(&c, CTK_PROBE_SASS, 0, false, report("cudaSuccess", 12090, 1, "9.0", true), "");
    judge(&c, CTK_PROBE_PTX, 0, false, report("cudaErrorUnsupportedPtxVersion", 12090, 1, "9.0", false), "");
    only(&c, "CTK-GPU-006");
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_gpu_outside_the_toolkit)
{
    ctk_vart_t c;
    const ctk_finding_t *f;

    cell_init(&c);
    /* a Volta (7.0) GPU under CUDA 13: neither build has code for it */
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaErrorNoKernelImageForDevice", 13000, 1, "7.0", false), "");
    f = only(&c, "CTK-GPU-002");
    ck_assert_ptr_nonnull(strstr(f->text, "not a target of this toolkit"));
    judge(&c, CTK_PROBE_SASS, 0, false, report("cudaErrorNoKernelImageForDevice", 13000, 1, "7.0", false), "");
    judge(&c, CTK_PROBE_PTX, 0, false, report("cudaErrorNoKernelImageForDevice", 13000, 1, "7.0", false), "");
    only(&c, "CTK-GPU-002"); /* said once */
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_newer_driver_call)
{
    ctk_vart_t c;
    const ctk_finding_t *f;

    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 0, false, report("cudaErrorCallRequiresNewerDriver", 12080, 1, "9.0", false), "");
    f = only(&c, "CTK-GPU-003");
    ck_assert_ptr_nonnull(strstr(f->text, "cudaErrorCallRequiresNewerDriver"));
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_how_the_run_ended)
{
    ctk_vart_t c;

    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 0, true, NULL, "");
    ck_assert_ptr_nonnull(strstr(only(&c, "CTK-RUN-001")->text, "timed out"));
    ctk_vart_fini(&c);
    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 127, false, NULL,
          "probe_pc: error while loading shared libraries: libcudart.so.13: cannot open shared object file");
    only(&c, "CTK-RUN-003");
    ctk_vart_fini(&c);
    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 0, false, strdup("no json here\n"), "");
    ck_assert_ptr_nonnull(strstr(only(&c, "CTK-RUN-001")->text, "no report"));
    ctk_vart_fini(&c);
}
END_TEST

START_TEST(test_judge_libcudart_from_elsewhere)
{
    ctk_vart_t c;
    char *out, saved[sizeof libcudart];

    /* the node's own libcudart, not the toolkit's */
    memcpy(saved, libcudart, sizeof saved);
    snprintf(libcudart, sizeof libcudart, "/usr/lib/x86_64-linux-gnu/libcudart.so.13");
    out = report("cudaSuccess", 13000, 1, "9.0", true);
    memcpy(libcudart, saved, sizeof saved);
    cell_init(&c);
    judge(&c, CTK_PROBE_CUDA, 0, false, out, "");
    ck_assert_int_eq(c.findings.len, 1);
    ck_assert_str_eq(c.findings.items[0].code, "CTK-RUN-002");
    ctk_vart_fini(&c);
}
END_TEST

/* sh reads each quoted word back as the string itself */
START_TEST(test_quote_sh_reads_back)
{
    static const char *const words[] = {"plain", "with space", "it's", "'", "''", "$HOME `id` $(id)",
                                        "back\\slash", "*?[a]", "-e", "", "PATH=/a:/b"};
    ctk_error_t err;

    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char *q = ctk_quote_sh(words[i], "a word", &err), cmd[512], got[256] = "";
        FILE *p;

        ck_assert_ptr_nonnull(q);
        snprintf(cmd, sizeof cmd, "printf '%%s' %s", q);
        p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        if (!fgets(got, sizeof got, p))
            got[0] = '\0';
        pclose(p);
        ck_assert_str_eq(got, words[i]);
        free(q);
    }
    ck_assert_ptr_null(ctk_quote_sh("a\nb", "a word", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("judge");
    TCase *tc = tcase_create("judge");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_judge_pass_on_a_gpu);
    tcase_add_test(tc, test_judge_no_driver_is_a_skip_naming_the_node);
    tcase_add_test(tc, test_judge_driver_older_than_toolkit_ptx);
    tcase_add_test(tc, test_judge_sass_runs_ptx_does_not);
    tcase_add_test(tc, test_judge_both_fail_once);
    tcase_add_test(tc, test_judge_gpu_outside_the_toolkit);
    tcase_add_test(tc, test_judge_newer_driver_call);
    tcase_add_test(tc, test_judge_how_the_run_ended);
    tcase_add_test(tc, test_judge_libcudart_from_elsewhere);
    tcase_add_test(tc, test_quote_sh_reads_back);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
