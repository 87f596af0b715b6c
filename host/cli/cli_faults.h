/*
 * cli_faults.h: the device faults that the library made good (an OpenCL device failed and
 * the CPU or the other devices redid its work, so the answer is still exact), told to the
 * user instead of passing silently:
 *   - one warning line on stderr per device and run (process), naming the device and the
 *     error: "hyprove: warning: cl:0.0 failed (ERROR) and was dropped; its work was redone
 *     on the CPU";
 *   - per record, the list of faulted devices for --report tables and the JSON records'
 *     "faults" array: [{"device", "error", "tiles_failed", "dropped"}] (docs/cli.md, "JSON output").
 * Where from: the run report of an MSM or NTT (hpr_ctx_last_report: the entries with failures
 * or dropped) and a proof's report (hpr_groth16_report.failed).
 */
#ifndef HOST_CLI_CLI_FAULTS_H
#define HOST_CLI_CLI_FAULTS_H

#include <stdio.h>

#include "hyprove.h"

typedef struct {
    char device[16];
    char error[200];       /* the first error, without a leading "<device>: " */
    unsigned tiles_failed; /* tiles (or a proof's tasks) that failed, summed over the calls */
    int dropped;           /* the device got no more work */
} cli_fault;

/* The faults of one record (one or more calls), by device. Zero-initialised: none. */
typedef struct {
    unsigned n;
    cli_fault f[HPR_REPORT_MAX_DEVICES];
} cli_faults;

/* The faulted devices among runs[0..n) (failures or dropped) added to fs (may be NULL): a
 * device already there adds its failures, its error kept; each device not yet warned about
 * in this process gets its warning line, its work said to be redone by redone_by ("the CPU",
 * "the other devices"). Returns how many of runs[] were faulted. */
unsigned cli_faults_add(cli_faults *fs, const hpr_device_run *runs, unsigned n, const char *redone_by);

/* After an MSM or NTT call on ctx that succeeded: the faults of its run report (as
 * cli_faults_add), then the call's notice as a warning unless a fault explains it (a notice
 * is printed once per run). */
void cli_faults_after_call(hpr_ctx *ctx, cli_faults *fs);

/* After a proof on ctx that succeeded: report->failed (as cli_faults_add), then the notice as
 * cli_faults_after_call prints it. */
void cli_faults_after_proof(hpr_ctx *ctx, const hpr_groth16_report *report, cli_faults *fs);

/* Writes ", \"faults\": [...]" (an empty array when fs holds none) into a JSON record. */
void cli_faults_json(FILE *fp, const cli_faults *fs);

/* One line per faulted device into a report table: "<prefix>cl:0.0 failed 2 times, dropped:
 * ERROR". Nothing when fs holds none. */
void cli_faults_print(FILE *to, const cli_faults *fs, const char *prefix);

#endif
