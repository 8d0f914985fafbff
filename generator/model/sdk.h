/* sdk.h - the SDK model: one verified record per toolkit, and the decisions
 * about which directory goes on which variable.
 * SPDX-License-Identifier: MIT
 *
 * ctk_sdk_load() looks at the filesystem: it finds nvcc, the include dir
 * holding cuda_runtime.h, the lib dir holding libcudart.so*, the math
 * library, NVVM, CUPTI and comm_libs dirs, reads the toolkit's own version
 * and checks it against the declared one.  Templates never decide anything:
 * every list below is final, deduplicated (by resolved path, first spelling
 * kept) and holds existing directories only.
 *
 * System directories never go on the lists (PATH, CPATH, LIBRARY_PATH,
 * LD_LIBRARY_PATH, MANPATH): /usr/bin, /bin, /usr/include, /usr/lib,
 * /usr/lib64, /lib, /lib64, /usr/lib/<multiarch>, /lib/<multiarch> and
 * /usr/share/man, by their spelling or their resolved path.  The shell,
 * compiler, linker, loader and man search them already, and a module that
 * put them first would reorder the system's own search (a /usr/bin ahead of
 * a user's ~/bin, /usr/lib ahead of another module's libraries).  This is
 * what makes Debian's nvidia-cuda-toolkit (base /usr: bin/nvcc a wrapper of
 * lib/nvidia-cuda-toolkit/bin/nvcc, headers in /usr/include, libraries in
 * /usr/lib/<multiarch>) loadable: its module sets CUDA_HOME and friends and
 * adds no directory.  The per-field dirs (incdir, libdir, ...) and the .pc
 * files still name them.  In that layout nvvm.h and libnvvm sit in the
 * base include and lib dirs, libdevice in lib/nvidia-cuda-toolkit/libdevice
 * (found by nvcc through its own nvcc.profile), and CUPTI (libcupti-dev) in
 * /usr/include and /usr/lib/<multiarch>: there is no nvvm/ or extras/CUPTI.
 */
#ifndef CTK_SDK_H
#define CTK_SDK_H

#include "config.h"
#include "error.h"
#include "util.h"

#include <stdbool.h>

typedef enum {
    CTK_VSRC_NONE = 0,
    CTK_VSRC_VERSION_JSON, /* <root>/version.json, key "cuda" */
    CTK_VSRC_VERSION_TXT,  /* <root>/version.txt, "CUDA Version X.Y.Z" */
    CTK_VSRC_HEADER,       /* CUDART_VERSION in cuda_runtime_api.h */
    CTK_VSRC_NVCC          /* `nvcc --version`, "release X.Y" */
} ctk_version_source_t;

typedef struct {
    int major, minor;
    int patch;                   /* -1 when the source does not say */
    ctk_version_source_t source;
    char path[4096];             /* the file (or nvcc) it was read from */
    char passed_over[512];       /* an earlier source that exists but could not be
                                    read ("version.json: not valid JSON ..."); "" if none */
    char out_of_step[1536];      /* the toolkit's parts agree, but its version.json or
                                    version.txt says another release (a warning: what
                                    disagrees); "" if none.  Parts that disagree among
                                    themselves fail the load (ctk_sdk_load) */
} ctk_version_t;

/* Parse "X.Y" or "X.Y.Z" (digits only; patch -1 when absent). */
bool ctk_version_parse(const char *s, int *major, int *minor, int *patch);

/* Name of a version source for messages ("version.json", ...). */
const char *ctk_version_source_name(ctk_version_source_t src);

/* The libraries that get a .pc file of their own (<pc_prefix>-<lib>-<name>.pc),
 * by index; NULL past the last. */
const char *ctk_sdk_lib_name(size_t i);

/* Read a toolkit's version in the order version.json, version.txt,
 * CUDART_VERSION in <incdir>/cuda_runtime_api.h, `nvcc --version`.
 * incdir and nvcc may be NULL.  Fails (CTK_E_SDK) when no source answers. */
