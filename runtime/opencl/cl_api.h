/*
 * cl_api.h: OpenCL reached through the ICD loader opened with dlopen, so that the library and
 * the CLI start (CPU only) on a machine without any OpenCL, and checked-call macros that put
 * the failing call, the error's name, the file and the line into an error buffer.
 *
 * Only the OpenCL 1.2 entry points listed in CL_API_LIST are used. Every call goes through
 * the table: api->clFinish(q), never the symbol, so nothing links against libOpenCL.
 */
#ifndef RUNTIME_OPENCL_CL_API_H
#define RUNTIME_OPENCL_CL_API_H

#include "runtime/base/rt_check.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stddef.h>

#define CL_API_LIST(X)                                                                                           \
    X(cl_int, clGetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                                          \
    X(cl_int, clGetPlatformInfo, (cl_platform_id, cl_platform_info, size_t, void *, size_t *))                  \
    X(cl_int, clGetDeviceIDs, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))            \
    X(cl_int, clGetDeviceInfo, (cl_device_id, cl_device_info, size_t, void *, size_t *))                        \
    X(cl_context, clCreateContext,                                                                               \
      (const cl_context_properties *, cl_uint, const cl_device_id *,                                             \
       void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *))                       \
    X(cl_int, clReleaseContext, (cl_context))                                                                    \
    X(cl_command_queue, clCreateCommandQueue, (cl_context, cl_device_id, cl_command_queue_properties, cl_int *)) \
    X(cl_int, clReleaseCommandQueue, (cl_command_queue))                                                         \
    X(cl_program, clCreateProgramWithSource, (cl_context, cl_uint, const char **, const size_t *, cl_int *))    \
    X(cl_program, clCreateProgramWithBinary,                                                                     \
      (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **, cl_int *, cl_int *))   \
    X(cl_int, clBuildProgram,                                                                                    \
      (cl_program, cl_uint, const cl_device_id *, const char *, void(CL_CALLBACK *)(cl_program, void *), void *)) \
    X(cl_int, clGetProgramBuildInfo, (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *)) \
    X(cl_int, clGetProgramInfo, (cl_program, cl_program_info, size_t, void *, size_t *))                        \
    X(cl_int, clReleaseProgram, (cl_program))                                                                    \
    X(cl_kernel, clCreateKernel, (cl_program, const char *, cl_int *))                                          \
    X(cl_int, clReleaseKernel, (cl_kernel))                                                                      \
    X(cl_int, clSetKernelArg, (cl_kernel, cl_uint, size_t, const void *))                                        \
    X(cl_int, clGetKernelWorkGroupInfo, (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *)) \
    X(cl_mem, clCreateBuffer, (cl_context, cl_mem_flags, size_t, void *, cl_int *))                             \
    X(cl_int, clReleaseMemObject, (cl_mem))                                                                      \
    X(cl_int, clEnqueueWriteBuffer,                                                                              \
      (cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *))  \
    X(cl_int, clEnqueueReadBuffer,                                                                               \
      (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *))        \
    X(cl_int, clEnqueueCopyBuffer,                                                                               \
      (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *))         \
    X(cl_int, clEnqueueNDRangeKernel,                                                                            \
      (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint,            \
       const cl_event *, cl_event *))                                                                            \
    X(cl_int, clFlush, (cl_command_queue))                                                                       \
    X(cl_int, clFinish, (cl_command_queue))

#define CL_API_TYPEDEF(ret, name, args) typedef ret(CL_API_CALL *name##_fn) args;
CL_API_LIST(CL_API_TYPEDEF)
#undef CL_API_TYPEDEF

typedef struct {
    void *lib;
#define CL_API_MEMBER(ret, name, args) name##_fn name;
    CL_API_LIST(CL_API_MEMBER)
#undef CL_API_MEMBER
} cl_api;

#define CL_DETAIL_LEN 512

/* Opens the ICD loader (library when not NULL or "", else libOpenCL.so.1, else libOpenCL.so) and
 * resolves every entry point. Returns 0, or -1 with a one-line reason in why. */
RT_MUST_CHECK int cl_api_open(cl_api *api, const char *library, char *why, size_t whylen);
void cl_api_close(cl_api *api);

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "unknown OpenCL error". */
const char *cl_error_name(cl_int err);

/* Writes "<call> failed: <ERROR_NAME> (<code>) at <file>:<line>" into detail. */
void cl_record_error(char *detail, const char *call, cl_int err, const char *file, int line);

/* For functions with a local `char *detail` (CL_DETAIL_LEN bytes) and an `out:` label.
 * CL_CALL(api, clFinish, q) runs api->clFinish(q) and jumps to out on failure.
 * CL_CHECK_RC(fn, rc) checks the error code that a clCreate* call returned through rc. */
#define CL_CALL(api, fn, ...)                                                                                    \
    do {                                                                                                         \
        cl_int cl_rc_ = (api)->fn(__VA_ARGS__);                                                                  \
        if (cl_rc_ != CL_SUCCESS) {                                                                              \
            cl_record_error(detail, #fn, cl_rc_, __FILE__, __LINE__);                                            \
            goto out;                                                                                            \
        }                                                                                                        \
    } while (0)

#define CL_CHECK_RC(fn, rc)                                                                                      \
    do {                                                                                                         \
        if ((rc) != CL_SUCCESS) {                                                                                \
            cl_record_error(detail, #fn, (rc), __FILE__, __LINE__);                                              \
            goto out;                                                                                            \
        }                                                                                                        \
    } while (0)

#endif
