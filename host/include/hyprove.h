/*
 * hyprove.h: the public C API of hyprove, a hybrid proving runtime (MSM, NTT, Groth16).
 *
 * Conventions: every fallible call returns an hpr_status (HPR_OK = 0); the context keeps a
 * one-line detail of the last failure (hpr_ctx_error_detail). The library never prints and
 * never exits. Points and scalars cross the API in the interchange form:
 *   - a G1 point is x then y, each a base-field element in Montgomery form (R = 2^256 for
 *     BN254, 2^384 for BLS12-381) as little-endian bytes: 64 bytes (BN254), 96 (BLS12-381);
 *     the point at infinity is all zero bytes. This is how snarkjs .zkey files store points.
 *   - a G2 point is x then y, each an Fq2 element c0 + c1 u as c0 then c1 (u^2 = -1), each in
 *     the same Montgomery form: 128 bytes (BN254), 192 (BLS12-381); infinity all zero.
 *   - a scalar is 32 bytes, the canonical integer (< r, not Montgomery), little-endian, as in
 *     snarkjs .wtns files.
 * Not constant-time: see docs/threat-model.md.
 *
 * Structs that cross the API and may grow (options, reports, the proof) begin with
 * `size_t struct_size`, which the caller sets to sizeof the struct it was compiled with:
 *   hpr_msm_opts o = {.struct_size = sizeof o, .device = "cpu"};
 * (hpr_config_default sets it). The library reads and writes only the struct_size bytes it is
 * given, so a program built against this header keeps working with later libraries of the
 * same soname, whose structs only grow at the end. A struct_size of 0 (a program that left
 * the field out) or below the struct's 0.2.0 size is HPR_ERR_INVALID_ARGUMENT; one above this
 * library's size is accepted when the newer fields are all zero. An output struct's struct_size is set to
 * the bytes the library wrote. The arrays of devices come last in their reports
 * (hpr_run_report, hpr_groth16_report), so that a later release can make them longer: a call
 * fills as many entries as the caller's struct holds. Every call returning hpr_status is
 * HPR_NODISCARD.
 * docs/api.md: "Structs that grow".
 */
#ifndef HYPROVE_H
#define HYPROVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPR_VERSION_MAJOR 0
#define HPR_VERSION_MINOR 2
#define HPR_VERSION_PATCH 0
#define HPR_VERSION_STRING "0.2.0"

/* Marks the API: the library is built with hidden visibility, so these are the only symbols
 * that libhyprove.so exports. */
#if defined(__GNUC__) && !defined(_WIN32)
#define HPR_API __attribute__((visibility("default")))
#else
#define HPR_API
#endif

/* A status that must be looked at (gcc and clang warn where a call's result is dropped; note
 * that gcc warns even through a cast to void). Define HPR_NO_NODISCARD before including this
 * header to turn it off. On the calls whose failure leaves their outputs unusable. */
#if defined(__GNUC__) && !defined(HPR_NO_NODISCARD)
#define HPR_NODISCARD __attribute__((warn_unused_result))
#else
#define HPR_NODISCARD
#endif
/* A call kept for one release under an older name. */
#if defined(__GNUC__)
#define HPR_DEPRECATED(why) __attribute__((deprecated(why)))
#else
#define HPR_DEPRECATED(why)
#endif

/* Status codes in numbered ranges: 1xx arguments, 2xx formats and I/O, 3xx resources,
 * 4xx devices, 5xx internal checks, 6xx the caller stopped the call. */
typedef enum {
    HPR_OK = 0,
    HPR_ERR_INVALID_ARGUMENT = 100,
    HPR_ERR_UNSUPPORTED_CURVE = 101,
    HPR_ERR_UNSUPPORTED_GROUP = 102,
    HPR_ERR_SCALAR_OUT_OF_RANGE = 103,   /* a scalar >= r (the group order) */
    HPR_ERR_COORDINATE_OUT_OF_RANGE = 104, /* a point coordinate >= p */
    HPR_ERR_POINT_NOT_ON_CURVE = 105,
    HPR_ERR_POINT_NOT_IN_SUBGROUP = 106,
    HPR_ERR_UNKNOWN_DEVICE = 107,
    HPR_ERR_CPU_TIER = 108, /* a CPU kernel tier this processor, OS or build cannot run */
    HPR_ERR_UNSUPPORTED_FIELD = 109,
    HPR_ERR_ELEMENT_OUT_OF_RANGE = 110, /* a field element >= p */
    HPR_ERR_PROOF_INVALID = 111,        /* a well-formed proof that does not verify */
    HPR_ERR_FORMAT = 200,
    HPR_ERR_IO = 201,
    HPR_ERR_WITNESS_LENGTH = 202, /* a .wtns with another number of values than the zkey's nVars */
    HPR_ERR_OUT_OF_MEMORY = 300,
    HPR_ERR_THREADS = 301,
    HPR_ERR_DEVICE = 400,
    HPR_ERR_RANK = 401, /* another process of a cluster call (hpr_cluster) failed, or its transport did */
    HPR_ERR_INTERNAL = 500,
    HPR_ERR_CANCELLED = 600 /* the caller cancelled the call (hpr_config.cancel, hpr_ctx_cancel) */
} hpr_status;

/* The version of the library that is running ("0.2.0"), which may differ from the
 * HPR_VERSION_STRING that a program was compiled with; *major, *minor and *patch get its
 * numbers where not NULL. */
HPR_API const char *hpr_version(unsigned *major, unsigned *minor, unsigned *patch);

/* A static English description of a status ("unknown status" for values not listed). */
HPR_API const char *hpr_status_str(hpr_status status);

typedef enum { HPR_CURVE_BN254 = 1, HPR_CURVE_BLS12_381 = 2 } hpr_curve;
typedef enum { HPR_G1 = 1, HPR_G2 = 2 } hpr_group;

typedef struct hpr_ctx hpr_ctx;

/*
 * Progress and cancellation of the long calls: hpr_msm, hpr_msm_ex, hpr_msm_bases, hpr_ntt,
 * hpr_ntt_lde, hpr_commit, hpr_groth16_prove, hpr_groth16_prove_file, hpr_calibrate and
 * hpr_calibrate_ntt (each counts as one call: the MSMs inside a proof or a calibration add to
 * the outer call's fraction, they do not restart it).
 * The callback (hpr_config.progress) runs on one of the library's threads (a pool worker, a
 * device's thread or the caller's), never two at once, at most every progress_interval_s
 * while work completes, and once more at the end of a call that succeeds, with fraction 1
 * (not after a failed or cancelled call). It must be quick and must not call into the same
 * context (cancelling it is allowed: set the cancel flag or call hpr_ctx_cancel). The
 * fraction counts the call's work (tiles, NTT stages, a proof's phases weighted by their
 * size), not its time; it only grows, and stays below 1 until the end.
 * Cancellation is checked before each unit of work: each MSM tile (on the CPU pool and on
 * every device of the hybrid scheduler), each NTT stage and column, each phase of a proof.
 * A cancelled call returns HPR_ERR_CANCELLED with a detail ("cancelled after 37% of the
 * msm"), writes no result, and leaves the context usable for the next call. An output buffer
 * may be partly written all the same: an MSM's out and hpr_ntt's data are left as they were,
 * an LDE's out is partly written, a proof is left empty. Work already on an OpenCL device (one
 * kernel run of a whole MSM, a tile, an NTT batch) finishes first.
 */
typedef struct {
    size_t struct_size; /* sizeof the library's hpr_progress: members past it are absent */
    const char *call;  /* "msm", "ntt", "ntt lde", "commit", "groth16 prove", "calibrate" */
    const char *phase; /* a proof's phase ("witness", "h", "msm A", "msm B1", "msm B2", "msm C",
                        * "msm H", "assemble"), else "" (and "" in the final report) */
    double fraction;   /* 0..1 of the whole call, non-decreasing; 1 only at the end */
    double elapsed_s;  /* since the call began */
} hpr_progress;
typedef void (*hpr_progress_fn)(const hpr_progress *progress, void *user);

