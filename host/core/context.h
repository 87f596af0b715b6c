/*
 * context.h: the context behind the public hpr_ctx handle, and the per-call helpers every
 * entry point uses (the lowest layer of host/: it calls nothing above the runtime).
 *
 * A call's state lives in the context: detail (why the call failed), notice (a device failed
 * and the CPU made good), the run report. ctx_call_begin clears all three once per public
 * call; nothing else resets them by hand.
 *
 * Concurrency: every public call that takes a context runs between ctx_enter and ctx_leave
 * (host/api/ alone calls them), which hold the context's call lock. The lock is not
 * recursive: inside the library an engine calls another engine's entry, never an hpr_
 * function. The one public call that may nest is one made from a callback that the API
 * documents as allowed to use the context (hpr_cluster_groth16_prove_batch's write_proof),
 * between ctx_callback_begin and ctx_callback_end; any other nesting on the holding thread is
 * an invariant failure in the checked builds. So calls on one context from several threads run one at a time, and
 * the caches the context owns (NTT twiddles, OpenCL programs and resident bases, the
 * progress state) are only touched by the thread that holds the lock. ctx_leave copies the
 * call's detail, notice and report into a per-thread record, so each thread reads its own
 * last call's results (hpr_ctx_error_detail and friends), whatever other threads did since.
 */
#ifndef HOST_CONTEXT_H
#define HOST_CONTEXT_H

#include "hyprove.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "host/core/progress.h"
#include "runtime/base/cpu_features.h"
#include "runtime/base/rt_check.h"
#include "runtime/base/rt_pool.h"
#include "runtime/opencl/cl_device.h"
#include "runtime/sched/ranks.h"
#include "runtime/sched/sched.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hyprove assumes a little-endian host: structs of 64-bit limbs are the interchange bytes"
#endif

typedef struct ntt_twiddle_cache ntt_twiddle_cache; /* host/ntt/ntt_twiddles.c */

/* The environment knobs, read once when a context is created (host/core/knobs.c). */
typedef struct {
    char cpu_tier[16];         /* HPR_CPU: the CPU kernel tier forced ("" none) */
    int ntt_four_step;         /* HPR_NTT_FOUR_STEP=1: one large NTT runs four-step under "all" */
    int g16_h_device;          /* HPR_G16_H_DEVICE: 0 h and the H MSM never together on a device, 1 also on
                                * CPU devices in the task graph, -1 (unset) on GPUs there (host/groth16/groth16_graph.c) */
    char sched_fault[64];      /* HPR_SCHED_INJECT_FAULT=cl:P.D@K: that device's K-th tile fails */
    char sched_tiles[64];      /* HPR_SCHED_TILES=min,probe,blocks,c: the MSM grid forced (tests) */
    int sched_every_device;    /* HPR_SCHED_EVERY_DEVICE=K: every device gets K tiles (tests) */
    int sched_trace;           /* HPR_SCHED_TRACE: tiles printed on stderr */
    char max_memory[32];       /* HPR_MAX_MEMORY: the memory limit when hpr_config has none */
    cl_options cl;             /* HPR_OPENCL_LIBRARY, HPR_CL_WORDS, HPR_CL_INJECT_FAULT,
                                * HPR_CL_MAX_ALLOC, HPR_CACHE_DIR (else XDG_CACHE_HOME, HOME) */
} ctx_knobs;

struct hpr_ctx {
    rt_pool *pool;
    unsigned threads;
    rt_cpu_tier cpu_tier;
    char device[16];  /* default device: "cpu", "all" or "cl:P.D" ("auto" resolved to "all" or "cpu") */
    int device_auto;  /* made with "auto": OpenCL CPU devices (POCL) join only where calibrated to help */
    char device_choice[200]; /* what "auto" chose and why ("" otherwise): host/core/device_registry.c */
    cl_runtime *cl;   /* opened on first need; NULL before */
    ctx_knobs knobs;
    char detail[CL_DETAIL_LEN];
    char notice[CL_DETAIL_LEN];
    hpr_run_report report;
    int have_report;
    ntt_twiddle_cache *ntt_cache; /* NULL until the first NTT */
    hpr_bases *bases;             /* the live bases made with this context (host/msm/resident.h) */
    uint64_t g16_owner;           /* the prover whose bases the devices hold (host/groth16/groth16_prove.c) */
    progress_state progress;      /* the running call's progress and cancellation (host/core/progress.h) */
    struct { size_t limit, held; int from_env, in_order; } mem; /* the memory budget (host/core/memory_budget.h) */
    pthread_mutex_t call_lock;    /* held from the outermost ctx_enter to its ctx_leave (host/api/) */
    _Atomic uintptr_t call_owner; /* the holding thread's tag (call.c), 0 when free */
    unsigned call_depth;          /* public calls on the holding thread: 1, more inside a callback */
    unsigned in_callback;         /* ctx_callback_begin's depth: nesting allowed while > 0 */
    uint64_t serial;              /* unique among the process's contexts, never reused */
    uint64_t calls_done;          /* outermost calls completed: tells a thread whether its record is the latest */
    ranks_link *cluster;          /* the link of the cluster calls (host/cluster/cluster.c): kept between calls, since a
                                   * faster rank's next call may send before this one has ended */
    /* host/api/cluster.c: a cluster call's argument that this rank refused before the call
     * (its report's struct_size), for the call to agree on with the other ranks (which would
     * otherwise wait for this one); HPR_OK: none */
    hpr_status cluster_refused;
    char cluster_refused_why[200];
};

