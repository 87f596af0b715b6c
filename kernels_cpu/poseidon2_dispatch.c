/*
 * poseidon2_dispatch.c: which Poseidon2 kernels a CPU tier runs (p2_kernels_for). A file of
 * its own so that the SIMD tiers, which call the portable kernels for their tails, and the
 * dispatch, which names every tier's table, form no call cycle between files.
 */
#include "poseidon2_cpu.h"

const p2_kernels *p2_kernels_for(rt_cpu_tier tier)
{
    switch (tier) {
    case RT_CPU_AVX512:
#if HPR_HAVE_IFMA
        return &p2_kernels_avx512;
#endif
        /* fall through */
    case RT_CPU_AVX2:
#if HPR_HAVE_AVX2
        return &p2_kernels_avx2;
#endif
        /* fall through */
    default: /* portable, adx (no Poseidon2 kernels of its own), neon (none yet) */
        return &p2_kernels_portable;
    }
}