/* Stops the context's running call at its next unit of work (HPR_ERR_CANCELLED), as the
 * cancel flag of hpr_config does. Safe from any thread and from a signal handler (it sets an
 * atomic flag). The flag is cleared when the next call begins, so a cancel that arrives
 * between calls is dropped. */
HPR_API void hpr_ctx_cancel(hpr_ctx *ctx);

/*
 * Devices are named "cpu" (the native kernels on the thread pool), "cl:P.D" (OpenCL device D
 * of platform P, as hpr_device_info lists them) or "all": every usable device at once, one
 * MSM split by measured throughput and rebalanced while it runs. "all" leaves out an OpenCL
 * device that runs on the same cores as the native pool when together they would ask for
 * more cores than the machine has (POCL with the pool on every core), and says so in the
 * run report.
 */
#define HPR_MAX_THREADS 4096 /* the most CPU worker threads a context takes */

typedef struct {
    size_t struct_size;  /* sizeof(hpr_config); hpr_config_default sets it */
    unsigned threads;    /* CPU worker threads, 1..HPR_MAX_THREADS; 0 = every online core */
    /* default device of the calls: "auto" (or NULL): the native CPU tiers and the OpenCL devices
     * that are not CPU devices (GPUs), an OpenCL CPU device (POCL) only where this machine's
     * calibration shows it helping, OpenCL not even loaded when nothing of it would be used
     * (docs/opencl.md; calls across devices on such a context leave POCL out, "all" ones
     * too); "all": every usable device, POCL included; "cpu"; "cl:P.D" */
    const char *devices;
    /* CPU kernel tier: "portable" (plain C), "adx" (mulx/adcx/adox), "avx2" (adx and 8-lane AVX2
     * kernels of the 31-bit and 64-bit NTT fields), "avx512" (8-lane IFMA), or
     * NULL: the environment variable HPR_CPU if set, else the fastest one this processor, its
     * OS and this build allow. A forced tier that cannot run is HPR_ERR_CPU_TIER. */
    const char *cpu_tier;
    /* Progress of the long calls (see hpr_progress above); NULL: none. */
    hpr_progress_fn progress;
    void *progress_user;          /* passed to progress */
    double progress_interval_s;   /* the least time between two reports; 0: 0.1 s */
    /* NULL, or a flag of the caller's: when *cancel becomes nonzero (set it from any thread or
     * a signal handler), the running call stops at its next unit of work and returns
     * HPR_ERR_CANCELLED. The library reads it with an atomic load: from another thread, set it
     * with an atomic store (atomic_store_explicit on a cast, or __atomic_store_n) so that
     * ThreadSanitizer sees no race. The library never clears it: clear it before the next
     * call. */
    const volatile int *cancel;
    /* The memory budget of one call, in bytes. Before an MSM, an NTT, an LDE or a proof
     * allocates, its peak working memory is estimated from the sizes (buffers, per-thread
     * scratch, the host memory of OpenCL devices that run on the CPU; docs/memory.md) and
     * compared with the limit: a call over it fails with HPR_ERR_OUT_OF_MEMORY before writing
     * anything, the detail naming both ("the proof needs about 1.2 GiB; the memory limit is
     * 512 MiB (hpr_config.memory_limit)"), except that an MSM runs in pieces of its points
     * that fit (same result) and a proof whose MSMs fit that way runs its phases in order.
     * The prover's key and the bases a context keeps on its devices are not counted (they
     * are there before the call); the NTT's twiddle tables are (the first call makes them).
     * 0: the environment variable HPR_MAX_MEMORY when set (bytes, or a number with K, M, G or
     * T, powers of 1024: "512M", "1.5G"; a malformed value makes hpr_ctx_create fail with
     * HPR_ERR_INVALID_ARGUMENT), else what the system can give when the call starts: the
     * least of MemAvailable (/proc/meminfo), the room under memory.max of the process's
     * cgroup (v2) and its parents, and the room under RLIMIT_AS and RLIMIT_DATA (calls that
     * need less than 16 MiB are not checked against it). A limit that is set is taken as
     * given, even above what the system has. */
    size_t memory_limit;
} hpr_config;

/* Whether the CPU tier name can run here: HPR_OK, or HPR_ERR_CPU_TIER / HPR_ERR_INVALID_ARGUMENT
 * with *why (static text) saying what is missing. why may be NULL. */
HPR_API HPR_NODISCARD hpr_status hpr_cpu_tier_check(const char *name, const char **why);
/* The CPU kernel tier this context uses ("portable", "adx", "avx2", "avx512" or "neon"; "" for
 * NULL). */
HPR_API const char *hpr_ctx_cpu_tier(const hpr_ctx *ctx);

/* What the processor and the OS offer, from CPUID and XCR0 (every flag 0 off x86-64). */
typedef struct {
    size_t struct_size;     /* sizeof(hpr_cpu_info), set by the caller */
    char brand[49];         /* the processor's name, "" when unknown */
    unsigned online_cpus;   /* cores online */
    int avx2, avx512f, avx512vl, avx512ifma, adx, bmi2;
    int os_avx, os_avx512;  /* XCR0 enables the YMM / ZMM state */
} hpr_cpu_info;
/* HPR_ERR_INVALID_ARGUMENT for NULL info or a struct_size out of range. */
HPR_API HPR_NODISCARD hpr_status hpr_cpu_info_get(hpr_cpu_info *info);
/* The CPU kernel tiers this library knows ("portable"; x86-64's "adx", "avx2", "avx512", slowest
 * first; AArch64's "neon"): index 0 .. hpr_cpu_tier_count() - 1; NULL past the end. */
HPR_API unsigned hpr_cpu_tier_count(void);
HPR_API const char *hpr_cpu_tier_name(unsigned index);

/* Reads an input as the library's own loaders do, for programs that read their inputs and
 * hand the library buffers: path must be a regular file, or (streams nonzero) also "-"
 * (stdin), a FIFO or a pseudo-file such as /proc's, read to EOF and at most limit bytes (0:
 * 4 GiB). Devices, sockets and directories are refused, and nothing blocks opening a file
 * that is then refused (a FIFO accepted as a stream waits for its writer, as cat does).
 * *data (malloc'd, with one 0 byte after the end; release with free) and *len; an empty
 * input is *len 0, not an error. HPR_ERR_IO with why (why_len bytes; may be NULL) saying
 * what is wrong, to follow the file's name: "is a FIFO, not a regular file", "cannot be
 * opened: No such file or directory", "is longer than the bound of 4 GiB"; or
 * HPR_ERR_OUT_OF_MEMORY; HPR_ERR_INVALID_ARGUMENT for NULL path, data or len. */
HPR_API HPR_NODISCARD hpr_status hpr_input_read(const char *path, int streams, size_t limit, void **data, size_t *len,
                                                char *why, size_t why_len);

/* Fills *cfg with the defaults (all cores, devices "auto", struct_size sizeof(hpr_config));
 * cfg NULL: nothing. */
HPR_API void hpr_config_default(hpr_config *cfg);

/* Creates a context (thread pool and devices). cfg may be NULL for the defaults.
 * Threads: every call on a context is safe from any number of threads at once. The calls of
 * one context run one at a time (a second caller waits until the running call returns: one
 * context owns one thread pool and one set of device queues, so two calls at once would
 * only share them); hpr_ctx_error_detail, hpr_ctx_notice and hpr_ctx_last_report give each
 * thread its own last call on the context, whatever other threads did since. For proofs in
 * parallel, give each thread a context of its own (with its share of the cores as threads):
 * a prover handle serves any number of threads and contexts at once. Only
 * hpr_ctx_destroy must not overlap another call on the same context, and a progress
 * callback must not call into its own context (it runs while the call holds it).
 * The environment knobs (docs/api.md) are read here: one set to a malformed value fails the call
 * with HPR_ERR_INVALID_ARGUMENT ("HPR_CPU='bogus': unknown CPU tier (expected portable,
 * adx, avx2 or avx512)"). Why a call failed: hpr_ctx_error_detail(NULL) on the same thread. */
