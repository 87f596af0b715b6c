/*
 * cl_icd.c: which OpenCL drivers (ICDs) are installed, read from the ICD loader's own
 * configuration without loading any of them.
 *
 * Rationale: the ICD loaders (ocl-icd, Khronos's) load every installed driver on the first
 * clGetPlatformIDs; POCL's brings LLVM (about 45 MB resident and a self-test's compile).
 * The default device set ("auto", host/core/device_registry.c) leaves OpenCL CPU devices
 * out, so on a machine whose only driver is POCL it need not open OpenCL at all: this survey
 * tells it so before anything is loaded.
 *
 * Sources, as ocl-icd reads them (libOpenCL(7)): OCL_ICD_FILENAMES (library names or paths
 * separated by ':'), and OCL_ICD_VENDORS (a folder of .icd files, one .icd file, or a
 * library), else the folder OPENCL_VENDOR_PATH, else /etc/OpenCL/vendors; an .icd file names
 * one library on its first line. A driver is
 * POCL's when its library's file name starts with "libpocl". An unreadable file counts as
 * another driver (so that OpenCL is opened and the loader says what it finds).
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "cl_icd.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ICD_DEFAULT_DIR "/etc/OpenCL/vendors"

/* Adds the library lib (a name or a path) to the survey s. */
static void count_library(cl_icd_survey *s, const char *lib)
{
    const char *base = strrchr(lib, '/');
    base = base ? base + 1 : lib;
    if (!base[0])
        return;
    if (strncmp(base, "libpocl", 7) == 0)
        s->pocl++;
    else
        s->other++;
}

/* The library named by the .icd file at path (its first line), or another driver. */
static void count_icd_file(cl_icd_survey *s, const char *path)
{
    char line[1024] = "";
    FILE *f = fopen(path, "r");
    if (!f || !fgets(line, sizeof line, f)) {
        s->other++;
        if (f)
            fclose(f);
        return;
    }
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    count_library(s, line);
}

static int has_icd_suffix(const char *name)
{
    size_t len = strlen(name);
    return len > 4 && strcmp(name + len - 4, ".icd") == 0;
}

/* Every .icd file of the folder dir: 1, or 0 when dir is not a folder that can be read. */
static int count_icd_folder(cl_icd_survey *s, const char *dir)
{
    char path[4096];
    struct dirent *e;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (!has_icd_suffix(e->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        count_icd_file(s, path);
    }
    closedir(d);
    return 1;
}

/* OCL_ICD_FILENAMES: libraries separated by ':'. */
static void count_library_list(cl_icd_survey *s, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy) {
        s->other++;
        return;
    }
    for (char *lib = strtok_r(copy, ":", &save); lib; lib = strtok_r(NULL, ":", &save))
        count_library(s, lib);
    free(copy);
}

void cl_icd_survey_take(cl_icd_survey *s)
{
    const char *names = getenv("OCL_ICD_FILENAMES"), *vendors = getenv("OCL_ICD_VENDORS");
    const char *folder = getenv("OPENCL_VENDOR_PATH");
    memset(s, 0, sizeof *s);
    if (names && names[0])
        count_library_list(s, names);
    if (vendors && vendors[0]) {
        if (count_icd_folder(s, vendors))
            return;
        if (has_icd_suffix(vendors))
            count_icd_file(s, vendors);
        else /* ocl-icd: a library, or an .icd file's name in the vendors folder */
            count_library(s, vendors);
        return;
    }
    (void)count_icd_folder(s, folder && folder[0] ? folder : ICD_DEFAULT_DIR);
}
