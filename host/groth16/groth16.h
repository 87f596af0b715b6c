/*
 * groth16.h: the Groth16 prover's internals, shared by its files (each calls only the ones
 * below it):
 *   groth16_prove.c   the proof: witness, r and s, the choice between the phases in order and
 *                     the task graph, the blinding (hpr_groth16_prove*, g16_prove_values);
 *   groth16_graph.c   the proof's work as one task graph over the CPU and OpenCL devices;
 *   groth16_work.c    the work items both paths run (h, one MSM), the phases in order, and
 *                     the phases' clock and notices;
 *   groth16_prover.c  the prover handle over a mapped .zkey;
 *   groth16_json.c    the proof's snarkjs JSON;
 * below them groth16_h.c (the H scalars), zkey.c (the readers), the MSM and the NTT.
 * Tests reach g16_prove_values: the proof with chosen r and s (r = s = 0 reproduces the
 * fixtures' proof_r0s0.json). Internal to the library: users get r and s from the OS's CSPRNG
 * only.
 */
#ifndef HOST_GROTH16_H
#define HOST_GROTH16_H

#include "kernels_cpu/msm_cpu.h"
#include "host/groth16/zkey.h"

/* ---- host/groth16/groth16_prover.c ---- */

/* The parsed key a prover holds (valid while the prover lives). */
const zkey_file *g16_prover_zkey(const hpr_groth16_prover *prover);
/* The digest (ranks_digest) of the prover's whole zkey, by which a cluster's ranks check that
 * they map the same key: computed at the first call (27 MB at 2^16: about 8 ms) and kept. */
uint64_t g16_prover_digest(const hpr_groth16_prover *prover);
/* Which MSM sections of the key were validated (bit t: work.msm[t]'s points), and marking
 * one after an MSM over it succeeded: later MSMs over it skip the check (msm_points.validated). */
unsigned g16_prover_validated(const hpr_groth16_prover *prover);
/* MSM t's points (n of affine_size bytes: work.msm[t]'s) at infinity, bit i of word i / 64,
 * scanned at the first call and kept with the prover (a cluster's window sizes count the
 * finite points without reading the whole key each proof); NULL without memory. */
const uint64_t *g16_prover_infinity(const hpr_groth16_prover *prover, int t, const unsigned char *points, size_t n,
                                    size_t affine_size);
void g16_prover_set_validated(const hpr_groth16_prover *prover, int t);
/* The prover's first resident key: the owner of its point sets on the devices; the MSM of
 * phase p keys its points with owner + 1 + (p - HPR_G16_MSM_A). */
uint64_t g16_prover_key(const hpr_groth16_prover *prover);

enum { G16_MSMS = 5 }; /* A, B1, B2, C, H: msm[phase - HPR_G16_MSM_A] */

/* The prover's precomputed sections (hpr_groth16_prover_precompute; host/msm/bases.c has the
 * method): f > 1, section t's point i's multiples 2^(j s) P_i at points[t][i * f + j], kept on
 * the devices under key + t (owner: g16_prover_key), the MSMs run with ops[group - 1]. */
typedef struct {
    unsigned f, s;
    unsigned char *points[G16_MSMS];
    msm_curve_ops ops[2]; /* G1, G2 with scalar_bits s - 1 */
    uint64_t key;
} g16_precomputed;

/* The prover's precomputed sections, or NULL without. Marks the prover as used: from then on
 * hpr_groth16_prover_precompute refuses (a proof may be reading them). */
const g16_precomputed *g16_prover_precomputed(const hpr_groth16_prover *prover);

/* ---- host/groth16/groth16_work.c ---- */

/* One MSM of the proof: the phase it is (HPR_G16_MSM_A .. HPR_G16_MSM_H), its group, inputs
 * and output (interchange form). */
typedef struct {
    hpr_groth16_phase phase;
    hpr_group group;
    const unsigned char *points, *scalars;
    size_t n;
    unsigned char *out;
    uint64_t key, owner; /* the points' key on the devices (the prover's; cl_resident.c) */
    int validated;       /* the points were validated by an earlier proof's MSM */
    /* NULL, or over precomputed points: points holds n / f sections' points f times each,
     * scalars the f n slices (bases_slice), and the MSM runs with this table (s-bit scalars) */
    const msm_curve_ops *sliced;
} g16_msm;

/* The tasks of one proof: t < G16_MSMS the MSM msm[t], G16_TASK_H the h scalars. */
enum { G16_TASK_H = G16_MSMS, G16_TASKS };