HPR_API HPR_NODISCARD hpr_status hpr_ctx_create(const hpr_config *cfg, hpr_ctx **out);
HPR_API void hpr_ctx_destroy(hpr_ctx *ctx);
/* Detail of the calling thread's last failed call on this context ("" if it succeeded).
 * Valid until the thread's next call into the library.
 * ctx NULL: why the calling thread's last hpr_ctx_create failed ("" when it succeeded). */
HPR_API const char *hpr_ctx_error_detail(const hpr_ctx *ctx);
/* The context's CPU worker threads (0 for NULL). */
HPR_API unsigned hpr_ctx_threads(const hpr_ctx *ctx);
/* The context's device set: "all", "cpu" or "cl:P.D" as configured, and for "auto" (the
 * default) the one it chose ("all" or "cpu"); "" for NULL. */
HPR_API const char *hpr_ctx_devices(const hpr_ctx *ctx);
/* What "auto" chose and why, e.g. "auto: cpu (the only OpenCL driver is POCL, ...; OpenCL
 * not loaded)"; "" when the context was made with another device set, or NULL. */
HPR_API const char *hpr_ctx_device_choice(const hpr_ctx *ctx);
/* A non-fatal event of the calling thread's last call on this context ("" if none, and for
 * a NULL ctx): an OpenCL device that failed, and that its work was redone on the CPU (the
 * result is still exact). Valid until the thread's next call into the library. */
HPR_API const char *hpr_ctx_notice(const hpr_ctx *ctx);

/* ---- run reports ---- */

#define HPR_REPORT_MAX_DEVICES 8
typedef struct {
    char device[16];              /* "cpu" or "cl:P.D" */
    unsigned tiles, failures;     /* tiles completed; tiles that failed on this device */
    unsigned long long points;    /* points in the completed tiles */
    double busy_s, wait_s;        /* computing (transfers included), waiting for work */
    double points_per_s;          /* points / busy_s */
    int dropped;                  /* failed twice: no more work for the rest of the run */
    char failure[256];            /* the last failure ("" if none) */
} hpr_device_run;

typedef struct {
    size_t struct_size;           /* sizeof(hpr_run_report), set by the caller */
    double seconds;               /* wall time of the call */
    char notes[512];              /* devices left out and why, faults that the others made good */
    unsigned ndevices;            /* the entries of devices filled: at most what the struct holds */
    hpr_device_run devices[HPR_REPORT_MAX_DEVICES];
} hpr_run_report;

/* The report of the calling thread's last call on the context when it was an MSM (devices,
 * tiles, times) or an NTT under
 * "all" or whose device failed. Faults: a device that failed in the call has an entry with
 * failures (its tiles that failed, each redone by the other devices; 0 when it was unusable
 * already and its work went elsewhere untried), dropped (1: it got no more work in the call;
 * a dropped device stays unusable on the context) and failure (the error); its tiles and
 * points count only what it did compute. HPR_ERR_INVALID_ARGUMENT before any MSM, and for a
 * NULL ctx or report. */
HPR_API HPR_NODISCARD hpr_status hpr_ctx_last_report(const hpr_ctx *ctx, hpr_run_report *report);

/* ---- calibration ---- */

/* Measures the MSM throughput of one device ("cpu" with this context's threads, or "cl:P.D")
 * on curve at 2^log_n[i] points (a warm-up, then the median of 3 runs) and stores it in the
 * calibration profile (profile.jsonl in the cache directory: HPR_CACHE_DIR, else
 * $XDG_CACHE_HOME/hyprove, else ~/.cache/hyprove), keyed by the device's identity and driver.
 * points_per_s (count entries, may be NULL) receives the figures. Sizes up to 2^24. */
HPR_API HPR_NODISCARD hpr_status hpr_calibrate(hpr_ctx *ctx, const char *device, hpr_curve curve, const unsigned *log_n,
                                               size_t count, double *points_per_s);

/* The calibrated throughput (points/s) of device on curve at the measured size nearest to
 * 2^log_n, or 0 when the profile has none (and for a NULL ctx or device, or an unknown
 * curve). The hybrid scheduler starts from these. */
HPR_API double hpr_calibrated_speed(hpr_ctx *ctx, const char *device, hpr_curve curve, unsigned log_n);

/* ---- OpenCL devices ---- */

typedef struct {
    size_t struct_size;      /* sizeof(hpr_device_info), set by the caller */
    char id[16];             /* "cl:P.D" */
    char kind[16];           /* "gpu", "cpu", "accelerator" or "other" */
    char name[128], vendor[128], driver[128], platform[128], c_version[64];
    unsigned compute_units, clock_mhz;
    unsigned long long global_mem, local_mem, max_alloc; /* bytes */
    int int64;               /* 64-bit integer support */
    int usable;              /* 0 once the device failed (status says why) */
    char status[512];
    unsigned long long resident_bytes; /* bases kept on the device now (hpr_bases, Groth16 keys) */
    unsigned long long bytes_sent;     /* written to it since opened: MSM and NTT inputs, tables */
} hpr_device_info;

/* Number of OpenCL devices found (0 without OpenCL, hpr_opencl_notice says why; 0 for a NULL
 * ctx). Loads the OpenCL ICD loader on first use. */
HPR_API unsigned hpr_device_count(hpr_ctx *ctx);
HPR_API HPR_NODISCARD hpr_status hpr_device_get_info(hpr_ctx *ctx, unsigned index, hpr_device_info *info);
/* Why no OpenCL device can be used ("" when some are found; "OpenCL is not available" for a
 * NULL ctx). */
HPR_API const char *hpr_opencl_notice(hpr_ctx *ctx);

typedef struct {
    size_t struct_size;  /* sizeof(hpr_device_report), set by the caller */
    int cache_hit;       /* the program came from the binary cache */
    int cache_rebuilt;   /* a cache entry was corrupt or stale and was rebuilt */
    int cache_written;   /* a freshly built binary was stored in the cache */
    double seconds;      /* program load or build time */
    char words[16];      /* the word variant of the kernels: "standard", "int128" or "limb32" */
} hpr_device_report;

/* Builds (or loads) the MSM program of curve on the device and runs its self-test (a field
 * multiplication and a small MSM against the CPU). HPR_ERR_DEVICE with the reason if the
 * device fails; it is then marked unusable for the context's lifetime. */
HPR_API HPR_NODISCARD hpr_status hpr_device_prepare(hpr_ctx *ctx, const char *device, hpr_curve curve,
                                                    hpr_device_report *report);

/* Byte size of one point of (curve, group) in the interchange form; 0 if unsupported. */
HPR_API size_t hpr_point_size(hpr_curve curve, hpr_group group);
#define HPR_SCALAR_SIZE 32

typedef struct {
    size_t struct_size;         /* sizeof(hpr_msm_opts) */
    unsigned window_bits;       /* Pippenger window c, 1..20; 0 = chosen from n */
    unsigned point_chunks;      /* tiles along the points, 1..min(n, 65536); 0 = chosen from n
                                 * and threads */
    unsigned windows_per_tile;  /* windows per tile, 1..the windows of window_bits (of 1-bit
                                 * windows when window_bits is 0); 0 = chosen (CPU only).
                                 * Values out of these ranges are HPR_ERR_INVALID_ARGUMENT,
                                 * refused before anything is allocated. */
    const char *device;         /* "cpu", "cl:P.D", "all"; NULL = the context's default */
} hpr_msm_opts;

/*
 * out = sum_i scalars[i] * points[i], for n points and n scalars in the interchange form
 * (points: n * hpr_point_size bytes; scalars: n * 32 bytes; out: hpr_point_size bytes).
 * Rejects (and names the index in the detail): a scalar >= r, a coordinate >= p, a point off
 * the curve. Points are not checked for subgroup membership (that would cost a scalar
 * multiplication each); hpr_point_check does. n = 0 gives the point at infinity.
 * Scalars 0 and 1 take fast paths. The result is identical for every thread count, tiling
 * and device. G1 and G2 run on every device (an OpenCL device runs G2 with the G1 kernels
 * over Fq2). An OpenCL device that fails is marked unusable and the MSM is redone on the CPU
 * (hpr_ctx_notice names the failure); an unknown device is HPR_ERR_UNKNOWN_DEVICE.
 */