bool ctk_version_detect(const char *root, const char *incdir, const char *nvcc,
                        ctk_version_t *out, ctk_error_t *err);

/* The bin dir nvcc says it runs from: the _HERE_ of `nvcc -dryrun -E -x
 * cu /dev/null` (nvcc prints it however it was started, through any
 * wrapper).  Runs nvcc: the caller decides it may (trust.h).  NULL when it
 * cannot run, fails or names none; on allocation failure NULL with err
 * set.  Caller frees. */
char *ctk_sdk_nvcc_here(const char *nvcc, ctk_error_t *err);

/* A library of the toolkit, for per-library .pc files. */
typedef struct {
    const char *name;   /* "cublas" (static string) */
    const char *label;  /* "cuBLAS": the name people write (static string) */
    const char *description; /* static string */
    bool math;          /* one of the math libraries: cuBLAS, cuFFT, cuRAND, cuSOLVER, cuSPARSE */
    char *libdir;       /* dir holding lib<link>.so* */
    char *link;         /* "-lcublas -lcublasLt" style list, space separated */
} ctk_sdk_lib_t;

/* Fill lib's name, label, description and math from the library
 * ctk_sdk_lib_name(i) names, as ctk_sdk_load() fills them (static
 * strings); libdir and link are left as they are.  false, lib untouched,
 * past the last. */
bool ctk_sdk_lib_describe(size_t i, ctk_sdk_lib_t *lib);

/* A library the toolkit ships under its versioned names alone (NVIDIA's
 * CUDA 13 wheels: libcudart.so.13, no libcudart.so), so that -lcudart
 * finds no copy of the toolkit's own.  generate writes lib<name>.so into
 * a directory of OUT it manages (render.c: a linker input script naming
 * file), which the modules and the .pc put first on the link search. */
typedef struct {
    const char *name;   /* "cudart": what -l names (static string) */
    char *file;         /* the toolkit's lib<name>.so.<N>, as found in its lib dir */
} ctk_sdk_versioned_t;

/* The libraries -l or CMake's FindCUDAToolkit link by name and ctkgen
 * provides the unversioned name of, by index; NULL past the last. */
const char *ctk_sdk_link_name(size_t i);

typedef struct {
    const ctk_sdk_conf_t *conf; /* borrowed; must outlive the record */
    char *module_version;       /* conf->module_version, else conf->version */
    ctk_version_t version;      /* the toolkit's own */
    char *version_mm;           /* "12.4" */
    char *version_full;         /* "12.4.1" when the toolkit says; else NULL */

    char *root;                 /* base as configured */
    char *bindir, *nvcc;
    char *incdir;               /* holds cuda_runtime.h */
    char *cccl_incdir;          /* incdir/cccl when it holds CCCL (CUDA 13 moved Thrust, CUB
                                   and libcu++ there: nvcc adds it, host compilers need it) */
    char *libdir;               /* holds libcudart.so*: lib64, lib, targets/<arch>/lib{,64},
                                   lib/<multiarch> (Debian), first found */
    char *stubsdir;             /* lib stubs (libcuda.so stub); NULL if none. Never on LD_LIBRARY_PATH */
    char *mandir;               /* NULL if the toolkit has no man pages */
    char *math_incdir, *math_libdir;   /* holds cublas_v2.h / libcublas.so*; may equal incdir/libdir */
    char *nvvm_root, *nvvm_incdir, *nvvm_libdir; /* NULL members when absent */
    char *cupti_incdir, *cupti_libdir;
    char *nccl_incdir, *nccl_libdir;
    char *nvshmem_incdir, *nvshmem_libdir, *nvshmem_bindir;

    /* decisions, in order, each dir once */
    ctk_strlist_t path;            /* bindir (+ nvshmem bin) */
    ctk_strlist_t ld_library_path; /* every lib dir: base, math_libs, CUPTI, nvvm, comm_libs */
    ctk_strlist_t library_path;    /* same as ld_library_path */
    ctk_strlist_t cpath;           /* every include dir: base first */
    ctk_strlist_t manpath;

    ctk_sdk_lib_t *libs;           /* libraries found, in a fixed order */
    size_t n_libs;
    ctk_sdk_versioned_t *versioned; /* libraries without their unversioned name, in
                                       ctk_sdk_link_name() order; none in a runfile tree */
    size_t n_versioned;
} ctk_sdk_t;

