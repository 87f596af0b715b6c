/*
 * groth16_h_device.c: the h scalars and the H MSM on one OpenCL device, h never leaving it.
 *
 * What: g16_h's steps 2 and 3 (host/groth16/groth16_h.c) and the H MSM, for the prover's phases in
 * order on an OpenCL device and for a device's task in the task graph.
 * Method: step 1 (the sparse evaluations) on the CPU's pool; the three columns a, b, c
 * uploaded once (runtime/opencl/cl_ntt.h, cl_ntt_cols); the inverse NTT and the coset NTT
 * with their scalings there (ntt_on_device_columns); h = a b - c there, out of Montgomery
 * form, into a buffer of canonical scalars (cl_ntt_cols_mul_sub); the H MSM reads its scalars
 * from that buffer (cl_msm_device_scalars). Only the MSM's window sums come back.
 * Transfers, n the domain size, 32-byte elements: 3 n 32 up and the scaling tables (about
 * 2 sqrt(n) 32), the two twiddle tables (2 n 32) only until the device keeps them, instead of
 * 3 n 32 up and down and a twiddle table for each NTT and n 32 up for the MSM's scalars when
 * the steps run apart.
 * Bits: each step computes the CPU's field elements (a reduced form is unique), so the proof
 * is the CPU's bit for bit (tests/test_opencl_groth16.c compares them).
 * Failure: a device error returns HPR_ERR_DEVICE with the device's detail; the caller still
 * holds its evaluations and redoes the rest elsewhere.
 */
#include "host/groth16/groth16.h"
#include "host/groth16/groth16_h.h"
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/msm/msm_engine.h"
#include "host/ntt/ntt_internal.h"

#include "runtime/opencl/cl_msm.h"
#include "runtime/opencl/cl_ntt.h"

#include <stdio.h>

int g16_h_device_fits(const zkey_file *zk, const cl_dev *dev)
{
    return cl_ntt_cols_fit(dev, 32, zkey_log_domain(zk), 3);
}

/* The H MSM over the scalars h on the device (m's points, key and output). */
static hpr_status msm_over(hpr_ctx *ctx, hpr_curve curve, cl_dev *dev, const g16_msm *m, cl_mem h, size_t *bad_index,
                           msm_point_check *bad_kind, char *why)
{
    const msm_curve_ops *ops = msm_ops(curve, HPR_G1);
    msm_points pts = {m->points, m->n, m->key, m->owner, m->validated};
    cl_msm_result r = cl_msm_device_scalars(ctx->cl, dev, dev_msm_variant(curve, HPR_G1), ops, &pts, h, m->n, m->out,
                                            bad_index, bad_kind, why);
    if (r == CL_MSM_BAD_POINT)
        return HPR_ERR_POINT_NOT_ON_CURVE;
    if (r != CL_MSM_OK)
        return HPR_ERR_DEVICE;
    progress_add(ctx, progress_msm_units(m->n, 1));
    return HPR_OK;
}

hpr_status g16_h_msm_on_device(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *abc, cl_dev *dev,
                               const g16_msm *m, double *msm_seconds, size_t *bad_index, msm_point_check *bad_kind,
                               char *why)
{
    hpr_field field = zk->curve == HPR_CURVE_BN254 ? HPR_FIELD_BN254_FR : HPR_FIELD_BLS12_381_FR;
    unsigned log_n = zkey_log_domain(zk);
    char shift[96];
    cl_ntt_cols *cols = NULL;
    cl_mem h = NULL;
    hpr_ntt_opts inverse, coset;
    hpr_status st = HPR_ERR_DEVICE;
    if (m->sliced || m->n != zk->domain_size) {
        snprintf(why, CL_DETAIL_LEN, "internal: g16_h_msm_on_device takes the plain H MSM of the domain only");
        return HPR_ERR_INTERNAL;
    }
    g16_h_ntt_opts(zk, 0, "cpu", shift, &inverse);
    g16_h_ntt_opts(zk, 1, "cpu", shift, &coset);
    if (cl_ntt_cols_upload(ctx->cl, dev, (int)field, 32, log_n, abc, 3, &cols, why) != 0 ||
        (st = ntt_on_device_columns(ctx, field, log_n, cols, &inverse, why)) != HPR_OK ||
        (st = ntt_on_device_columns(ctx, field, log_n, cols, &coset, why)) != HPR_OK)
        goto out;
    st = HPR_ERR_DEVICE;
    if (cl_ntt_cols_mul_sub(ctx->cl, cols, &h, why) != 0)
        goto out;
    double t0 = rt_now_seconds();
    st = msm_over(ctx, zk->curve, dev, m, h, bad_index, bad_kind, why);
    *msm_seconds = rt_now_seconds() - t0;
out:
    if (h)
        ctx->cl->api.clReleaseMemObject(h);
    cl_ntt_cols_release(ctx->cl, cols);
    return st;
}