HPR_API HPR_NODISCARD hpr_status hpr_msm(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points,
                                         const void *scalars, size_t n, void *out);
HPR_API HPR_NODISCARD hpr_status hpr_msm_ex(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points,
                                            const void *scalars, size_t n, void *out, const hpr_msm_opts *opts);

/*
 * Bases resident on the devices: a fixed set of n points of (curve, group) for many MSMs.
 * hpr_bases_create copies and validates the points (range and curve, as hpr_msm; the first
 * invalid one is named); each OpenCL device that computes an MSM over them receives them
 * once, checks them once and keeps them, so later MSMs send only scalars (32 bytes a point
 * instead of 96 for BN254 G1). A device keeps at most half its global memory of bases,
 * releasing the least recently used first; a set that does not fit is sent chunk by chunk as
 * hpr_msm does. hpr_device_get_info reports what each device holds. The bases belong to
 * ctx: they serve MSMs on it only, and hpr_bases_destroy releases their host and device
 * copies (destroy them before ctx; after hpr_ctx_destroy only hpr_bases_destroy may be
 * called on them). Same results as hpr_msm_ex over the same points, on every device.
 */
typedef struct hpr_bases hpr_bases;
HPR_API HPR_NODISCARD hpr_status hpr_bases_create(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points,
                                                  size_t n, hpr_bases **out);
HPR_API void hpr_bases_destroy(hpr_bases *bases);
/*
 * Precomputed bases: as hpr_bases_create, and with precompute = f >= 2 the set also keeps
 * 2^(j s) * P for j < f, s = ceil((bits(r) + 2) / f) (BN254: f = 2, 4, 8 give s = 128, 64,
 * 32). Each MSM over the set then cuts every scalar into f signed s-bit slices and runs one
 * MSM of f n points whose windows cover s bits: as many point additions as before, f times
 * fewer bucket reductions and window combinations, the window size chosen per device as for
 * any MSM. It pays where the reductions weigh (GPUs' large windows, small n) and costs f
 * times the points' memory on the host (hpr_bases_bytes) and on each OpenCL device that
 * computes over them (hpr_device_get_info's resident_bytes), about n (f - 1) s point
 * doublings at creation (on the context's threads), and 32 f n bytes of slices during each
 * MSM. Results are the same bits as hpr_msm_ex over the original points. precompute 0 or 1
 * is hpr_bases_create; at most 16; f n must stay below 2^32. Making them reports no progress
 * and cannot be cancelled (BN254 2^16, f = 8: about 2.5 s on two Zen 4 cores).
 */
HPR_API HPR_NODISCARD hpr_status hpr_bases_create_precomputed(hpr_ctx *ctx, hpr_curve curve, hpr_group group,
                                                              const void *points, size_t n, unsigned precompute,
                                                              hpr_bases **out);
/* Number of points in the set (0 for NULL); without its precomputed multiples. */
HPR_API size_t hpr_bases_count(const hpr_bases *bases);
/* The set's precompute factor f (1: none; 0 for NULL). */
HPR_API unsigned hpr_bases_precompute(const hpr_bases *bases);
/* Bytes of points the set keeps on the host, precomputed multiples included (0 for NULL). */
HPR_API size_t hpr_bases_bytes(const hpr_bases *bases);
/* out = sum_i scalars[i] * bases[i] for i < n (n <= hpr_bases_count: the first n bases), as
 * hpr_msm_ex with bases' curve and group; opts may be NULL. */
HPR_API HPR_NODISCARD hpr_status hpr_msm_bases(hpr_ctx *ctx, const hpr_bases *bases, const void *scalars, size_t n,
                                               void *out, const hpr_msm_opts *opts);

/* Checks one point in the interchange form: coordinates < p, on the curve and, for
 * BLS12-381, in the prime-order subgroup. ctx may be NULL (it only receives the detail). */
HPR_API HPR_NODISCARD hpr_status hpr_point_check(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *point);

/*
 * Formats a point in the interchange form as snarkjs JSON writes it: ["x","y","1"] with
 * decimal coordinates, or ["0","1","0"] for infinity. buf receives a NUL-terminated string.
 * G2: [["x.c0","x.c1"],["y.c0","y.c1"],["1","0"]], infinity [["0","0"],["1","0"],["0","0"]].
 * HPR_ERR_INVALID_ARGUMENT if buf is too small (256 bytes suffice for G1, 512 for G2).
 */
HPR_API HPR_NODISCARD hpr_status hpr_point_to_json(hpr_curve curve, hpr_group group, const void *point, char *buf,
                                                   size_t buflen);

/* Parses decimal affine coordinates (as snarkjs JSON writes them) into the interchange form;
 * z must be "1", or "0" for infinity. Checks range and curve membership. G1 only
 * (HPR_ERR_UNSUPPORTED_GROUP for G2). */
HPR_API HPR_NODISCARD hpr_status hpr_point_from_decimal(hpr_curve curve, hpr_group group, const char *x, const char *y,
                                                        const char *z, void *point);

/*
 * Many multiples of one base: out[i] = scalars[i] * base for i < n (not their sum), as
 * interchange bytes (hpr_point_size each; all zero for infinity). For setups and for
 * Pedersen or IPA committers with one fixed generator. base: interchange bytes of a point of
 * the prime-order subgroup (checked: HPR_ERR_COORDINATE_OUT_OF_RANGE, _POINT_NOT_ON_CURVE,
 * _POINT_NOT_IN_SUBGROUP; infinity gives infinity everywhere). scalars: n * 32 bytes,
 * little-endian, each below r (HPR_ERR_SCALAR_OUT_OF_RANGE names the first that is not).
 * Method: a window table of base sized for n (at most a few MiB), one mixed addition per
 * window per scalar in the context's CPU tier (eight scalars per AVX-512 IFMA register on
 * avx512), on the context's threads; the bytes depend on neither the thread count nor the tier.
 */
HPR_API HPR_NODISCARD hpr_status hpr_fixed_base_mul(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *base,
                                                    const void *scalars, size_t n, void *out);

/*
 * Deterministic random MSM inputs for benchmarks and tests: n valid points of the prime-order
 * subgroup (random multiples of the generator, continued by additions in blocks) and n
 * uniform scalars in [0, r). The same seed gives the same bytes on every machine and for
 * every thread count. points: n * hpr_point_size bytes; scalars: n * 32 bytes (either may be
 * NULL to skip it). n at most 2^32 - 1 (as hpr_msm), else HPR_ERR_INVALID_ARGUMENT.
 */
HPR_API HPR_NODISCARD hpr_status hpr_random_msm_inputs(hpr_ctx *ctx, hpr_curve curve, hpr_group group, size_t n,
                                                       unsigned long long seed, void *points, void *scalars);

/* ---- NTT ---- */

typedef enum {
    HPR_FIELD_BN254_FR = 1,
    HPR_FIELD_BLS12_381_FR = 2,
    HPR_FIELD_GOLDILOCKS = 3, /* p = 2^64 - 2^32 + 1 */
    HPR_FIELD_BABYBEAR = 4,   /* p = 2^31 - 2^27 + 1 */
    HPR_FIELD_KOALABEAR = 5   /* p = 2^31 - 2^24 + 1 */
} hpr_field;

/* Input and output orders: natural or bit-reversed (N, R), input first. */
typedef enum { HPR_NTT_NN = 0, HPR_NTT_NR = 1, HPR_NTT_RN = 2, HPR_NTT_RR = 3 } hpr_ntt_order;

