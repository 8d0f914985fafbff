/* sandbox.c - what the sandbox's meters cost: the same Lua work run by
 * ctk_lua_render (whitelist, count hook, metered library, ctkgen's own
 * pattern functions, CPU clock) and by a plain lua_State with Lua's own
 * libraries and no hook.  Built and run by bench/sandbox.sh.
 * SPDX-License-Identifier: MIT
 *
 * Prints, per workload, the median wall time of R runs of each and their
 * ratio, measured in one process, interleaved (plain, sandbox, plain, ...)
 * so that a noisy neighbour slows both alike.  Then the time the sandbox
 * takes to stop each hostile chunk that Lua alone would run for hours. */
#include <ctkconf.h>

#include "luahost.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct {
    const char *name;
    const char *src;
} work[] = {
    /* what a modulefile template does per toolkit, for 2000 toolkits */
    { "template-like rendering",
      "local dirs = {'bin', 'lib64', 'include', 'nvvm/lib64', 'extras/CUPTI/lib64'}\n"
      "for k = 1, 2000 do\n"
      "  local root = '/opt/nvidia/hpc_sdk/Linux_x86_64/24.' .. k .. '/cuda/12.' .. (k % 10)\n"
      "  emit(string.format('-- cudatoolkit %d.%d\\n', 12, k % 10))\n"
      "  for _, d in ipairs(dirs) do\n"
      "    local p = root .. '/' .. d\n"
      "    emit('prepend_path(\"PATH\", \"', p:gsub('[\\\\\"]', '\\\\%0'), '\")\\n')\n"
      "  end\n"
      "  local parts = {}\n"
      "  for seg in root:gmatch('[^/]+') do parts[#parts + 1] = seg end\n"
      "  emit(table.concat(parts, ' '), '\\n')\n"
      "end\n" },
    /* path splitting and matching, as a vendor modulefile does */
    { "pattern matching on paths",
      "local n = 0\n"
      "local path = '/usr/local/cuda-12.4/bin:/opt/nvidia/hpc_sdk/Linux_x86_64/24.3/compilers/bin:/usr/bin:/bin'\n"
      "for k = 1, 20000 do\n"
      "  for p in path:gmatch('[^:]+') do\n"
      "    local dir, base = p:match('^(.*)/([^/]*)$')\n"
      "    if dir and p:find('cuda', 1, true) then n = n + #base end\n"
      "  end\n"
      "  local v = path:match('cuda%-(%d+)%.(%d+)')\n"
      "end\n"
      "emit(n)\n" },
    /* library calls on tables */
    { "table building and sorting",
      "for k = 1, 200 do\n"
      "  local t = {}\n"
      "  for i = 1, 500 do table.insert(t, (i * 7919) % 1000) end\n"
      "  table.sort(t)\n"
      "  local s = table.concat(t, ',')\n"
      "  table.remove(t, 1)\n"
      "end\n"
      "emit('x')\n" },
    /* the VM alone: what the count hook costs */
    { "arithmetic loop",
      "local x = 0 for i = 1, 3000000 do x = (x + i * 3) % 1000003 end emit(x)\n" },
};

static const struct {
    const char *name;
    const char *src;
} hostile[] = {
    { "backtracking pattern", "local s = ('a'):rep(80) emit(tostring(s:find('.-.-.-.-.-.-.-b')))" },
    { "empty string repeated 2^40 times, then a loop",
      "local s = (''):rep(1 << 40) while true do local t = s .. 'x' end" },
    { "table.move over 2^62 slots", "table.move({}, 1, 1 << 62, 2)" },
    { "utf8.len of 1 MiB, for ever", "local s = ('x'):rep(1 << 20) while true do local n = utf8.len(s) end" },
    { "comparing two 2 MiB strings, for ever",
      "local a, b = ('x'):rep(2 << 20), ('x'):rep(2 << 20) local n = 0\n"
      "while true do if a == b then n = n + 1 end end" },
};

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static size_t plain_out;

static int plain_emit(lua_State *L)
{
    int i, n = lua_gettop(L);

    for (i = 1; i <= n; i++) {
        size_t len;

        luaL_checklstring(L, i, &len);
        plain_out += len;
    }
    return 0;
}

/* The chunk in a plain state; its wall time in ms, or -1 on an error. */
static double run_plain(const char *src)
{
    lua_State *L = luaL_newstate();
    double t0, t;
    int rc;

    if (!L)
        return -1;
    luaL_openlibs(L);
    lua_register(L, "emit", plain_emit);
    plain_out = 0;
    t0 = now_ms();
    rc = luaL_loadstring(L, src);
    if (rc == LUA_OK)
        rc = lua_pcall(L, 0, 0, 0);
    t = now_ms() - t0;
    if (rc != LUA_OK)
        fprintf(stderr, "plain: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return rc == LUA_OK ? t : -1;
}

/* The chunk in the sandbox; its wall time in ms, or -1 on an error (the
 * error in *err). */
static double run_sandbox(const char *src, ctk_error_t *err)
{
    double t0 = now_ms(), t;
    size_t len;
    char *out;

    ctk_error_init(err);
    out = ctk_lua_render("bench.lua", src, strlen(src), NULL, NULL, &len, err);
    t = now_ms() - t0;
    free(out);
    return out ? t : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int r = argc > 1 ? atoi(argv[1]) : 7;
    double *plain, *sand;
    size_t i;
    int k;

    if (r < 1 || r > 1000) {
        fprintf(stderr, "usage: sandbox [RUNS]\n");
        return 2;
    }
    plain = calloc((size_t)r, sizeof *plain);
    sand = calloc((size_t)r, sizeof *sand);
    if (!plain || !sand)
        return 1;
    printf("| workload | plain Lua (ms) | sandbox (ms) | ratio |\n| --- | ---: | ---: | ---: |\n");
    for (i = 0; i < sizeof work / sizeof work[0]; i++) {
        ctk_error_t err;

        for (k = 0; k < r; k++) {
            plain[k] = run_plain(work[i].src);
            sand[k] = run_sandbox(work[i].src, &err);
            if (plain[k] < 0 || sand[k] < 0) {
                fprintf(stderr, "%s: failed: %s\n", work[i].name, sand[k] < 0 ? err.text : "plain");
                return 1;
            }
        }
        {
            double p = median(plain, r), s = median(sand, r);

            printf("| %s | %.1f | %.1f | %.2f |\n", work[i].name, p, s, s / p);
        }
    }
    printf("\n| hostile chunk | sandbox stops it after (ms) | with |\n| --- | ---: | --- |\n");
    for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        ctk_error_t err;

        for (k = 0; k < r; k++) {
            double t0 = now_ms();

            if (run_sandbox(hostile[i].src, &err) >= 0 || err.code != CTK_E_LIMIT) {
                fprintf(stderr, "%s: not stopped by a limit: %s\n", hostile[i].name, err.text);
                return 1;
            }
            sand[k] = now_ms() - t0;
        }
        {
            /* the reason, without the limits in parentheses */
            int n = (int)strcspn(err.text, "(");

            while (n > 0 && err.text[n - 1] == ' ')
                n--;
            printf("| %s | %.0f | %.*s |\n", hostile[i].name, median(sand, r), n, err.text);
        }
    }
    free(plain);
    free(sand);
    return 0;
}
