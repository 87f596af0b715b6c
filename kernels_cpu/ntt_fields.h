/*
 * ntt_fields.h: the small prime fields of the NTT on the host: the shared source
 * (kernels_cl/arith/small_fields.h, also compiled as OpenCL C by kernels_cl/ntt.cl).
 */
#ifndef HPR_NTT_FIELDS_H
#define HPR_NTT_FIELDS_H

#include <stdint.h>

#include "../kernels_cl/arith/small_fields.h"

#endif