typedef struct {
    size_t struct_size;       /* sizeof(hpr_ntt_opts) */
    int inverse;              /* 0: coefficients -> evaluations; 1: evaluations -> coefficients */
    hpr_ntt_order order;
    const char *coset_shift;  /* decimal; evaluations on shift * <w>; NULL = no coset (shift 1) */
    const char *generator;    /* decimal multiplicative generator g (w = g^((p-1)/n)); NULL = the
                               * field's standard one (5, 7, 7, 31, 3). snarkjs uses 5 for
                               * BLS12-381 Fr as well. */
    size_t columns;           /* a batch of columns of one size; 0 or 1 = one */
    int row_major;            /* batch layout: element j of column c at [j * columns + c]
                               * (row-major) or at [c * n + j] (column-major, the default) */
    const char *device;       /* "cpu", "cl:P.D" (the butterflies on that OpenCL device, the
                               * rest on the CPU), "all" (the columns of a batch dealt to every
                               * usable device by the scheduler; one column: the CPU); NULL =
                               * the context's default. A failing device is reported
                               * (hpr_ctx_notice, hpr_ctx_last_report) and its work redone on the
                               * CPU. */
} hpr_ntt_opts;

/* Bytes of one canonical element (little-endian): 32, 32, 8, 4, 4; 0 if unknown. */
HPR_API size_t hpr_field_element_size(hpr_field field);
/* The field's two-adicity: the largest log_n an NTT accepts (28, 32, 32, 27, 24). */
HPR_API unsigned hpr_field_two_adicity(hpr_field field);

/*
 * In-place NTT of size 2^log_n over each column of data (canonical little-endian elements,
 * columns * 2^log_n of them): forward a_k = sum_i c_i (shift w^k)^i, inverse its inverse
 * (scaled by 1/n), w = g^((p-1)/n). opts may be NULL (forward, NN, no coset, one column).
 * Errors: an element >= p (its index), log_n above the two-adicity, a shift of 0 or >= p, a
 * generator whose power is not a primitive root of order n. On error data is unchanged.
 */
HPR_API HPR_NODISCARD hpr_status hpr_ntt(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data,
                                         const hpr_ntt_opts *opts);

/*
 * Low-degree extension: columns polynomials of 2^log_n coefficients each (column-major,
 * natural order, canonical) -> the evaluations of each on shift * <w'> with w' of order
 * rate * 2^log_n (rate 2, 4 or 8), natural order, into out (columns * rate * 2^log_n
 * elements, column after column; in and out must not overlap: HPR_ERR_INVALID_ARGUMENT if
 * they do). shift: decimal, NULL = the generator g (the usual coset for LDE). columns 0
 * means 1. On error out is unchanged.
 */
HPR_API HPR_NODISCARD hpr_status hpr_ntt_lde(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate,
                                             const char *shift, size_t columns, const void *in, void *out);

/* The NTT's calibration, as hpr_calibrate for the MSM: forward NTTs (natural orders) of
 * 2^log_n[i] elements on one device ("cpu" or "cl:P.D"), batches of at least 2^16 elements,
 * a warm-up then the median of 3 runs; elements_per_s (may be NULL) receives the figures,
 * stored in the same profile under the field's name. Under "all", the scheduler deals NTT
 * columns (and four-step's sub-NTTs) from these figures, else it probes. Sizes up to 2^24. */
HPR_API HPR_NODISCARD hpr_status hpr_calibrate_ntt(hpr_ctx *ctx, const char *device, hpr_field field,
                                                   const unsigned *log_n, size_t count, double *elements_per_s);

/* The calibrated NTT throughput (elements/s) of device on field at the measured size nearest
 * to 2^log_n, or 0 when the profile has none (and for a NULL ctx or device). */
HPR_API double hpr_calibrated_ntt_speed(hpr_ctx *ctx, const char *device, hpr_field field, unsigned log_n);

/* ---- Poseidon2 and Merkle commitments ---- */

/*
 * Poseidon2 as Plonky3 (v0.5 and later) computes it with its default constants: KoalaBear
 * widths 16 and 24, BabyBear width 16 (the permutations of p3-koala-bear and p3-baby-bear).
 * A state is `width` canonical field elements (uint32_t below p, not Montgomery).
 */
typedef enum {
    HPR_POSEIDON2_KOALABEAR_16 = 1,
    HPR_POSEIDON2_KOALABEAR_24 = 2,
    HPR_POSEIDON2_BABYBEAR_16 = 3
} hpr_poseidon2;

/* The width of instance (16 or 24); 0 for an unknown instance. */
HPR_API unsigned hpr_poseidon2_width(hpr_poseidon2 instance);

/* count permutations in place: states holds count * width canonical elements, state after
 * state. Runs on the context's CPU tier (every tier gives the same bits), on its pool when
 * count is large. count 0: nothing. Errors (states then unchanged): HPR_ERR_INVALID_ARGUMENT
 * (an unknown instance, states NULL with count > 0, count * width beyond the address space),
 * HPR_ERR_ELEMENT_OUT_OF_RANGE (the detail names the first element >= p: its index, state
 * and position). */
HPR_API HPR_NODISCARD hpr_status hpr_poseidon2_permute(hpr_ctx *ctx, hpr_poseidon2 instance, uint32_t *states,
                                                       size_t count);

/*
 * Merkle commitments of a matrix with Plonky3's layout (MerkleTreeMmcs over
 * PaddingFreeSponge<perm, 16, 8, 8> and TruncatedPermutation<perm, 2, 8, 16>, perm the field's
 * width-16 Poseidon2). A digest is 8 canonical elements. Leaf i = the sponge of row i: state
 * zero; each chunk of up to 8 of the row's elements overwrites state[0..len) and is permuted;
 * the digest is state[0..8) (a row of no elements: 8 zeros). Level 0 = the leaves; node i of
 * level j + 1 = perm(node 2i || node 2i + 1)[0..8); the root is level depth's single node.
 * The authentication path of leaf i: the sibling of each level from the leaves up, node
 * (i >> j) ^ 1 of level j.
 */
typedef struct hpr_merkle_tree hpr_merkle_tree;

typedef struct {
    size_t struct_size; /* sizeof(hpr_commit_opts) */
    const char *shift;  /* decimal coset shift of the LDE domain, nonzero and below p; NULL = 1
                         * (no shift). Rate 1 takes NULL or "1" only. */
    const char *device; /* where the leaves are hashed: "cpu", "all", "cl:P.D"; NULL = the
                         * context's default */
} hpr_commit_opts;

/*
 * Commits a matrix. in: columns columns of 2^log_n canonical elements (4 bytes little-endian
 * each), column after column: the evaluations of each column's polynomial f (degree < n) on
 * <w_n> in natural order (a trace), w_n = g^((p-1)/n) with the field's generator g (3 for
 * KoalaBear, 31 for BabyBear, as hpr_ntt). Rate 2, 4 or 8: the committed matrix is the LDE,
 * rate * 2^log_n rows in bit-reversed order: row i holds every column's
 * f(shift * w'^bitrev(i)), w' of order rate * 2^log_n, bitrev over log2(rate * 2^log_n) bits
 * (at rate 2 with no shift, rows 0..n-1 are the input's rows bit-reversed). Rate 1: no LDE,
 * the matrix is committed as given (row i = element i of every column), so a matrix already
 * in any order can be committed. field: HPR_FIELD_KOALABEAR or HPR_FIELD_BABYBEAR (the hash
 * is that field's width-16 Poseidon2); opts may be NULL.
 * *tree receives the commitment: the whole tree and the committed matrix, kept for
 * hpr_merkle_open. When the matrix does not fit the memory budget (hpr_config.memory_limit)
 * beside the tree, it is computed in blocks of columns and kept in an unlinked temporary
 * file (in TMPDIR, else /tmp) instead: the same root and openings. The tree does not
 * depend on ctx once made (it may outlive it); release it with hpr_merkle_destroy.
 * Devices hash the leaves (the LDE and the levels above the leaves run on the CPU): "cpu" on
 * the pool; "cl:P.D" on that OpenCL device; "all" row ranges dealt by the scheduler to the
 * CPU and every usable OpenCL device (from 4096 rows; fewer on the CPU), with a run report
 * (hpr_ctx_last_report). A device that fails is reported (hpr_ctx_notice, the run report)
 * and its rows are hashed again on the CPU or the other devices. A streamed commitment
 * hashes on the CPU (at rate 1, on the devices as above). The root is the same bits for
 * every device, split and CPU tier.
 * A long call ("commit" in hpr_progress): progress reports and cancellation as above.
 * Errors (*tree then NULL): HPR_ERR_UNSUPPORTED_FIELD (not KoalaBear or BabyBear);
 * HPR_ERR_INVALID_ARGUMENT (in or tree NULL, columns 0, rate not 1, 2, 4 or 8,
 * log2(rate * 2^log_n) above the field's two-adicity (24 KoalaBear, 27 BabyBear), or log_n
 * above 32 at rate 1, a shift that is not a nonzero decimal below p, a shift other than 1 at
 * rate 1); HPR_ERR_ELEMENT_OUT_OF_RANGE (an element >= p: the detail names its column and
 * row); HPR_ERR_UNKNOWN_DEVICE; HPR_ERR_OUT_OF_MEMORY (not even the streamed commitment fits
 * the budget: the detail names the need and the limit); HPR_ERR_IO (the temporary file);
 * HPR_ERR_CANCELLED.
 */
