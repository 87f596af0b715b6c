/*
 * cl_device.h: OpenCL devices: discovery, per-device context and queues, and programs built
 * from the embedded sources with an on-disk binary cache.
 *
 * Lifetime: cl_runtime_open discovers every platform and device (no contexts yet); a device's
 * context, two in-order queues (for overlapping transfers with compute) and programs are
 * created on first use and released by cl_runtime_close. Not thread-safe: one caller at a time
 * (the hpr_ctx contract).
 */
#ifndef RUNTIME_OPENCL_CL_DEVICE_H
#define RUNTIME_OPENCL_CL_DEVICE_H

#include "runtime/base/rt_check.h"

#include "cl_api.h"

#include <stdint.h>

enum { CL_PROG_MSM = 0, CL_PROG_TEST = 1, CL_PROG_NTT = 2, CL_PROG_POSEIDON2 = 3, CL_PROG_KINDS = 4 };
/* A program's variant: the curve id (1, 2) for MSM and TEST programs, the hpr_field id (1..5)
 * for NTT and Poseidon2 programs. */
enum { CL_CURVES = 6 };
/* Word variants of the field arithmetic: 64-bit words with mul_hi (standard OpenCL C),
 * 64-bit words with unsigned __int128 (POCL only), 32-bit words (8x32 for BN254), 32-bit words
 * in carry chains of inline PTX (NVIDIA only: arith/ptx_words.h). */
enum { CL_WORDS_STANDARD = 0, CL_WORDS_INT128 = 1, CL_WORDS_LIMB32 = 2, CL_WORDS_PTX = 3, CL_WORDS_VARIANTS = 4 };

/* "standard", "int128", "limb32" for CL_WORDS_*; cl_words_parse gives the variant of a name,
 * -1 for anything else (NULL too). */
const char *cl_words_name(int words);
int cl_words_parse(const char *name);

typedef struct {
    int cache_hit;      /* 1: loaded from the binary cache */
    int cache_rebuilt;  /* 1: a cache entry existed but was corrupt or stale, and was rebuilt */
    int cache_written;  /* 1: the built binary was stored */
    double seconds;     /* time to load or build */
    int words;          /* CL_WORDS_* variant in use */
} cl_build_report;

/* What the caller sets for the whole runtime (hyprove reads them from the environment once,
 * when a context is created: see host/core/knobs.c). */
typedef struct {
    char library[512];     /* the ICD loader to open; "" for libOpenCL.so.1 / libOpenCL.so */
    int words;             /* CL_WORDS_* forced for new programs (int128 only on POCL); -1: none */
    char inject_fault[32]; /* a device id whose MSM and NTT calls all fail (tests); "" none */
    uint64_t max_alloc;    /* a lower max allocation than the devices report (tests); 0 none */
    char cache_dir[4096];  /* where programs and the calibration profile live; "" none */
    int msm_kernel;        /* CL_MSM_KERNEL_* (cl_msm.h): 0 lets the device type choose */
    unsigned msm_items;    /* sorted kernels: bucket-sum work-items per compute unit (tests); 0 default */
} cl_options;

/* No library forced, no words forced, no fault, no allocation limit, no cache. */
void cl_options_default(cl_options *opts);

/* A set of points kept on a device between calls (runtime/opencl/cl_resident.c): slabs of
 * at most the device's max allocation, each a run of consecutive points of the set. */
typedef struct cl_resident {
    uint64_t key;        /* who asked for it: the caller's unique key of the point set */
    uint64_t owner;      /* cl_resident_drop(owner) releases it */
    uint64_t last_use;   /* the device's use clock: the least recently used goes first */
    int curve;
    size_t count, slab_points, point_size;
    uint64_t bytes;
    unsigned nslabs;
    cl_mem *slabs;       /* nslabs of them */
    struct cl_resident *next;
} cl_resident;

/* An NTT twiddle table kept on a device (cl_ntt.c, for the columns kept there): the field,
 * size, direction and generator it was made for, compared whole. */
typedef struct {
    int field;
    unsigned log_n;
    int inverse;
    uint64_t generator[4];
} cl_twiddle_key;

#define CL_TWIDDLE_SLOTS 4
typedef struct {
    cl_twiddle_key key;
    cl_mem buf; /* NULL: a free slot */
    size_t bytes;
    uint64_t last_use;
} cl_twiddle_slot;

