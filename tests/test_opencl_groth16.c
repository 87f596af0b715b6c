/*
 * test_opencl_groth16.c: Groth16 proofs with the first OpenCL device (POCL's CPU device in
 * CI), each compared with snarkjs's r = s = 0 proof bit for bit: the task graph over the CPU
 * and the device (without a calibration the device takes an MSM; then the device fails every
 * MSM, the CPU redoes them, the proof is the same and the notice names the fault); h's NTTs
 * and the H MSM together on the device, h never coming back (in order on the device alone and
 * in the graph), counted in the bytes sent, and made good on the CPU when the device fails;
 * the bases and precomputed sections kept on the device between proofs.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"

#include "host/groth16/groth16.h"

#include <string.h>

/* The r = s = 0 proof on ctx equals snarkjs's proof_r0s0.json; returns its report. */
static hpr_groth16_report graph_proof(hpr_ctx *ctx, const char *fixture, const char *what)
{
    static const unsigned char zero[32];
    char path[1024], *proof_json, *public_json, *want = read_fixture_text(fixture, "proof_r0s0.json");
    file_buf wt = read_fixture(fixture, "witness.wtns");
    hpr_groth16_prover *p = NULL;
    hpr_groth16_report rep = {.struct_size = sizeof rep};
    hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &rep};
    wtns_data w;
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_OK);
    ck_assert_int_eq(wtns_parse(ctx, wt.data, wt.len, fixture, g16_prover_zkey(p), &w), HPR_OK);
    hpr_status st = g16_prove_values(ctx, p, w.values, zero, zero, &proof);
    ck_assert_msg(st == HPR_OK, "%s %s: %s (%s)", fixture, what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &proof_json, &public_json), HPR_OK);
    ck_assert_msg(strcmp(proof_json, want) == 0, "%s %s: the proof differs from snarkjs's proof_r0s0.json", fixture, what);
    free(proof_json);
    free(public_json);
    free(want);
    hpr_groth16_proof_clear(&proof);
    wtns_free(&w);
    hpr_groth16_prover_destroy(p);
    free(wt.data);
    return rep;
}

static int device_took_a_phase(const hpr_groth16_report *rep, const char *id)
{
    for (int i = 0; i < HPR_G16_PHASES; i++)
        if (strstr(rep->devices[i], id))
            return 1;
    return 0;
}

/* _i % 2: 0 bn128_2e10, 1 bls12381_2e12; _i / 2 % 2: the OpenCL MSM kernel (owner,
 * sorted); _i / 4: HPR_G16_H_DEVICE unset (a CPU device leaves h to the CPU) or 1 (the
 * device takes h's NTTs with the H MSM). The graph over the CPU and the device gives
 * snarkjs's proof; without a calibration the device takes the first large G1 MSM; then the
 * device fails every MSM, the CPU redoes them, the proof is the same and the notice names the
 * fault.
 * The fault is injected into the context in use (HPR_CL_INJECT_FAULT is read when a context
 * is created, and a new context's self-test would leave the failing device out of the graph
 * instead of giving it an MSM to fail). */