/* The work of one proof before the blinding: the h scalars (into h) and the five MSMs. */
typedef struct {
    const hpr_groth16_prover *prover; /* marks the sections its MSMs validated */
    const zkey_file *zk;
    const unsigned char *w;
    unsigned char *h;
    g16_msm msm[G16_MSMS];
    /* over precomputed sections (pre not NULL): w's slices (A, B1, B2, C), and h's, which the
     * h task fills after h */
    const g16_precomputed *pre;
    unsigned char *w_slices, *h_slices;
} g16_work;

/* ---- host/groth16/groth16_h_device.c ---- */

/* Whether h's three columns (and their copies) fit on dev for g16_h_msm_on_device. */
int g16_h_device_fits(const zkey_file *zk, const cl_dev *dev);

/* h from the evaluations abc (g16_h_evaluations; not changed) and the H MSM m (not over
 * precomputed sections) into m->out, both on dev, h never leaving it; *msm_seconds the MSM's
 * share of the time. Adds the NTTs' and the MSM's progress units (not g16_h_extra_units: the
 * caller's). For a device's thread: the
 * context's detail is not written. Else HPR_ERR_DEVICE with the device's detail in why
 * (CL_DETAIL_LEN; nothing marked: the caller decides), HPR_ERR_POINT_NOT_ON_CURVE with the
 * lowest invalid H point (*bad_index, *bad_kind), HPR_ERR_OUT_OF_MEMORY or HPR_ERR_INTERNAL
 * with why. */
RT_MUST_CHECK hpr_status g16_h_msm_on_device(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *abc,
                                             cl_dev *dev, const g16_msm *m, double *msm_seconds, size_t *bad_index,
                                             msm_point_check *bad_kind, char *why);

/* The clock and notices of one proof's phases. */
typedef struct {
    hpr_ctx *ctx;
    hpr_groth16_report *report; /* the proof's: seconds and devices per phase */
    double t;                   /* when the running phase started (rt_now_seconds) */
    char notices[CL_DETAIL_LEN]; /* the phases' notices (device faults made good), joined */
} g16_phases;

/* The phase of task t (G16_TASK_H: HPR_G16_H). */
hpr_groth16_phase g16_task_phase(const g16_work *work, int t);

/* The progress name of a phase ("witness", "h", "msm A", ..., "assemble"). */
const char *g16_phase_name(hpr_groth16_phase phase);

/* The progress units of one proof with zk (host/core/progress.h): the witness (G16 units a value,
 * added by the caller once it is parsed), h (its two NTT batches, added by the NTTs, and the
 * host's steps around them, g16_h_extra_units), the five MSMs (of f slices a scalar over
 * precomputed sections, else f = 1) and the blinding's small MSMs (added by the MSMs). */
uint64_t g16_progress_units(const zkey_file *zk, unsigned f);
uint64_t g16_witness_units(const zkey_file *zk);
uint64_t g16_h_extra_units(const zkey_file *zk);

/* Closes the phase that started at ph->t: its time, the devices of the context's last run
 * report (with_devices; "cpu" or the context's OpenCL device without a report) and its
 * device faults (g16_collect_faults), and the context's notice, joined to ph->notices; the
 * next phase starts now. */
void g16_phase_end(g16_phases *ph, hpr_groth16_phase phase, int with_devices);

/* A device fault of the proof: device failed `failures` times (0: it was unusable already
 * and was not tried), dropped or not, with why (a leading "<device>: " left out). Joined to
 * report->faults[phase] (phase < 0: none, e.g. a self-test when the proof picks its
 * devices) and counted in report->failed (the device's first error kept). */
void g16_add_fault(hpr_groth16_report *report, int phase, const char *device, unsigned failures, int dropped,
                   const char *why);
/* g16_add_fault for each device fault in ctx's run report (entries with failures or dropped). */
void g16_collect_faults(hpr_groth16_report *report, const hpr_ctx *ctx, int phase);

/* Task t of work (0 <= t < G16_TASKS): g16_h into work->h, or the MSM work->msm[t], on
 * device (NULL: the context's default; G2 always on the CPU); a failed MSM's detail names it.
 * The context's run report is cleared first: afterwards it is the task's.
 * Sets the progress phase, checks for a cancel first (HPR_ERR_CANCELLED), adds its units. */
RT_MUST_CHECK hpr_status g16_run_task(hpr_ctx *ctx, const g16_work *work, int t, const char *device);

/* dev, when h and the H MSM of work should run there together (g16_h_msm_on_device): an
 * OpenCL device not failed, h's columns fitting on it, the H MSM plain (no precomputed
 * sections) and HPR_G16_H_DEVICE not 0; else NULL. The caller makes it ready (dev_ready). */
