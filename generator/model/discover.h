/* discover.h - the scanner: directory trees -> CUDA toolkits, as a site config.
 * SPDX-License-Identifier: MIT
 *
 * ctk_scan() walks directory trees and recognises every CUDA toolkit layout
 * described in docs/scan.md: standalone (runfile/deb/rpm trees and runfile
 * --installpath prefixes), NVIDIA HPC SDK releases (REL/cuda/X.Y with
 * REL/math_libs/X.Y and REL/comm_libs), conda environments, NVIDIA's cu13
 * PyPI wheel tree (site-packages/nvidia/cu13), Debian's nvidia-cuda-toolkit
 * (PREFIX/usr with lib/nvidia-cuda-toolkit) and Spack install prefixes.
 * Every toolkit found is verified by ctk_sdk_load() and named by the release
 * the toolkit itself reports (ctk_version_detect).  The result holds a site
 * config (the schema `generate -c` reads) and one event per decision.
 *
 * The walk:
 * - opens each directory relative to its parent (openat), reads it once and
 *   classifies entries by d_type; only symbolic links (and file systems
 *   that do not fill d_type) cost a stat;
 * - follows symbolic links to directories, and remembers every directory
 *   by (device, inode), so a directory reached twice is walked once: a
 *   link back to a directory being walked is a loop (reported, not
 *   followed), a second spelling of a toolkit is a duplicate (reported once,
 *   under its preferred spelling);
 * - takes a directory whose bin/nvcc is a wrapper script naming another
 *   toolkit's nvcc by absolute path (`exec /usr/local/cuda-13.0/bin/nvcc
 *   "$@"`) for what it is: not a toolkit; the toolkit it names is scanned
 *   instead (even outside the roots) and the walk goes on below.  The
 *   wrapper is read, never run;
 * - never takes a system prefix (ctk_scan_is_system_prefix: /usr/local,
 *   /usr but for Debian's layout, /opt, /) as a toolkit: its bin/nvcc is
 *   followed to the toolkit it runs (a wrapper as above, a link by its
 *   resolved path, or else, when ctk_trust_exec() trusts it, the _HERE_
 *   that `nvcc -dryrun` names), and the walk goes on below;
 * - never descends into a recognised toolkit, except into the X.Y children
 *   of an HPC SDK's cuda/ directory, nor into names starting with a dot;
 * - looks at most max_depth levels below each root (the root is level 0);
 * - reports unreadable directories, dangling links and loops as events and
 *   goes on: none of them is an error.
 */
#ifndef CTK_DISCOVER_H
#define CTK_DISCOVER_H

#include "config.h"
#include "error.h"
#include "sdk.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* Levels below each root a scan looks at when not told otherwise. */
#define CTK_SCAN_DEFAULT_DEPTH 8
/* The most --max-depth accepts (one open directory per level). */
#define CTK_SCAN_MAX_DEPTH 64

typedef enum {
    CTK_LAYOUT_STANDALONE = 0, /* bin/nvcc at the root: runfile, deb, rpm, --installpath */
    CTK_LAYOUT_HPCSDK,         /* .../<release>/cuda/X.Y (or its unversioned cuda/) */
    CTK_LAYOUT_CONDA,          /* a prefix with conda-meta/ and targets/<arch> */
    CTK_LAYOUT_WHEEL,          /* site-packages/nvidia/cu<N> from NVIDIA's wheels */
    CTK_LAYOUT_DEBIAN,         /* PREFIX/usr with lib/nvidia-cuda-toolkit/bin/nvcc */
    CTK_LAYOUT_SPACK           /* a prefix with .spack/spec.json */
} ctk_layout_t;

/* "standalone", "hpcsdk", "conda", "wheel", "debian", "spack" */
const char *ctk_layout_name(ctk_layout_t layout);

typedef enum {
    CTK_SCAN_FOUND = 0,    /* a toolkit, now cfg->sdks[sdk] */
    CTK_SCAN_DUPLICATE,    /* another spelling of a toolkit found (other: the one kept) */
    CTK_SCAN_RUNTIME_ONLY, /* a CUDA runtime without nvcc (cu12 per-component wheels,
                              a conda env without cuda-nvcc): reported, not configured */
    CTK_SCAN_BROKEN,       /* looks like a toolkit (bin/nvcc) but does not load */
    CTK_SCAN_UNREADABLE,   /* a directory that cannot be opened or read */
    CTK_SCAN_DANGLING,     /* a symbolic link to nothing (other: its target) */
    CTK_SCAN_LOOP,         /* a link leading back to a directory being walked
                              (other: that directory), or a link chain that loops */
    CTK_SCAN_DEPTH,        /* subdirectories left alone: max_depth reached */
    CTK_SCAN_WRAPPER       /* bin/nvcc runs another toolkit's nvcc (a wrapper script
                              such as /usr/local/bin/nvcc, or a link in a system
                              prefix): that toolkit is scanned (other: its root),
                              never the directory holding the wrapper */
} ctk_scan_event_kind_t;

/* "found", "duplicate", "runtime-only", "broken", "unreadable", "dangling",
 * "loop", "depth", "wrapper" */
const char *ctk_scan_event_name(ctk_scan_event_kind_t kind);
/* BROKEN, UNREADABLE, DANGLING and LOOP are problems: worth a look, never fatal. */
bool ctk_scan_event_is_problem(ctk_scan_event_kind_t kind);