START_TEST(groth16_graph_gives_the_snarkjs_proof)
{
    static const char *fixtures[] = {"bn128_2e10", "bls12381_2e12"}, *kernels[] = {"owner", "sorted"};
    hpr_curve curve = _i % 2 == 0 ? HPR_CURVE_BN254 : HPR_CURVE_BLS12_381;
    int h_on_device = _i / 4;
    setenv("HPR_CL_MSM", kernels[_i / 2 % 2], 1);
    if (h_on_device)
        setenv("HPR_G16_H_DEVICE", "1", 1);
    char id[16], h_devices[32];
    hpr_ctx *ctx = ocl_hybrid_ctx();
    unsetenv("HPR_G16_H_DEVICE");
    ocl_first_device(id);
    hpr_groth16_report rep = graph_proof(ctx, fixtures[_i % 2], "on the graph");
    ck_assert_msg(strcmp(rep.devices[HPR_G16_MSM_B2], "cpu") == 0 || strcmp(rep.devices[HPR_G16_MSM_B2], id) == 0,
                  "B2 on %s", rep.devices[HPR_G16_MSM_B2]);
    snprintf(h_devices, sizeof h_devices, "cpu, %s", id); /* the evaluations, then the NTTs */
    ck_assert_str_eq(rep.devices[HPR_G16_H], h_on_device ? h_devices : "cpu");
    if (h_on_device)
        ck_assert_str_eq(rep.devices[HPR_G16_MSM_H], id);
    int uncalibrated = hpr_calibrated_speed(ctx, id, curve, 12) == 0 || hpr_calibrated_speed(ctx, "cpu", curve, 12) == 0;
    if (uncalibrated)
        ck_assert_msg(device_took_a_phase(&rep, id), "%s took no MSM of the proof", id);
    ocl_inject_fault_now(ctx, id);
    rep = graph_proof(ctx, fixtures[_i % 2], "with a failing device");
    ck_assert_msg(!device_took_a_phase(&rep, id), "a failed device is named for a phase");
    if (uncalibrated) /* the device got an MSM, failed, and the CPU redid it */
        ck_assert_msg(strstr(hpr_ctx_notice(ctx), "HPR_CL_INJECT_FAULT") && strstr(hpr_ctx_notice(ctx), "CPU instead"),
                      "notice: %s", hpr_ctx_notice(ctx));
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The r = s = 0 proof of an open prover: snarkjs's; returns the bytes sent to the device. */
static unsigned long long prove_and_count(hpr_ctx *ctx, const hpr_groth16_prover *p, const char *fixture,
                                          const char *what)
{
    static const unsigned char zero[32];
    char *proof_json, *public_json, *want = read_fixture_text(fixture, "proof_r0s0.json");
    file_buf wt = read_fixture(fixture, "witness.wtns");
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    wtns_data w;
    unsigned long long before = ocl_bytes_sent(ctx, NULL);
    ck_assert_int_eq(wtns_parse(ctx, wt.data, wt.len, fixture, g16_prover_zkey(p), &w), HPR_OK);
    hpr_status st = g16_prove_values(ctx, p, w.values, zero, zero, &proof);
    ck_assert_msg(st == HPR_OK, "%s: %s (%s)", what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_msg(hpr_ctx_notice(ctx)[0] == '\0', "%s: %s", what, hpr_ctx_notice(ctx));
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &proof_json, &public_json), HPR_OK);
    ck_assert_msg(strcmp(proof_json, want) == 0, "%s: the proof differs from snarkjs's proof_r0s0.json", what);
    free(proof_json);
    free(public_json);
    free(want);
    hpr_groth16_proof_clear(&proof);
    wtns_free(&w);
    free(wt.data);
    return ocl_bytes_sent(ctx, NULL) - before;
}

/* The bytes h's NTTs send to the device in one proof over a domain of n = 2^log_n: together
 * with the H MSM, the three columns once and the scaling tables (2^(log_n - log_n / 2) +
 * 2^(log_n / 2) elements each), and the two twiddle tables only in a context's first proof
 * (first: the device keeps them); apart (ntt_internal_form on the device, twice), the columns
 * and a twiddle table each time. */
static unsigned long long h_ntt_bytes(size_t n, int together, int first)
{
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n)
        log_n++;
    unsigned long long tables = ((n >> (log_n / 2)) + ((size_t)1 << (log_n / 2))) * 32;
    return together ? 3 * n * 32 + 2 * tables + (first ? 2 * n * 32 : 0) : 2 * (3 * n + n) * 32;
}

/* A context on device id alone whose BN254 self-tests' MSMs (G1 and G2) are sent already, so
 * that bytes_sent counts the proofs' only: one G2 MSM of a point does it. */
static hpr_ctx *self_tested_ctx(const char *id)
{
    hpr_ctx *ctx = ocl_ctx(id);
    hpr_device_report rep = {.struct_size = sizeof rep};
    unsigned char g2[128], one[32] = {1}, out[128];
    hpr_msm_opts on_device = {sizeof on_device, 0, 0, 0, id};
    ck_assert_int_eq(hpr_device_prepare(ctx, id, HPR_CURVE_BN254, &rep), HPR_OK);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G2, 1, 1, g2, NULL), HPR_OK);
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G2, g2, one, 1, out, &on_device), HPR_OK);
    return ctx;
}

