/*
 * ntt.cl: the NTT's radix-2 layers and bit reversal on an OpenCL device, one field per
 * program (build option -DHPR_CL_FIELD = the hpr_field id: 1 BN254 Fr, 2 BLS12-381 Fr,
 * 3 Goldilocks, 4 BabyBear, 5 KoalaBear). Elements are the host's internal form (the shared
 * arithmetic: Montgomery for the 256-bit and 31-bit fields, canonical for Goldilocks), and
 * the twiddle table is the host's (kernels_cpu/ntt_cpu.h: tw[len + j] = w_{2 len}^j), so
 * every butterfly computes exactly what the CPU's does: results are bit-identical.
 * Method: passes of several layers per launch in local memory (ntt_dif_pass, ntt_dit_pass),
 * n/2 work-items per column, twiddles read from device memory: log_n / k launches, not
 * log_n. Every kernel runs a batch of columns at once: the second dimension of the range is
 * the column (n = 2^log_n elements each, consecutive).
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
#define E(op) ARITH_CAT(gl_, op)
#elif HPR_CL_FIELD == 4
typedef bb_t elem;
#define E(op) ARITH_CAT(bb_, op)
#elif HPR_CL_FIELD == 5
typedef kb_t elem;
#define E(op) ARITH_CAT(kb_, op)
#else
#error "build the NTT program with -DHPR_CL_FIELD=1..5"
#endif
#endif

#ifndef ARITH_CAT
#define ARITH_CAT_(a, b) a##b
#define ARITH_CAT(a, b) ARITH_CAT_(a, b)
#endif

/* Several layers per launch. The k layers of spans len, len/2, ..., s = len >> (k-1) (DIF
 * order; DIT runs them upwards from s) only mix, within each block of 2 len, the elements
 * lo + m s (lo < s, m < 2^k): a closed set of 2^k elements. A work-group takes cols such sets
 * with consecutive lo (cols divides s), loads them into local memory (buf[m cols + c] for
 * lo = lo0 + c), runs the k layers there with a barrier between layers (one butterfly per
 * work-item and layer) and writes them back. Work-item (t, c) = (lid / cols, lid % cols):
 * neighbouring work-items touch neighbouring elements, so the strided passes read and write
 * whole runs of cols elements (coalesced); the last DIF pass (first DIT pass) has s = 1 and
 * cols = 1, its sets consecutive. In local index units the span is l = L / s, and the
 * butterfly at m-index i (i % l = j) has the twiddle index L + lo + j s. The host keeps
 * cols 2^k within the local array (NTT_LOCAL_BITS) and the group within the device's
 * work-group size (runtime/opencl/cl_ntt.c). */
/* 32 KiB, the local memory every OpenCL 1.2 device has (the full profile's minimum): 10
 * layers of 32-byte elements per pass, so 3 passes at 2^24 where 8 KiB took 5; the group's
 * size (cols 2^(k-1) items) stays within the kernel's limit on the device. */
#if HPR_CL_FIELD <= 2
#define NTT_LOCAL_BITS 10 /* runtime/opencl/cl_ntt.c: local_bits() */
#elif HPR_CL_FIELD == 3
#define NTT_LOCAL_BITS 12
#else
#define NTT_LOCAL_BITS 13
#endif