/* Fills k from the environment (host/core/knobs.c). */
void knobs_read(ctx_knobs *k);
/* Every knob that is set (not empty) well-formed, else HPR_ERR_INVALID_ARGUMENT with the
 * create detail "HPR_CL_WORDS='x': expected standard, int128, limb32 or ptx" (HPR_CPU is the CPU
 * tier's to check: a config's tier wins over it). */
RT_MUST_CHECK hpr_status knobs_check(void);
/* The calling thread's detail of its last failed hpr_ctx_create, read through
 * hpr_ctx_error_detail(NULL): set by ctx_create_fail (returns status), cleared when
 * hpr_ctx_create begins. */
hpr_status ctx_create_fail(hpr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void ctx_create_clear(void);
const char *ctx_create_detail(void);

/* Takes ctx's call lock for a public call (waits while another thread's call runs); ctx may
 * be NULL (nothing to take: the call then fails on its own argument check). On the thread
 * that holds it already, only inside ctx_callback_begin/end: the call nests. */
void ctx_enter(hpr_ctx *ctx);
/* Around a caller's callback that the API allows to call the library with ctx (on the thread
 * that holds ctx): public calls made inside nest instead of waiting for the lock. */
void ctx_callback_begin(hpr_ctx *ctx);
void ctx_callback_end(hpr_ctx *ctx);
/* Ends the public call begun by ctx_enter: the outermost call stores its detail, notice and
 * report in the calling thread's record; then the lock is released. Returns st. */
hpr_status ctx_leave(hpr_ctx *ctx, hpr_status st);
/* Sets up and tears down the call lock of a new context (0, or an errno value). */
int ctx_lock_init(hpr_ctx *ctx);
void ctx_lock_destroy(hpr_ctx *ctx);
/* The calling thread's view of ctx's last call (the lock taken inside): its own last call's
 * results when another thread's call has completed since, else the context's current ones,
 * copied into the thread's record. Valid until the thread's next call on any context. */
const char *ctx_result_detail(const hpr_ctx *ctx);
const char *ctx_result_notice(const hpr_ctx *ctx);
/* The report (1), or 0 when the call had none. */
int ctx_result_report(const hpr_ctx *ctx, hpr_run_report *report);

/* Starts a public call: detail, notice and report cleared. */
void ctx_call_begin(hpr_ctx *ctx);

/* Records a printf-style detail on ctx (if not NULL) and returns status unchanged. */
RT_MUST_CHECK hpr_status ctx_fail(hpr_ctx *ctx, hpr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Sets the notice: "<what failed>; the <op> was computed on the CPU instead" (op: "MSM",
 * "NTT") from the detail, which is cleared (the call itself succeeds). */
void ctx_notice_cpu_redid(hpr_ctx *ctx, const char *op);

/* Marks dev unusable for the rest of the context's life, with the reason. */
void ctx_device_failed(cl_dev *dev, const char *why);

/* ctx_device_failed, then HPR_ERR_DEVICE with the detail "<id>: <why>". */
RT_MUST_CHECK hpr_status ctx_device_error(hpr_ctx *ctx, cl_dev *dev, const char *why);

/* Appends "<device>: <text>" (text cut at 400 characters) to the run report's notes, and
 * note_append to a notes buffer of len bytes; with device NULL, note_append joins text alone
 * (cut at 200 characters; nothing for an empty text), as a proof joins its phases' notices.
 * Notes are separated by "; "; a full buffer takes no more. */
void report_note(hpr_ctx *ctx, const char *device, const char *text);
void note_append(char *notes, size_t len, const char *device, const char *text);

/* Starts a one-device report for device name. */
void report_single(hpr_ctx *ctx, const char *device, size_t n, double seconds);

/* The run report of a scheduled job: per device (devs[d] NULL for the CPU) its tiles, items
 * as points (items * points_per_item), times and failures; a device dropped by the scheduler
 * is marked failed. */
void report_fill(hpr_ctx *ctx, cl_dev *const *devs, unsigned ndev, const sched_device_report *reps,
                 double points_per_item, double seconds);

/* Device faults in the run report. report_device_fault records that device failed in this
 * call (failed: attempts that failed now; 0 when it was unusable already and its work went
 * elsewhere untried) and that the other devices did its work: its entry (added when the report
 * has none; a report begun if there is none) counts the failures, is marked dropped and
 * keeps the first error (why, without a leading "<device>: "); the notice names the device.
 * report_single and report_fill keep the fault entries recorded earlier in the call. */
void report_device_fault(hpr_ctx *ctx, const char *device, unsigned failed, const char *why);
/* failure without a leading "<device>: " (the scheduler's tiles name their device). */
const char *fault_text(const char *failure, const char *device);

/* HPR_SCHED_INJECT_FAULT (ctx->knobs.sched_fault) for tests of fault handling: 1 when it
 * fails device's k-th unit of work (1-based): "cl:P.D" fails every unit, "cl:P.D@K" the
 * K-th, "cl:P.D@rand:SEED:P" each unit with probability P (0..1), drawn from SEED and a
 * process-wide count of draws, so that faults land on other units in every call (soak runs:
 * bench/soak.sh). */
int ctx_sched_fault(const hpr_ctx *ctx, const char *device, unsigned k);

/* The scheduler's tiling knobs of ctx (every_device, trace) on top of the given sizes. */
sched_tiling ctx_tiling(const hpr_ctx *ctx, size_t min_tile, size_t probe_tile, size_t align);

#endif
