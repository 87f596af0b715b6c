/*
 * cl_sources.h: the OpenCL C sources, flattened and embedded at build time by
 * scripts/embed_cl.py (kernels_cl/msm.cl, ntt.cl, poseidon2.cl and test_ops.cl with the
 * shared arithmetic inlined), and a SHA-256 of them for the program cache key.
 */
#ifndef RUNTIME_OPENCL_CL_SOURCES_H
#define RUNTIME_OPENCL_CL_SOURCES_H

extern const char cl_src_msm[];
extern const char cl_src_test[];
extern const char cl_src_ntt[];
extern const char cl_src_poseidon2[];
extern const char cl_src_hash[];

#endif