typedef struct {
    char id[16]; /* "cl:P.D" */
    const cl_options *opts; /* the runtime's */
    cl_platform_id platform;
    cl_device_id device;
    char name[128], vendor[128], platform_name[128], platform_version[128], driver[128], c_version[64];
    cl_device_type type;
    unsigned compute_units, clock_mhz;
    uint64_t global_mem, local_mem, max_alloc;
    int int64;   /* 64-bit integers supported (full profile or cl_khr_int64) */
    int is_pocl; /* Portable Computing Language: the int128 word path is offered */

    /* state, created on first use */
    cl_context context;
    cl_command_queue queue[2];
    cl_program programs[CL_PROG_KINDS][CL_CURVES][CL_WORDS_VARIANTS];
    cl_build_report reports[CL_PROG_KINDS][CL_CURVES][CL_WORDS_VARIANTS];
    int selftest[CL_CURVES]; /* 0 not run, 1 passed, -1 failed */
    int failed;              /* the device is unusable; reason in failure */
    char failure[CL_DETAIL_LEN];
    cl_resident *resident;   /* point sets kept on the device, most recent first */
    uint64_t resident_bytes; /* their size */
    uint64_t resident_clock;
    uint64_t bytes_sent;     /* written to it since opened: MSM and NTT inputs, tables */
    cl_twiddle_slot twiddles[CL_TWIDDLE_SLOTS]; /* kept for cl_ntt_cols_transform, least recently used replaced */
} cl_dev;

typedef struct {
    cl_api api;
    int api_loaded;
    cl_dev *devs;
    unsigned ndevs;
    char notice[CL_DETAIL_LEN]; /* why no OpenCL device is available ("" if some are) */
    cl_options opts;
} cl_runtime;

/* Loads OpenCL and lists the devices. Never fails for lack of OpenCL: *out then has no
 * devices and a notice. Returns -1 only when memory runs out. */
RT_MUST_CHECK int cl_runtime_open(cl_runtime **out, const cl_options *opts);
void cl_runtime_close(cl_runtime *rt);

/* The device with id "cl:P.D", or NULL. */
cl_dev *cl_runtime_find(cl_runtime *rt, const char *id);

/* Creates the device's context and queues if needed. 0, or -1 with detail. */
RT_MUST_CHECK int cl_dev_open(cl_runtime *rt, cl_dev *dev, char *detail);

/* Whether dev offers the word variant: standard and limb32 everywhere, int128 on POCL only,
 * ptx (inline PTX) on NVIDIA devices only. */
int cl_dev_offers_words(const cl_dev *dev, int words);

/* The word variant used for new programs on dev: opts->words forces it where dev offers it;
 * otherwise int128 on POCL, limb32 on NVIDIA and standard elsewhere. */
int cl_dev_default_words(const cl_dev *dev);

/* The program of (kind, variant (curve or field id), words) for dev: cached in memory, else loaded from the disk
 * cache, else built from the embedded source (and stored). Words that dev does not offer, or
 * that fail to build, fall back to the portable ones: int128 to standard, ptx to limb32.
 * 0 with *prog (owned by dev), or -1 with the build log in detail. */
RT_MUST_CHECK int cl_dev_program(cl_runtime *rt, cl_dev *dev, int kind, int curve, int words, cl_program *prog, char *detail);

/* Work-items per work-group of a 1-D launch of k on dev where the kernel shares nothing
 * between items: CL_LAUNCH_GROUP, or the largest power of two within the kernel's limit on
 * the device (CL_KERNEL_WORK_GROUP_SIZE: registers, local memory) when that is lower. Never
 * the driver's choice: for a global size that is not a multiple of a warp, a driver picks a
 * divisor of it (groups of 3, 4 or 14 items where 32 lanes run). Launch over the count
 * rounded up to whole groups, the kernel guarding the extra items. */
#define CL_LAUNCH_GROUP 128u
size_t cl_launch_group(const cl_api *api, const cl_dev *dev, cl_kernel k);

/* Releases the resident point sets of dev whose owner is `owner` (0: all of them). */
void cl_resident_drop(const cl_api *api, cl_dev *dev, uint64_t owner);
/* Releases the one resident set r of dev. */
void cl_resident_remove(const cl_api *api, cl_dev *dev, cl_resident *r);

/* 1 (with detail) when opts->inject_fault names dev: every call of the device's MSM and NTT
 * fails, for the tests of the CPU fallback. */
int cl_dev_injected_fault(const cl_dev *dev, char *detail);


#endif