HPR_API HPR_NODISCARD hpr_status hpr_commit(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate,
                                            size_t columns, const void *in, const hpr_commit_opts *opts,
                                            hpr_merkle_tree **tree);

/* The root (8 canonical elements); HPR_ERR_INVALID_ARGUMENT for a NULL tree or root. */
HPR_API HPR_NODISCARD hpr_status hpr_merkle_root(const hpr_merkle_tree *tree, uint32_t root[8]);
/* The committed matrix's rows (leaves) and columns, the tree's depth (log2 rows) and the
 * field; 0 for a NULL tree. */
HPR_API size_t hpr_merkle_rows(const hpr_merkle_tree *tree);
HPR_API size_t hpr_merkle_columns(const hpr_merkle_tree *tree);
HPR_API unsigned hpr_merkle_depth(const hpr_merkle_tree *tree);
HPR_API hpr_field hpr_merkle_field(const hpr_merkle_tree *tree);

/* The opening of leaf row: values (may be NULL: not wanted) receives the columns elements of
 * the committed matrix's row, path (may be NULL) the depth digests of its authentication path
 * (8 elements each, from the leaves up). HPR_ERR_INVALID_ARGUMENT: a NULL tree, row >= rows;
 * HPR_ERR_IO: a streamed tree's file could not be read. A tree is read-only once made: any
 * number of threads may open it at once. */
HPR_API HPR_NODISCARD hpr_status hpr_merkle_open(const hpr_merkle_tree *tree, size_t row, uint32_t *values,
                                                 uint32_t *path);

/* Checks an opening: HPR_OK when the leaf of values (columns elements) climbed with path
 * (depth digests, from the leaves up) at index row gives root, HPR_ERR_PROOF_INVALID when it
 * does not. HPR_ERR_UNSUPPORTED_FIELD (not KoalaBear or BabyBear); HPR_ERR_INVALID_ARGUMENT
 * (root NULL, values NULL with columns > 0, path NULL with depth > 0, depth above 63,
 * row >= 2^depth); HPR_ERR_ELEMENT_OUT_OF_RANGE (an element of values, path or root >= p). */
HPR_API HPR_NODISCARD hpr_status hpr_merkle_verify(hpr_field field, const uint32_t root[8], unsigned depth, size_t row,
                                                   const uint32_t *values, size_t columns, const uint32_t *path);

/* Releases a tree (its memory, its temporary file); NULL: nothing. */
HPR_API void hpr_merkle_destroy(hpr_merkle_tree *tree);

/* ---- Groth16 (snarkjs / circom files) ---- */

typedef struct hpr_groth16_prover hpr_groth16_prover;

/* The phases of one proof, in the order they run. */
typedef enum {
    HPR_G16_WITNESS = 0, /* reading and checking the witness */
    HPR_G16_H,           /* A, B, C evaluations, inverse and coset NTTs, h = A*B - C */
    HPR_G16_MSM_A,       /* G1 over the witness */
    HPR_G16_MSM_B1,      /* G1 over the witness */
    HPR_G16_MSM_B2,      /* G2 over the witness */
    HPR_G16_MSM_C,       /* G1 over the private witness */
    HPR_G16_MSM_H,       /* G1 over h */
    HPR_G16_ASSEMBLE,    /* r, s and the blinding terms */
    HPR_G16_PHASES
} hpr_groth16_phase;

typedef struct {
    size_t struct_size; /* sizeof(hpr_groth16_report), set by the caller */
    double seconds[HPR_G16_PHASES];
    /* per phase, the devices that computed it and their share of its points, e.g.
     * "cpu 62%, cl:0.0 38%" ("" for the phases without points); a device that failed in the
     * phase is named only for the share it did compute (its failure is in faults) */
    char devices[HPR_G16_PHASES][96];
    double total_s;
    /* per phase, the device faults that the other devices made good ("" for none), e.g.
     * "cl:0.0 failed (fault injected by HPR_CL_INJECT_FAULT=cl:0.0); its work was redone
     * elsewhere" (devices says where), or "cl:0.0 unusable (...); its work was done
     * elsewhere" for a device that failed before the phase */
    char faults[HPR_G16_PHASES][160];
    /* each device that failed during the proof, once (in a phase or in its self-test when the
     * proof picked its devices): device, failures (its tiles or tasks that failed, each redone
     * elsewhere), dropped (1: it was given no more work), failure (its first error); the other
     * members are 0; at most what the struct holds. The proof is the same bits either way. */
    unsigned nfailed;
    hpr_device_run failed[HPR_REPORT_MAX_DEVICES];
} hpr_groth16_report;

typedef struct {
    size_t struct_size;                 /* sizeof(hpr_groth16_proof), set by the caller */
    /* where the proving calls put their report (times, devices and faults per phase): NULL for
     * none, else the caller's hpr_groth16_report with its struct_size set; the caller keeps it */
    hpr_groth16_report *report;
    hpr_curve curve;
    unsigned char a[96], b[192], c[96]; /* pi_a (G1), pi_b (G2), pi_c (G1) in the interchange form */
    unsigned n_public;
    unsigned char *public_signals;      /* n_public canonical 32-byte scalars (w[1..n_public]) */
} hpr_groth16_proof;

/* Opens a Groth16 .zkey (memory-mapped, validated strictly: every violation is
 * HPR_ERR_FORMAT or HPR_ERR_UNSUPPORTED_CURVE with the detail on ctx). The key's fixed
 * points (alpha1, beta1, delta1 in G1; beta2, gamma2, delta2 in G2) are checked too: one at
 * infinity is HPR_ERR_FORMAT, one with a coordinate >= p, off the curve or outside the
 * prime-order subgroup is HPR_ERR_COORDINATE_OUT_OF_RANGE, HPR_ERR_POINT_NOT_ON_CURVE or
 * HPR_ERR_POINT_NOT_IN_SUBGROUP, the detail naming the point. The prover is
 * read-only once made: many proofs, from several threads at once (one context each).
 * zkey_path must be a regular file (it is mapped): anything else is refused before it is
 * opened, with HPR_ERR_IO and a detail saying what it is ("zkey 'k' is a FIFO, not a regular
 * file", "is a directory", "is a character device", "is not a regular file of known size"
 * for /proc-style files); an empty file is HPR_ERR_FORMAT ("is empty"). */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_prover_create(hpr_ctx *ctx, const char *zkey_path,
                                                           hpr_groth16_prover **out);
/* The same from the bytes of a .zkey: the prover keeps its own copy (len bytes of memory), so
 * the caller may release zkey as soon as this returns. */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_prover_create_from_buffer(hpr_ctx *ctx, const void *zkey, size_t len,
                                                                       hpr_groth16_prover **out);
