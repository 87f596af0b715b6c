/*
 * cl_icd.h: the OpenCL drivers (ICDs) installed, from the ICD loader's configuration, none of
 * them loaded (cl_icd.c).
 */
#ifndef RUNTIME_OPENCL_CL_ICD_H
#define RUNTIME_OPENCL_CL_ICD_H

typedef struct {
    unsigned pocl;  /* POCL's drivers (libpocl*) */
    unsigned other; /* any other driver (GPUs, accelerators, other CPU runtimes), or an unreadable entry */
} cl_icd_survey;

/* Counts the drivers the ICD loader would load (OCL_ICD_FILENAMES, OCL_ICD_VENDORS, else
 * /etc/OpenCL/vendors). Loads nothing. */
void cl_icd_survey_take(cl_icd_survey *s);

#endif
