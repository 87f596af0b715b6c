/*
 * cl_api.c: the dlopen'ed OpenCL entry points, error names and the checked-call recorder.
 */
#include "cl_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resolve_all(cl_api *api, char *why, size_t whylen)
{
    void *sym;
#define CL_API_RESOLVE(ret, name, args)                                                                          \
    sym = dlsym(api->lib, #name);                                                                                \
    if (!sym) {                                                                                                  \
        snprintf(why, whylen, "the OpenCL library lacks %s (OpenCL 1.2 required)", #name);                       \
        return -1;                                                                                               \
    }                                                                                                            \
    memcpy(&api->name, &sym, sizeof sym);
    CL_API_LIST(CL_API_RESOLVE)
#undef CL_API_RESOLVE
    return 0;
}

int cl_api_open(cl_api *api, const char *forced, char *why, size_t whylen)
{
    static const char *const candidates[] = {"libOpenCL.so.1", "libOpenCL.so"};
    memset(api, 0, sizeof *api);
    if (forced && forced[0]) {
        api->lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
        if (!api->lib) {
            snprintf(why, whylen, "cannot load HPR_OPENCL_LIBRARY=%s: %s", forced, dlerror());
            return -1;
        }
    } else {
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !api->lib; i++)
            api->lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (!api->lib) {
            snprintf(why, whylen, "no OpenCL ICD loader (libOpenCL.so.1) is installed");
            return -1;
        }
    }
    if (resolve_all(api, why, whylen) != 0) {
        cl_api_close(api);
        return -1;
    }
    return 0;
}

/* The loader stays mapped: ICD loaders and vendor drivers keep process-wide state (ocl-icd's
 * vendor table, POCL's LLVM) that is neither freed nor safe to unload, and a second context
 * reuses it. dlopen reference counting makes the next cl_api_open cheap. */
void cl_api_close(cl_api *api)
{
    memset(api, 0, sizeof *api);
}

const char *cl_error_name(cl_int err)
{
    switch (err) {
#define E(name)                                                                                                  \
    case name: return #name;
        E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
        E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
        E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
        E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
        E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
        E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "unknown OpenCL error";
}

void cl_record_error(char *detail, const char *call, cl_int err, const char *file, int line)
{
    snprintf(detail, CL_DETAIL_LEN, "%s failed: %s (%d) at %s:%d", call, cl_error_name(err), (int)err, file, line);
}