typedef struct {
    ctk_scan_event_kind_t kind;
    char *path;          /* the directory or link concerned */
    char *other;         /* see the kinds above; NULL otherwise */
    char *text;          /* one line for people, starting with the kind's name:
                            "found /usr/local/cuda-12.4: CUDA 12.4.1 (version.json), standalone" */
    size_t sdk;          /* FOUND: index into cfg->sdks; otherwise (size_t)-1 */
    ctk_version_t version; /* FOUND, RUNTIME_ONLY: the release read; zero otherwise */
} ctk_scan_event_t;

/* What the scan knows about each SDK of the config beyond the schema. */
typedef struct {
    ctk_layout_t layout;
    ctk_version_t version;  /* the toolkit's own, and where it was read */
    char *release;          /* HPC SDK release ("25.9"); NULL for other layouts */
} ctk_scan_sdk_t;

typedef struct {
    ctk_config_t *cfg;          /* never NULL; cfg->source is "<scan>"; n_sdks may be 0 */
    ctk_scan_sdk_t *sdks;       /* cfg->n_sdks entries, parallel to cfg->sdks */
    ctk_scan_event_t *events;   /* in the order decided: the walk's events, then
                                   duplicates and broken toolkits, then one FOUND per
                                   SDK in config order */
    size_t n_events;
    size_t n_runtime_only;      /* RUNTIME_ONLY events */
    size_t n_problems;          /* events for which ctk_scan_event_is_problem() */
    size_t dirs_visited;        /* directories opened and read */
} ctk_scan_t;

typedef struct {
    int max_depth; /* levels below each root; negative: CTK_SCAN_DEFAULT_DEPTH */
} ctk_scan_opts_t;

/* Scan the given directories (plain paths, no patterns).  A root that does
 * not exist or cannot be read is an event, not an error.  opts may be NULL
 * (defaults).  Config contents:
 * - bases absolute (a relative root is taken from the working directory,
 *   links in it kept as spelled);
 * - SDKs in X.Y order, within one X.Y by layout (standalone, Spack,
 *   Debian, conda, wheel, HPC SDK), then patch release, then HPC SDK
 *   release newest first, then path;
 * - version "X.Y" as the toolkit reports it; an HPC SDK toolkit gets
 *   math_libs REL/math_libs/X.Y when it holds cublas_v2.h, and nccl /
 *   nvshmem from REL/comm_libs/X.Y/<lib> (else REL/comm_libs/<lib>) when
 *   they hold their headers;
 * - SDKs sharing an X.Y get distinct names: a lone standalone toolkit keeps
 *   the plain "X.Y", the others "X.Y-<label>" where the label is
 *   "nvhpc-<release>", the standalone directory's name (with its parent's
 *   when it starts with a digit: "cuda-13.0.0"), "conda-<env>",
 *   "wheel-<venv>", "debian" or "spack-<hash>"; what still collides gets
 *   "-2", "-3", ...;
 * - no default_version: generate's rule (render.h) picks the highest
 *   version, the first of equals, which in this order means the layout
 *   listed first, then the newest HPC SDK release; a config that names
 *   none stays valid when an admin removes an SDK from it.
 * Returns NULL only on allocation failure (err set).  Caller frees with
 * ctk_scan_free(). */
ctk_scan_t *ctk_scan(const char *const *roots, size_t n_roots, const ctk_scan_opts_t *opts,
                     ctk_error_t *err);

/* Scan the standard install places: /usr/local/cuda, /usr/local/cuda-*,
 * /opt/cuda, /opt/nvidia/hpc_sdk (to opts->max_depth), and /usr itself for
 * Debian's layout (the root only: /usr is never walked).  Places that do
 * not exist are left out silently.  Otherwise as ctk_scan(). */
ctk_scan_t *ctk_scan_standard(const ctk_scan_opts_t *opts, ctk_error_t *err);

/* Is path (as spelled or resolved) a prefix the system's own software
 * shares, never a toolkit root by itself: /, /usr, /usr/local, /opt. */
bool ctk_scan_is_system_prefix(const char *path);

/* The standard places in words, for messages. */
extern const char ctk_scan_standard_text[];

/* Hand the config to the caller (who frees it); scan->cfg and scan->sdks
 * become NULL, the events stay. */
ctk_config_t *ctk_scan_take_config(ctk_scan_t *scan);

void ctk_scan_free(ctk_scan_t *scan);

/* "3 toolkits, 1 runtime-only tree, 2 problems; 5012 directories in 0.03 s"
 * (seconds: the caller's measure of the scan).  Caller frees. */
char *ctk_scan_summary(const ctk_scan_t *scan, double seconds, ctk_error_t *err);

/* One line per SDK of the scan's config whose bin/nvcc ctk_trust_exec()
 * (trust.h) refuses, pushed into lines in config order: "untrusted
 * <nvcc>: <why> (...)".  The scan ran that nvcc only when no file gave the
 * release, but validate runs it and the module puts it on users' PATH:
 * worth a warning, not a problem (n_problems is unchanged). */
bool ctk_scan_untrusted(const ctk_scan_t *scan, ctk_strlist_t *lines, ctk_error_t *err);

/* The scanner behind `generate` with no config, kept for its callers.
 *
 * roots are glob(3) patterns, each match scanned as by ctk_scan(); NULL (or
 * n_roots 0) means ctk_scan_standard().  notes (may be NULL) gets the text
 * of every event but CTK_SCAN_DEPTH, in order.  Finding nothing is not an
 * error: the config then holds no SDK.  Returns NULL only on allocation
 * failure (err set).  Caller frees with ctk_config_free(). */
ctk_config_t *ctk_discover_standard(const char *const *roots, size_t n_roots,
                                    ctk_strlist_t *notes, ctk_error_t *err);

#endif
