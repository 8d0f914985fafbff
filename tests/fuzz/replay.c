/* replay.c - run a fuzz target over files, without libFuzzer.
 * SPDX-License-Identifier: MIT
 *
 * Usage: fuzz_X_replay FILE|DIR...  Each file (each regular file of each
 * dir) is one input.  Exit 0 when every input ran; a failed property
 * aborts.  Used by `make check` over tests/fuzz/corpus/<target>/ and
 * tests/fuzz/regress/<target>/. */
#include <ctkconf.h>

#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (!fp) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    for (;;) {
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap ? cap * 2 : 4096);

            if (!nb) {
                free(buf);
                fclose(fp);
                fprintf(stderr, "replay: out of memory\n");
                return 1;
            }
            buf = nb;
            cap = cap ? cap * 2 : 4096;
        }
        n = fread(buf + len, 1, cap - len, fp);
        if (n == 0)
            break;
        len += n;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int i, bad = 0;
    unsigned long inputs = 0;

    for (i = 1; i < argc; i++) {
        struct stat st;
        DIR *d;
        struct dirent *e;

        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file %s\n", argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]);
            inputs++;
            continue;
        }
        if (!(d = opendir(argv[i]))) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            bad = 1;
            continue;
        }
        while ((e = readdir(d))) {
            char path[4096];

            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                bad |= run_file(path);
                inputs++;
            }
        }
        closedir(d);
    }
    printf("replayed %lu inputs\n", inputs);
    return bad || inputs == 0;
}