HPR_API void hpr_groth16_prover_destroy(hpr_groth16_prover *prover);
/*
 * Precomputed sections (see hpr_bases_create_precomputed): with precompute = f >= 2 the
 * prover keeps its five MSM sections (A, B1, B2, C, H) with their multiples 2^(j s) P, and
 * each proof over it writes its scalars as f slices and runs every MSM over f times the
 * points with f times fewer bucket reductions. The proof is the same bits. The sections are
 * validated here (a bad point is named by section and index, as an MSM names it) and made on
 * ctx's threads (about n (f - 1) s doublings a section; not cancellable). They cost f times
 * the sections' memory, on the host (hpr_groth16_prover_precomputed) and on each OpenCL
 * device that computes a proof's MSM, and 32 f (n_vars + domain_size) bytes of slices per
 * proof (counted by the memory budget). 0 or 1 drops them; at most 16. Call it before the
 * prover's first proof (after it: HPR_ERR_INVALID_ARGUMENT), not while another thread uses
 * the prover; afterwards the prover is read-only again. A cluster's proofs
 * (hpr_cluster_groth16_*) read the plain sections. Where it pays: on the CPU tiers f = 2
 * (f > 2 streams more points than it saves); larger f on GPUs.
 */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_prover_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover,
                                                               unsigned precompute);
/* The prover's factor (1: none; 0 for NULL) and, where bytes is not NULL, the bytes its
 * precomputed sections hold on the host (0 without). */
HPR_API unsigned hpr_groth16_prover_precomputed(const hpr_groth16_prover *prover, size_t *bytes);
/* The zkey's curve; 0 for a NULL prover. */
HPR_API hpr_curve hpr_groth16_prover_curve(const hpr_groth16_prover *prover);
/* Constraints domain size, witness length (with the leading 1) and public signals (zeros for a
 * NULL prover). */
HPR_API void hpr_groth16_prover_sizes(const hpr_groth16_prover *prover, size_t *domain_size, size_t *n_vars,
                              size_t *n_public);

/* The curve and counts of a .zkey from its container and Groth16 header alone (the point
 * sections are not read: a cheap size query); NULL outputs are skipped. */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_zkey_sizes(hpr_ctx *ctx, const void *zkey, size_t len, hpr_curve *curve,
                                                        size_t *domain_size, size_t *n_vars, size_t *n_public);

/*
 * A proof from a .wtns file's bytes (or its path): the witness must be of the zkey's prime
 * (else HPR_ERR_FORMAT) and length (else HPR_ERR_WITNESS_LENGTH), and its w[0] must be 1
 * (else HPR_ERR_FORMAT, "witness w[0] is X, must be 1"). A witness that does not satisfy the
 * circuit's constraints is not detected here (that would cost the constraint system's
 * evaluation): its proof does not verify, which hpr_groth16_verify tells (the CLI's
 * `groth16 prove --verify`). r and s come from the OS's CSPRNG (getrandom). Devices follow the context's
 * default: "cpu" everything on the CPU; "cl:P.D" the NTTs and the five MSMs (G1 and G2) on
 * that device; "all" the proof as a task graph when an OpenCL device can join (h on the CPU,
 * each MSM on whichever device is free and would finish it first), else the CPU. The G1 and
 * G2 bases stay on the OpenCL devices of ctx from the first proof until ctx proves with
 * another prover or is destroyed (see hpr_bases_create). A failing
 * OpenCL device is reported in hpr_ctx_notice and its work redone on the CPU; the proof is the
 * same either way. The caller sets proof->struct_size and proof->report (NULL: no report)
 * before the call; the rest is written. Release with hpr_groth16_proof_clear.
 * Memory: the zkey's pages are resident only while a phase reads them, and after each phase
 * the library calls glibc's malloc_trim(0), which hands the free pages of the whole process's
 * heap back to the system (glibc keeps freed blocks that are not at its heap's top); only
 * where glibc's allocator is the process's malloc (not under jemalloc, tcmalloc or a
 * sanitizer, where glibc's malloc_trim would corrupt glibc's unused arenas).
 */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_prove(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *wtns,
                                                   size_t wtns_len, hpr_groth16_proof *proof);
/* wtns_path: a regular file, refused as hpr_groth16_prover_create refuses the zkey (never
 * blocking on a FIFO); read a stream yourself and call hpr_groth16_prove. */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_prove_file(hpr_ctx *ctx, const hpr_groth16_prover *prover,
                                                        const char *wtns_path, hpr_groth16_proof *proof);
/* Frees what a proof holds (its public signals) and leaves the struct empty for reuse (its
 * struct_size and report pointer kept); the struct itself is the caller's. NULL: nothing. */
HPR_API void hpr_groth16_proof_clear(hpr_groth16_proof *proof);
/* The name of hpr_groth16_proof_clear in 0.1, kept for one release. */
HPR_API void hpr_groth16_proof_free(hpr_groth16_proof *proof) HPR_DEPRECATED("use hpr_groth16_proof_clear");

/*
 * Verification, snarkjs's check e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta) with the
 * optimal ate pairing of the curve: HPR_OK when the proof verifies, HPR_ERR_PROOF_INVALID when
 * it does not. Every point is checked first (range, curve, prime-order subgroup: a point off
 * them is HPR_ERR_COORDINATE_OUT_OF_RANGE, HPR_ERR_POINT_NOT_ON_CURVE or
 * HPR_ERR_POINT_NOT_IN_SUBGROUP) and every public signal (below r, else
 * HPR_ERR_SCALAR_OUT_OF_RANGE). CPU only; a few milliseconds (BN254) to tens of
 * milliseconds (BLS12-381).
 * hpr_groth16_verify: a proof against its prover's zkey (the key's verification points).
 * hpr_groth16_verify_json: snarkjs's verification_key.json, public.json and proof.json texts
 * (not NUL-terminated: their lengths are given); malformed JSON or a field that is missing or
 * of the wrong form is HPR_ERR_FORMAT naming the file and field.
 */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_verify(hpr_ctx *ctx, const hpr_groth16_prover *prover,
                                                    const hpr_groth16_proof *proof);
HPR_API HPR_NODISCARD hpr_status hpr_groth16_verify_json(hpr_ctx *ctx, const char *vk_json, size_t vk_len,
                                                         const char *public_json, size_t public_len,
                                                         const char *proof_json, size_t proof_len);

/* proof.json and public.json exactly as snarkjs writes them (one-space indentation, no final
 * newline; curve "bn128" or "bls12381"; public.json "[\n]" when there are no public signals).
 * *proof_json and *public_json are malloc'd; release with free. HPR_ERR_INVALID_ARGUMENT (the
 * outputs set to NULL where given) for a NULL proof or output, an unknown curve, a point that
 * does not decode, or public_signals NULL while n_public > 0. */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_proof_json(const hpr_groth16_proof *proof, char **proof_json,
                                                        char **public_json);

/* The peak working memory one proof with prover is estimated to need on ctx (its devices and
 * threads), in bytes: what the memory budget checks before the proof (hpr_config.memory_limit;
 * docs/memory.md): the witness (from_file: also its file's bytes, until parsed), h, the
 * largest phase with the zkey section it reads (the key's pages are resident only during the
 * phase that reads them). The process's own code and libraries are not counted. */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_prover_memory(hpr_ctx *ctx, const hpr_groth16_prover *prover,
                                                           int from_file, size_t *bytes);

/* snarkjs's verification_key.json of the prover's zkey, byte for byte what `snarkjs zkey export
 * verificationkey` writes (vk_alphabeta_12 computed by this library's pairing). *vk_json is
 * malloc'd; release with free. */
HPR_API HPR_NODISCARD hpr_status hpr_groth16_verification_key_json(hpr_ctx *ctx, const hpr_groth16_prover *prover,
                                                                   char **vk_json);

/*
 * ---- A development setup: for tests and benchmarks, NEVER for production ----
 *
 * hpr_groth16_setup reads a circom .r1cs (either curve) and writes a Groth16 .zkey in
 * snarkjs's layout (every section snarkjs's and rapidsnark's provers read; section 10 an empty
 * transcript) through write_zkey, and when vk_json is not NULL returns the verification key as
 * `snarkjs zkey export verificationkey` writes it (malloc'd; release with free). The toxic
 * waste (tau, alpha, beta, delta; gamma is the G2 generator, as in snarkjs) is drawn in this
 * process from getrandom, or from seed (any text: the same text gives the same bytes) and
 * forgotten at return; whoever ran the setup could forge proofs for the key. So the call is
 * refused (HPR_ERR_INVALID_ARGUMENT) unless flags has HPR_SETUP_INSECURE_DEV. A malformed
 * .r1cs is HPR_ERR_FORMAT naming the section and constraint; a prime other than BN254's or
 * BLS12-381's scalar field HPR_ERR_UNSUPPORTED_CURVE. write_zkey returns 0, or non-zero to stop
 * (HPR_ERR_IO); it receives the file in order, in pieces. Multiples of the generators are made
 * by hpr_fixed_base_mul's method on the context's threads. Memory: 32 (n + 3 nWires) bytes
 * plus a few MiB, n the domain.
 */
