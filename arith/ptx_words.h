/*
 * ptx_words.h: 32-bit carry-chain primitives, each one PTX instruction on NVIDIA devices and
 * its exact emulation in C elsewhere, so that one text of the field arithmetic (fe_impl.h,
 * under ARITH_PTX_WORDS) is both NVIDIA's fast path and a host-tested function.
 *
 * What: add.cc, addc.cc, addc, sub.cc, subc.cc, subc, mad.lo.cc, madc.lo.cc, mad.hi.cc,
 * madc.hi.cc and madc.hi on u32 words (PTX ISA 'Extended-Precision Integer Arithmetic').
 * Each takes the carry flag as its last argument, arith_u32 *cf (0 or 1): the emulation reads
 * and writes it as the instruction reads and writes CC.CF (for sub and subc, CF is the
 * borrow); the PTX form ignores it and the flag lives in the condition-code register.
 * Why: the portable 32-bit CIOS (fe_impl.h, HPR_CL_LIMB32) compiles to about 576 SASS
 * instructions per BN254 multiplication for sm_90 (scripts/ptx-check.sh): every carry is a
 * 64-bit addition and a comparison. A chain of mad.lo.cc/madc.lo.cc and mad.hi.cc/madc.hi.cc
 * carries in the flag instead (the technique of sppark's and ICICLE's CUDA arithmetic, written
 * here for our CIOS; docs/opencl.md has the figures).
 * Contract: a chain is a run of these calls in program order with nothing between them that
 * writes CC.CF. Each PTX form is one `asm volatile` statement: volatile statements keep their
 * order, and the only PTX instructions that write CC.CF are the extended-precision ones, which
 * the compiler itself emits for 128-bit integers only (none here). That the flag survives from
 * one asm statement to the next is what ICICLE's ptx.cuh relies on with nvcc; NVIDIA's OpenCL
 * compiler is the same NVVM and ptxas, and clang's NVPTX output keeps the order (checked by
 * scripts/ptx-check.sh, which assembles it). On a GPU the device self-test
 * (host/msm/device_selftest.c) compares the products with the host's, bit for bit, before
 * first use, and falls back to the portable words if they differ.
 *
 * ARITH_PTX_WORDS is 1 in OpenCL C built with -DHPR_CL_PTX=1 (the host sets it for NVIDIA
 * devices: runtime/opencl/cl_device.c) and in host C built with -DHPR_PTX_EMULATE=1 (ctest
 * test_field_ptx_words runs the field tests through the emulation); ARITH_PTX_ASM says which.
 */
#ifndef ARITH_PTX_WORDS_H
#define ARITH_PTX_WORDS_H

#include "compat.h"

#if ARITH_IS_OPENCL && defined(HPR_CL_PTX) && HPR_CL_PTX
#define ARITH_PTX_WORDS 1
#define ARITH_PTX_ASM 1
#elif !ARITH_IS_OPENCL && defined(HPR_PTX_EMULATE) && HPR_PTX_EMULATE
#define ARITH_PTX_WORDS 1
#define ARITH_PTX_ASM 0
#else
#define ARITH_PTX_WORDS 0
#define ARITH_PTX_ASM 0
#endif

#if ARITH_PTX_ASM
#define PTX_OP2(name, insn)                                                                 \
    ARITH_FN arith_u32 name(arith_u32 a, arith_u32 b, arith_u32 *cf)                        \
    {                                                                                       \
        arith_u32 d;                                                                        \
        (void)cf;                                                                           \
        __asm__ volatile(insn " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                   \
        return d;                                                                           \
    }
#define PTX_OP3(name, insn)                                                                 \
    ARITH_FN arith_u32 name(arith_u32 a, arith_u32 b, arith_u32 c, arith_u32 *cf)           \
    {                                                                                       \
        arith_u32 d;                                                                        \
        (void)cf;                                                                           \
        __asm__ volatile(insn " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));       \
        return d;                                                                           \
    }
PTX_OP2(ptx_add_cc, "add.cc.u32")
PTX_OP2(ptx_addc_cc, "addc.cc.u32")
PTX_OP2(ptx_addc, "addc.u32")
PTX_OP2(ptx_sub_cc, "sub.cc.u32")
PTX_OP2(ptx_subc_cc, "subc.cc.u32")
PTX_OP2(ptx_subc, "subc.u32")
PTX_OP3(ptx_mad_lo_cc, "mad.lo.cc.u32")
PTX_OP3(ptx_madc_lo_cc, "madc.lo.cc.u32")
PTX_OP3(ptx_mad_hi_cc, "mad.hi.cc.u32")
PTX_OP3(ptx_madc_hi_cc, "madc.hi.cc.u32")
PTX_OP3(ptx_madc_hi, "madc.hi.u32")
#undef PTX_OP2
#undef PTX_OP3
#elif ARITH_PTX_WORDS
/* The emulation: d and CF exactly as the PTX ISA defines them (u32 arithmetic wraps). */
ARITH_FN arith_u32 ptx_sum_cf(arith_u64 s, arith_u32 *cf)
{
    *cf = (arith_u32)(s >> 32);
    return (arith_u32)s;
}
ARITH_FN arith_u32 ptx_add_cc(arith_u32 a, arith_u32 b, arith_u32 *cf) { return ptx_sum_cf((arith_u64)a + b, cf); }
ARITH_FN arith_u32 ptx_addc_cc(arith_u32 a, arith_u32 b, arith_u32 *cf) { return ptx_sum_cf((arith_u64)a + b + *cf, cf); }
ARITH_FN arith_u32 ptx_addc(arith_u32 a, arith_u32 b, arith_u32 *cf) { return a + b + *cf; }
ARITH_FN arith_u32 ptx_subc_cc(arith_u32 a, arith_u32 b, arith_u32 *cf)
{
    arith_u64 sub = (arith_u64)b + *cf; /* d = a - (b + CF); CF = the borrow */
    *cf = (arith_u64)a < sub;
    return (arith_u32)((arith_u64)a - sub);
}
ARITH_FN arith_u32 ptx_sub_cc(arith_u32 a, arith_u32 b, arith_u32 *cf)
{
    *cf = 0;
    return ptx_subc_cc(a, b, cf);
}
ARITH_FN arith_u32 ptx_subc(arith_u32 a, arith_u32 b, arith_u32 *cf) { return a - b - *cf; }
ARITH_FN arith_u32 ptx_mad_lo_cc(arith_u32 a, arith_u32 b, arith_u32 c, arith_u32 *cf)
{
    return ptx_sum_cf((arith_u64)(arith_u32)(a * b) + c, cf);
}
ARITH_FN arith_u32 ptx_madc_lo_cc(arith_u32 a, arith_u32 b, arith_u32 c, arith_u32 *cf)
{
    return ptx_sum_cf((arith_u64)(arith_u32)(a * b) + c + *cf, cf);
}
ARITH_FN arith_u32 ptx_mad_hi_cc(arith_u32 a, arith_u32 b, arith_u32 c, arith_u32 *cf)
{
    return ptx_sum_cf(((arith_u64)a * b >> 32) + c, cf);
}
ARITH_FN arith_u32 ptx_madc_hi_cc(arith_u32 a, arith_u32 b, arith_u32 c, arith_u32 *cf)
{
    return ptx_sum_cf(((arith_u64)a * b >> 32) + c + *cf, cf);
}
ARITH_FN arith_u32 ptx_madc_hi(arith_u32 a, arith_u32 b, arith_u32 c, arith_u32 *cf)
{
    return (arith_u32)(((arith_u64)a * b >> 32) + c + *cf);
}
#endif

#endif