/* _i: the OpenCL MSM kernel (owner, sorted), bn128_2e10 on the device alone. */
START_TEST(groth16_bases_stay_on_the_device)
{
    static const char *kernels[] = {"owner", "sorted"}, *fixture = "bn128_2e10";
    char id[16], path[1024];
    hpr_groth16_prover *p = NULL, *again = NULL;
    size_t domain, n_vars, n_public;
    unsigned long long resident;
    setenv("HPR_CL_MSM", kernels[_i], 1);
    ocl_first_device(id);
    hpr_ctx *ctx = self_tested_ctx(id);
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_OK);
    hpr_groth16_prover_sizes(p, &domain, &n_vars, &n_public);
    /* G1: A, B1, C (private witness), H: 64-byte points; G2: B2, 128-byte points; 32-byte scalars */
    unsigned long long g1 = 2 * n_vars + (n_vars - n_public - 1) + domain, g2n = n_vars;
    /* h stays on the device for the H MSM: its scalars are not sent, the NTTs' columns are */
    unsigned long long bases = g1 * 64 + g2n * 128, scalars = (g1 - domain + g2n) * 32 + h_ntt_bytes(domain, 1, 0);
    unsigned long long twiddles = h_ntt_bytes(domain, 1, 1) - h_ntt_bytes(domain, 1, 0);
    ck_assert_uint_eq(prove_and_count(ctx, p, fixture, "first proof"), bases + scalars + twiddles);
    (void)ocl_bytes_sent(ctx, &resident);
    ck_assert_uint_eq(resident, bases);
    ck_assert_uint_eq(prove_and_count(ctx, p, fixture, "second proof"), scalars);
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &again), HPR_OK);
    ck_assert_uint_eq(prove_and_count(ctx, again, fixture, "another prover"), bases + scalars);
    (void)ocl_bytes_sent(ctx, &resident);
    ck_assert_uint_eq(resident, bases); /* the first prover's bases were released */
    hpr_groth16_prover_destroy(p);
    hpr_groth16_prover_destroy(again);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i % 2: the OpenCL MSM kernel (owner, sorted); _i / 2: precompute 2 or 3. A prover with
 * precomputed sections, on the device alone: snarkjs's proof; the first proof sends f times the
 * sections' points (once) and f slices a scalar, the second only the slices; the device holds
 * f times the sections. Then under "all", the task graph over the CPU and the device: the same
 * proof. */