#define HPR_SETUP_INSECURE_DEV 1u
typedef int (*hpr_write_fn)(void *user, const void *bytes, size_t len);
HPR_API HPR_NODISCARD hpr_status hpr_groth16_setup(hpr_ctx *ctx, const char *r1cs_path, unsigned flags,
                                                   const char *seed, hpr_write_fn write_zkey, void *user,
                                                   char **vk_json);

/* ---- Several processes: one call shared by the ranks of a job (Open MPI, or any transport) ----
 *
 * A cluster is the processes (ranks 0..size-1) of one job, each with its own context and
 * devices. The calls below are collective: every rank makes the same calls in the same order
 * (a rank that calls another one fails the job with HPR_ERR_RANK), and rank 0 gets the result.
 * Rank 0 deals the work to the ranks by their throughput (calibrated where the profile has a
 * figure, else measured by a first probe) and rebalances as ranks finish: a rank asks for its
 * next tile when it is done, as a device does under the hybrid scheduler (docs/cluster.md, "Several
 * machines"). Results are added on rank 0 in a fixed order, so every rank count and split
 * gives the same bits as one process. Every message goes between rank 0 and another rank.
 *
 * The transport is the caller's (the CLI's is Open MPI, host/cli/cli_mpi.c):
 *   send  delivers len bytes to rank `to`, in order per pair of ranks; 0 on success;
 *   poll  if a message from any rank is waiting, receives it (*data malloc'd: the library
 *         frees it) and returns 1; 0 when none is waiting; -1 when the transport failed.
 * The library waits by polling with short sleeps, so a waiting rank costs no CPU. It calls
 * send and poll from one thread at a time, but during a call rank 0 calls them from a thread
 * of its own (with Open MPI: MPI_Init_thread with MPI_THREAD_SERIALIZED).
 * At most HPR_CLUSTER_MAX_RANKS ranks; a cluster of one rank runs the call locally.
 * Errors: an input refused on any rank fails the call on every rank with that rank's status
 * and detail ("rank 2: ..."); inputs that must be equal on every rank (points, scalars, the
 * zkey) are compared by digest first, and a difference is HPR_ERR_INVALID_ARGUMENT naming the
 * rank; a rank that fails a tile for another reason (memory, a device) has the tile redone by
 * another rank and is dropped after SCHED_MAX_FAILURES (2) failures; a failing transport is
 * HPR_ERR_RANK. A rank whose process dies ends an Open MPI job (MPI's default).
 */
#define HPR_CLUSTER_MAX_RANKS 16

typedef struct {
    size_t struct_size; /* sizeof(hpr_cluster) */
    int rank, size;
    void *user;
    int (*send)(void *user, int to, const void *data, size_t len);
    int (*poll)(void *user, int *from, void **data, size_t *len);
} hpr_cluster;

/* What one cluster call did (filled on rank 0; other ranks get ranks and seconds). */
typedef struct {
    size_t struct_size;                       /* sizeof(hpr_cluster_report), set by the caller */
    unsigned ranks;
    unsigned tiles[HPR_CLUSTER_MAX_RANKS];    /* tiles each rank computed */
    double share[HPR_CLUSTER_MAX_RANKS];      /* its part of the work, 0..1 */
    double busy_s[HPR_CLUSTER_MAX_RANKS];     /* seconds each rank spent on its tiles */
    unsigned failures[HPR_CLUSTER_MAX_RANKS]; /* tiles a rank failed (redone elsewhere) */
    int dropped[HPR_CLUSTER_MAX_RANKS];
    uint64_t bytes_sent;                      /* all ranks' messages of the call */
    uint64_t messages;
    double seconds;
} hpr_cluster_report;

/* Every rank's status (HPR_OK or an error of its own, with detail: NULL for the context's
 * detail) joined: HPR_OK on every rank when all are HPR_OK, else on every rank the lowest
 * failing rank's status with the detail "rank R: <its detail>". Use it after each rank has
 * read its inputs, so that one rank's bad file ends the job with one error. */
HPR_API HPR_NODISCARD hpr_status hpr_cluster_agree(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_status status,
                                                   const char *detail);

/* hpr_msm_ex across the ranks: each passes the same points and scalars (compared by digest;
 * every rank reads them, none are sent), out is written on rank 0. The window grid of the MSM
 * (windows x blocks of points, host/msm/msm_hybrid.c) is dealt to the ranks; each runs its tiles
 * on its own devices (opts->device, or the context's). report may be NULL. */
HPR_API HPR_NODISCARD hpr_status hpr_cluster_msm(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_curve curve,
                                                 hpr_group group, const void *points, const void *scalars, size_t n,
                                                 void *out, const hpr_msm_opts *opts, hpr_cluster_report *report);

/* hpr_ntt across the ranks, its columns dealt to them: data is rank 0's (the other ranks pass
 * NULL); rank 0 sends each rank the columns of its tiles and receives them transformed. opts
 * must be the same on every rank. */
HPR_API HPR_NODISCARD hpr_status hpr_cluster_ntt(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_field field,
                                                 unsigned log_n, void *data, const hpr_ntt_opts *opts,
                                                 hpr_cluster_report *report);

/* hpr_groth16_prove across the ranks: each rank holds a prover of the same zkey (compared by
 * digest; mapped by each rank, never sent), the witness is rank 0's (others pass NULL, 0) and
 * is sent to the others; h is computed on every rank, and the five MSMs' window grids are
 * dealt to the ranks. The proof is written on rank 0 (others get it zeroed). */
HPR_API HPR_NODISCARD hpr_status hpr_cluster_groth16_prove(hpr_ctx *ctx, const hpr_cluster *cluster,
                                                           const hpr_groth16_prover *prover, const void *wtns,
                                                           size_t wtns_len, hpr_groth16_proof *proof,
                                                           hpr_cluster_report *report);

/* Many proofs across the ranks (throughput): rank 0 reads witness i with read_witness (data
 * malloc'd, freed by the library; an error is reported for that witness with why) and sends
 * it to the rank that asks next; that rank proves it alone, and rank 0 hands the outcome to
 * write_proof: HPR_OK and the proof, or the witness's error and its detail (the rank that
 * proved or refused it in rank). A rank that fails a proof for a reason other than its witness
 * (memory, transport) has the witness proved by another rank. Both callbacks run on rank 0
 * only, one at a time, in no fixed order of index. write_proof runs on the calling thread and
 * may use ctx (to verify the proof, say); read_witness may run on a thread of the library
 * while the call holds ctx, so it must not call the library with ctx (another context is
 * fine). Returns HPR_OK when the batch ran (each
 * witness's outcome went to write_proof; *failed, if not NULL, counts the errors), else the
 * error that stopped it. */
typedef hpr_status (*hpr_witness_reader)(void *user, size_t index, void **data, size_t *len, char *why,
                                         size_t why_len);
typedef hpr_status (*hpr_proof_writer)(void *user, size_t index, hpr_status status, const char *detail,
                                       const hpr_groth16_proof *proof, int rank);
HPR_API HPR_NODISCARD hpr_status hpr_cluster_groth16_prove_batch(hpr_ctx *ctx, const hpr_cluster *cluster,
                                                                 const hpr_groth16_prover *prover, size_t count,
                                                                 hpr_witness_reader read_witness,
                                                                 hpr_proof_writer write_proof, void *user,
                                                                 size_t *failed, hpr_cluster_report *report);

#ifdef __cplusplus
}
#endif

#endif
