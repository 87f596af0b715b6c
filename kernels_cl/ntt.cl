/*
 * ntt.cl: the NTT's radix-2 layers and bit reversal on an OpenCL device, one field per
 * program (build option -DHPR_CL_FIELD = the hpr_field id: 1 BN254 Fr, 2 BLS12-381 Fr,
 * 3 Goldilocks, 4 BabyBear, 5 KoalaBear). Elements are the host's internal form (the shared
 * arithmetic: Montgomery for the 256-bit and 31-bit fields, canonical for Goldilocks), and
 * the twiddle table is the host's (kernels_cpu/ntt_cpu.h: tw[len + j] = w_{2 len}^j), so
 * every butterfly computes exactly what the CPU's does: results are bit-identical.
 * Method: one launch per layer, one work-item per butterfly (n/2 of them), twiddles read
 * from device memory. What is not here yet (issue 6): several layers per launch in local
 * memory, which the layers narrower than a work-group allow.
 */
#if HPR_CL_FIELD == 1 || HPR_CL_FIELD == 2
#define HPR_CL_CURVE HPR_CL_FIELD
#include "curve_select.h"
typedef fr elem;
#define E(op) FR(op)
#else
#include "arith/small_fields.h"
#if HPR_CL_FIELD == 3
typedef gl_t elem;
#define E(op) HPR_CAT(gl_, op)
#elif HPR_CL_FIELD == 4
typedef bb_t elem;
#define E(op) HPR_CAT(bb_, op)
#elif HPR_CL_FIELD == 5
typedef kb_t elem;
#define E(op) HPR_CAT(kb_, op)
#else
#error "build the NTT program with -DHPR_CL_FIELD=1..5"
#endif
#endif

#ifndef HPR_CAT
#define HPR_CAT_(a, b) a##b
#define HPR_CAT(a, b) HPR_CAT_(a, b)
#endif

/* Gentleman-Sande: (u, v) -> (u + v, (u - v) w). Work-item b of n/2. */
__kernel void ntt_dif_layer(__global elem *a, __global const elem *tw, uint len)
{
    uint b = get_global_id(0), j = b % len;
    uint i = (b / len) * 2 * len + j;
    elem u = a[i], v = a[i + len], t = tw[len + j], s, d, r;
    E(add)(&s, &u, &v);
    E(sub)(&d, &u, &v);
    E(mul)(&r, &d, &t);
    a[i] = s;
    a[i + len] = r;
}

/* Cooley-Tukey: (u, v) -> (u + v w, u - v w). */
__kernel void ntt_dit_layer(__global elem *a, __global const elem *tw, uint len)
{
    uint b = get_global_id(0), j = b % len;
    uint i = (b / len) * 2 * len + j;
    elem u = a[i], v = a[i + len], t = tw[len + j], m, s, d;
    E(mul)(&m, &v, &t);
    E(add)(&s, &u, &m);
    E(sub)(&d, &u, &m);
    a[i] = s;
    a[i + len] = d;
}

/* out[rev(i)] = in[i], rev over log_n bits. */
__kernel void ntt_bitrev(__global const elem *in, __global elem *out, uint log_n)
{
    uint i = get_global_id(0), r = 0, x = i;
    for (uint k = 0; k < log_n; k++, x >>= 1)
        r = (r << 1) | (x & 1);
    out[r] = in[i];
}