START_TEST(groth16_precomputed_sections_on_the_device)
{
    static const char *kernels[] = {"owner", "sorted"}, *fixture = "bn128_2e10";
    const unsigned f = 2 + _i / 2;
    char id[16], path[1024], what[64];
    hpr_groth16_prover *p = NULL;
    size_t domain, n_vars, n_public, bytes = 0;
    unsigned long long resident;
    setenv("HPR_CL_MSM", kernels[_i % 2], 1);
    ocl_first_device(id);
    hpr_ctx *ctx = self_tested_ctx(id);
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_OK);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, f), HPR_OK);
    hpr_groth16_prover_sizes(p, &domain, &n_vars, &n_public);
    unsigned long long g1 = 2 * n_vars + (n_vars - n_public - 1) + domain, g2n = n_vars;
    /* h comes back to be sliced: the NTTs run apart from the H MSM */
    unsigned long long bases = f * (g1 * 64 + g2n * 128), scalars = f * (g1 + g2n) * 32 + h_ntt_bytes(domain, 0, 0);
    ck_assert_uint_eq(hpr_groth16_prover_precomputed(p, &bytes), f);
    ck_assert_uint_eq(bytes, bases);
    snprintf(what, sizeof what, "%s, precompute %u, first proof", kernels[_i % 2], f);
    ck_assert_uint_eq(prove_and_count(ctx, p, fixture, what), bases + scalars);
    (void)ocl_bytes_sent(ctx, &resident);
    ck_assert_uint_eq(resident, bases);
    snprintf(what, sizeof what, "%s, precompute %u, second proof", kernels[_i % 2], f);
    ck_assert_uint_eq(prove_and_count(ctx, p, fixture, what), scalars);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    ctx = ocl_hybrid_ctx();
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_OK);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, f), HPR_OK);
    snprintf(what, sizeof what, "%s, precompute %u, all", kernels[_i % 2], f);
    (void)prove_and_count(ctx, p, fixture, what);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The r = s = 0 proof on ctx (snarkjs's, graph_proof) and the bytes it sent to the device. */
static hpr_groth16_report proof_and_bytes(hpr_ctx *ctx, const char *fixture, const char *what,
                                          unsigned long long *sent)
{
    unsigned long long before = ocl_bytes_sent(ctx, NULL);
    hpr_groth16_report rep = graph_proof(ctx, fixture, what);
    *sent = ocl_bytes_sent(ctx, NULL) - before;
    return rep;
}

/* _i: 0 bn128_2e10, 1 bls12381_2e12, on the device alone, the phases in order. h's NTTs and
 * the H MSM run there together: snarkjs's proof, both phases named for the device, and the
 * second proof sends exactly the bases (a new prover), the A, B1, B2, C scalars and h's
 * columns and scaling tables (not h, not the twiddles the device kept from the first), less
 * than with HPR_G16_H_DEVICE=0 (NTTs apart, h sent back for the MSM: the same proof). Then the
 * device fails: h and every MSM are made good on the CPU, the same proof, the fault named in
 * the notice and in phase h's faults. */
START_TEST(groth16_h_stays_on_the_device)
{
    static const char *fixtures[] = {"bn128_2e10", "bls12381_2e12"};
    const char *fixture = fixtures[_i];
    char id[16], path[1024];
    hpr_groth16_prover *p = NULL;
    size_t domain, n_vars, n_public;
    unsigned long long sent, apart;
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_OK);
    hpr_groth16_prover_sizes(p, &domain, &n_vars, &n_public);
    hpr_groth16_prover_destroy(p);
    /* A, B1, C (private witness), H in G1, B2 in G2 (twice the bytes); a new prover per proof
     * (graph_proof), so its bases go up each time */
    unsigned long long g1 = 2 * n_vars + (n_vars - n_public - 1) + domain, point = _i ? 96 : 64;
    unsigned long long bases = g1 * point + n_vars * 2 * point, scalars = (g1 - domain + n_vars) * 32;
    (void)proof_and_bytes(ctx, fixture, "together, first proof", &sent); /* the programs built */
    hpr_groth16_report rep = proof_and_bytes(ctx, fixture, "together", &sent);
    ck_assert_str_eq(rep.devices[HPR_G16_H], id);
    ck_assert_str_eq(rep.devices[HPR_G16_MSM_H], id);
    ck_assert_msg(hpr_ctx_notice(ctx)[0] == '\0', "notice: %s", hpr_ctx_notice(ctx));
    ck_assert_uint_eq(sent, bases + scalars + h_ntt_bytes(domain, 1, 0)); /* the twiddles kept from the first */
    hpr_ctx_destroy(ctx);
    setenv("HPR_G16_H_DEVICE", "0", 1);
    ctx = ocl_ctx(id);
    unsetenv("HPR_G16_H_DEVICE");
    (void)proof_and_bytes(ctx, fixture, "apart, first proof", &apart);
    rep = proof_and_bytes(ctx, fixture, "apart", &apart);
    ck_assert_uint_eq(apart, bases + scalars + domain * 32 + h_ntt_bytes(domain, 0, 0));
    ck_assert_uint_lt(sent, apart);
    hpr_ctx_destroy(ctx);
    ctx = ocl_ctx(id);
    (void)proof_and_bytes(ctx, fixture, "before the fault", &sent);
    ocl_inject_fault_now(ctx, id);
    rep = proof_and_bytes(ctx, fixture, "with a failing device", &sent);
    ck_assert_str_eq(rep.devices[HPR_G16_H], "cpu");
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "h and its MSM were computed without it"), "notice: %s",
                  hpr_ctx_notice(ctx));
    ck_assert_msg(strstr(rep.faults[HPR_G16_H], id), "phase h's faults: %s", rep.faults[HPR_G16_H]);
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_groth16");
    TCase *tc = test_case(s, "graph", 900);
    tcase_add_loop_test(tc, groth16_graph_gives_the_snarkjs_proof, 0, 8);
    tcase_add_loop_test(tc, groth16_h_stays_on_the_device, 0, 2);
    tcase_add_loop_test(tc, groth16_bases_stay_on_the_device, 0, 2);
    tcase_add_loop_test(tc, groth16_precomputed_sections_on_the_device, 0, 4);
    return run_suite(s);
}