cl_dev *g16_h_device_for(hpr_ctx *ctx, const g16_work *work, cl_dev *dev);

/* h on the CPU from the evaluations abc (g16_h_from_evaluations into work->h), with h's
 * progress units beside the NTTs' (g16_h_extra_units): where a device gave h back. */
RT_MUST_CHECK hpr_status g16_h_on_cpu_from(hpr_ctx *ctx, const g16_work *work, unsigned char *abc);

/* What follows a g16_h_msm_on_device that succeeded: h's progress units beside the NTTs' and
 * the MSM's, and the H points marked validated. */
void g16_h_msm_device_done(hpr_ctx *ctx, const g16_work *work);

/* The tasks one after another on the context's device (G2: the CPU), h first, then the MSMs
 * in the order of work->msm; each is a phase of ph (g16_phase_end, with its devices). On an
 * OpenCL device that g16_h_device_for takes, h and the H MSM run there together first. */
RT_MUST_CHECK hpr_status g16_run_in_order(g16_phases *ph, const g16_work *work);

/* ---- host/groth16/groth16_graph.c ---- */

/* The proof's work as one task graph over the CPU and the OpenCL devices devs[0..ndev)
 * (picked and ready for the curve): h on the CPU, then the H MSM (or, with h's device, the
 * evaluations on the CPU, then h's NTTs and the H MSM together on that device); the MSMs on
 * whichever device is free, an OpenCL device taking the largest. A failing
 * device's MSM is redone on the CPU and named in notices (len bytes) and in the report's
 * faults. HPR_SCHED_INJECT_FAULT (ctx->knobs.sched_fault) fails a device's tasks as it fails
 * the hybrid MSM's tiles: "cl:P.D" every task, "cl:P.D@K" its K-th. Fills the report's
 * phases (times overlap; devices: the one that computed each). */
RT_MUST_CHECK hpr_status g16_graph_run(hpr_ctx *ctx, g16_work *work, cl_dev **devs, unsigned ndev,
                                       hpr_groth16_report *report, char *notices, size_t len);

/* ---- host/groth16/groth16_prove.c ---- */

/* The proof of the witness values w (n_vars canonical 32-byte scalars, checked below r by
 * wtns_parse) with the blinding scalars r and s (canonical, < r). */
/* Runs the work of a proof (h into work->h, the five MSMs into work->msm[*].out) in place of
 * this process's devices: a cluster's ranks (host/cluster/cluster_groth16.c). work->h is NULL when
 * there was no memory for it (the context's detail says so). */
typedef hpr_status (*g16_work_fn)(void *user, g16_phases *ph, g16_work *work);
/* g16_prove_values with the work run by fn (NULL: this process's devices). fn runs even
 * when there is no memory for h (work->h NULL), so that a cluster's other ranks learn of it. */
RT_MUST_CHECK hpr_status g16_prove_values_by(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                                             const unsigned char *r, const unsigned char *s,
                                             hpr_groth16_proof *proof, g16_work_fn fn, void *user);
/* r and s (canonical, uniform below the group order) drawn from the OS's CSPRNG, as
 * hpr_groth16_prove draws them. */
RT_MUST_CHECK hpr_status g16_random_blinding(hpr_ctx *ctx, hpr_curve curve, unsigned char *r, unsigned char *s);
/* Only the work of a proof over w, by fn, nothing assembled: the ranks other than 0. */
RT_MUST_CHECK hpr_status g16_work_by(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                                     g16_work_fn fn, void *user);
/* The witness bytes parsed against the prover's key (wtns_parse) and w[0] checked to be 1;
 * name labels the errors. Release with wtns_free. */
RT_MUST_CHECK hpr_status g16_parse_witness(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *data,
                                           size_t len, const char *name, wtns_data *w);
/* hpr_groth16_prove without the call lock (a thread working for the call that holds it:
 * host/cluster/cluster_groth16.c). */
RT_MUST_CHECK hpr_status g16_prove_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *wtns,
                                        size_t wtns_len, hpr_groth16_proof *proof);
RT_MUST_CHECK hpr_status g16_prove_values(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                                          const unsigned char *r, const unsigned char *s,
                                          hpr_groth16_proof *proof);

/* snarkjs's verification_key.json of zk (zkey export verificationkey, byte for byte): only the
 * header points and IC are read. *vk_json is malloc'd. HPR_ERR_FORMAT when a point does not
 * decode, HPR_ERR_OUT_OF_MEMORY. */
hpr_status g16_vk_json(hpr_ctx *ctx, const zkey_file *zk, char **vk_json);

#endif