/* dit = 0: spans len .. s (Gentleman-Sande); dit = 1: spans s .. len (Cooley-Tukey). */
static void ntt_pass(__global elem *a, __global const elem *tw, uint s, uint k, uint cols, int dit,
                     __local elem *buf)
{
    /* s, cols and every span are powers of two: quotients and remainders are shifts and
     * masks (a division by a value known only at run time costs tens of instructions on a
     * GPU, once per butterfly and layer) */
    uint log_cols = 31 - clz(cols), log_sets = 31 - clz(s) - log_cols, lid = get_local_id(0), grp = get_group_id(0);
    uint c = lid & (cols - 1), t = lid >> log_cols;
    uint g_in_block = grp & ((1u << log_sets) - 1), block = grp >> log_sets;
    uint pairs = 1u << (k - 1), len = s << (k - 1);
    uint lo = g_in_block * cols + c, base = block * 2 * len + lo;
    buf[t * cols + c] = a[base + t * s];
    buf[(t + pairs) * cols + c] = a[base + (t + pairs) * s];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = 0; step < k; step++) {
        uint log_l = dit ? step : k - 1 - step, l = 1u << log_l, L = l * s;
        uint j = t & (l - 1), i = ((t >> log_l) << (log_l + 1)) + j;
        elem u = buf[i * cols + c], v = buf[(i + l) * cols + c], w = tw[L + lo + j * s], x, y, m;
        if (dit) {
            E(mul)(&m, &v, &w);
            E(add)(&x, &u, &m);
            E(sub)(&y, &u, &m);
        } else {
            E(add)(&x, &u, &v);
            E(sub)(&m, &u, &v);
            E(mul)(&y, &m, &w);
        }
        buf[i * cols + c] = x;
        buf[(i + l) * cols + c] = y;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    a[base + t * s] = buf[t * cols + c];
    a[base + (t + pairs) * s] = buf[(t + pairs) * cols + c];
}

/* The column is get_global_id(1) (n = 2^log_n elements each); s the pass's narrowest span. */
__kernel void ntt_dif_pass(__global elem *a, __global const elem *tw, uint s, uint k, uint log_n, uint cols)
{
    __local elem buf[1 << NTT_LOCAL_BITS];
    ntt_pass(a + ((size_t)get_global_id(1) << log_n), tw, s, k, cols, 0, buf);
}

__kernel void ntt_dit_pass(__global elem *a, __global const elem *tw, uint s, uint k, uint log_n, uint cols)
{
    __local elem buf[1 << NTT_LOCAL_BITS];
    ntt_pass(a + ((size_t)get_global_id(1) << log_n), tw, s, k, cols, 1, buf);
}

/* out[rev(i)] = in[i], rev over log_n bits, in column get_global_id(1). */
__kernel void ntt_bitrev(__global const elem *in, __global elem *out, uint log_n)
{
    size_t col = (size_t)get_global_id(1) << log_n;
    uint i = get_global_id(0), r = 0, x = i;
    for (uint k = 0; k < log_n; k++, x >>= 1)
        r = (r << 1) | (x & 1);
    out[col + r] = in[col + i];
}

/* a[i] *= hi[i >> lo_bits] * lo[i & (2^lo_bits - 1)] in column get_global_id(1): with the
 * host's tables hi[j] = c s^(j 2^lo_bits) and lo[j] = s^j, that is a_i *= c s^i, the CPU's
 * scale (ntt_field_ops.scale). Products of reduced elements are reduced, and the value is the
 * same, so the bits are the CPU's. */
__kernel void ntt_scale(__global elem *a, __global const elem *hi, __global const elem *lo, uint lo_bits, uint log_n)
{
    size_t i = get_global_id(0);
    __global elem *col = a + ((size_t)get_global_id(1) << log_n);
    elem f = hi[i >> lo_bits], g = lo[i & ((1u << lo_bits) - 1)], t, x = col[i];
    E(mul)(&t, &f, &g);
    E(mul)(&f, &x, &t);
    col[i] = f;
}

#if HPR_CL_FIELD <= 2
/* The Groth16 h on the device (host/groth16/groth16_h.c, step 3): out[i] = a[i] b[i] - c[i] out of
 * Montgomery form, as canonical little-endian limbs (the MSM's scalars), from the columns
 * a, b, c of n = 2^log_n elements each, consecutive in abc. */
__kernel void ntt_mul_sub_canonical(__global const elem *abc, __global ulong *out, uint log_n)
{
    size_t i = get_global_id(0), n = (size_t)1 << log_n;
    elem a = abc[i], b = abc[n + i], c = abc[2 * n + i], t;
    ulong l[4];
    E(mul)(&t, &a, &b);
    E(sub)(&t, &t, &c);
    E(from_mont)(l, &t);
    for (int k = 0; k < 4; k++)
        out[4 * i + k] = l[k];
}
#endif
