/*
 * ntt_fields.h: the small prime fields of the NTT on the host: the shared source
 * (arith/small_fields.h, also compiled as OpenCL C by kernels_cl/ntt.cl).
 */
#ifndef KERNELS_CPU_NTT_FIELDS_H
#define KERNELS_CPU_NTT_FIELDS_H

#include <stdint.h>

#include "arith/small_fields.h"

#endif