/* Is dir one of the system directories above (by spelling or resolved path)? */
bool ctk_sdk_is_system_dir(const char *dir);

/* Build and verify the record for one configured SDK.  config_source is the
 * config file path used in errors (which also name the SDK and the field).
 * The one program it may run is the toolkit's nvcc, for `nvcc --version`,
 * and only when no version.json, version.txt or CUDART_VERSION says the
 * release.
 * Parts out of step: the release of each part that says one -- CUDART_VERSION
 * (the headers), nvcc (the "Cuda compilation tools, release X.Y" that
 * `nvcc --version` prints, read from its executable, never run: a hung
 * nvcc cannot stall a load, and reading needs no trust) and, in a pip tree
 * (<site-packages>/nvidia/<dir>, or a tree with a dist-info/ dir), the
 * *.dist-info of nvidia-cuda-nvcc, -cuda-runtime, -cuda-crt, -nvvm,
 * -cuda-nvrtc and -cuda-cupti (and their -cuXX names) -- must agree on
 * major.minor: else the load fails (CTK_E_SDK), naming each part and its
 * release.  A version.json or version.txt that disagrees with parts that
 * agree is a warning (version.out_of_step); the version file still gives
 * the version, as it does for CMake.  Caller frees. */
ctk_sdk_t *ctk_sdk_load(const ctk_sdk_conf_t *conf, const char *config_source, ctk_error_t *err);

/* What ctk_sdk_load_ex() may run, for callers that load a toolkit another
 * user may have named (lint): with trusted_only, `nvcc --version` runs only
 * when ctk_trust_exec() (trust.h) trusts that nvcc.  When it was needed and
 * refused, nvcc_refused is set, why holds the trust check's reason, and the
 * version is unknown: the load fails (CTK_E_SDK) as for any toolkit whose
 * release nothing says. */
typedef struct {
    bool trusted_only;     /* in */
    bool nvcc_refused;     /* out: `nvcc --version` was needed and not run */
    char nvcc[4096];       /* out, with nvcc_refused: the nvcc not run */
    char why[1024];        /* out, with nvcc_refused: why (trust.h) */
} ctk_sdk_exec_t;

/* ctk_sdk_load() under ex (NULL: as ctk_sdk_load); ex's outputs are
 * cleared first. */
ctk_sdk_t *ctk_sdk_load_ex(const ctk_sdk_conf_t *conf, const char *config_source, ctk_sdk_exec_t *ex,
                           ctk_error_t *err);
void ctk_sdk_free(ctk_sdk_t *sdk);

/* Where base leads when its last component is a symbolic link (followed
 * link by link, at most 40: /usr/local/cuda -> /etc/alternatives/cuda ->
 * /usr/local/cuda-13.0); the directories above it stay as spelled, unless
 * a link names a relative path up ("../x"), when the whole path is
 * resolved.  NULL when base is no link, or it leads nowhere (the load
 * then says what is wrong), or on allocation failure (err set).  Caller
 * frees. */
char *ctk_sdk_base_link(const char *base, ctk_error_t *err);

/* A moving link as base (/usr/local/cuda, repointed at each install)
 * would have a module named 13.0 silently follow it to 13.1.  Unless
 * conf->follow_link, replace conf->base by where it leads
 * (ctk_sdk_base_link) and set *note (caller frees) to a line saying so
 * and how to keep following the link; *note NULL when base is no link or
 * follow_link is set.  False only on allocation failure. */
bool ctk_sdk_conf_pin_base(ctk_sdk_conf_t *conf, const char *module_name, char **note,
                           ctk_error_t *err);

#endif
