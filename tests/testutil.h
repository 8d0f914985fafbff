/* testutil.h - shared helpers for the Check test programs.
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_TESTUTIL_H
#define CTK_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>

/* A fresh private directory under $TMPDIR; caller frees the string and
 * removes the tree with tu_rmtree(). */
char *tu_mkdtemp(void);
/* A test's scratch directory: tu_scratch() makes one (asserting it could);
 * tu_scratch_end() frees the kept strings (tu_free_kept), removes the
 * tree and clears *dir.  For a checked fixture's setup and teardown. */
char *tu_scratch(void);
void tu_scratch_end(char **dir);
/* rm -rf, refusing anything outside $TMPDIR or /tmp. */
void tu_rmtree(const char *dir);
/* Write text to dir/rel, creating parent dirs; returns the full path (caller frees). */
char *tu_write(const char *dir, const char *rel, const char *text);
/* mkdir -p dir/rel; returns the full path (caller frees). */
char *tu_mkdirs(const char *dir, const char *rel);
/* Read a whole file (caller frees); NULL if unreadable. */
char *tu_read(const char *path);
/* Run a shell command line, return its exit status (-1 on failure to run). */
int tu_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A fake toolkit dir/rel, returned (caller frees): bin/nvcc (a script
 * that reports the release of cudart), include/cuda_runtime{,_api}.h with
 * CUDART_VERSION cudart (e.g. 12040), lib64/libcudart.so*, and
 * version.json saying json when it is non-NULL. */
char *tu_fake_toolkit(const char *dir, const char *rel, const char *json, int cudart);

/* Root of the real CUDA toolkit on this machine ($CTK_TEST_CUDA), or NULL. */
const char *tu_cuda_root(void);
/* Path to a directory of real layouts built by tests/fixtures.sh from the
 * real toolkit (built once per test run, cached under $TMPDIR), or NULL
 * when there is no toolkit. */
const char *tu_fixtures(void);
/* Absolute path of a file in the source tree ($top_srcdir). Caller frees. */
char *tu_srcpath(const char *rel);

/* Strings a test keeps until tu_free_kept() (call it in the teardown):
 * tu_keep() takes s (asserting it is not NULL) and returns it; tu_str()
 * formats a new one. */
char *tu_keep(char *s);
char *tu_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tu_free_kept(void);

/* Run a suite with CK_ENV-style defaults; returns the process exit status. */
int tu_run(Suite *s);

#endif
