/*
 * cli_json.h: the JSON files the CLI writes (bench, calibrate, devices, groth16 prove --json):
 * one envelope with the run's metadata around a list of records.
 *
 *   {"schema": "hyprove-bench", "schema_version": 1, "command": "bench msm",
 *    "meta": {"hyprove_version", "date" (UTC, ISO 8601), "hostname", "cpu_model", "cpu_tier",
 *             "cores", "threads", "opencl_devices": [{"id", "name", "type", "usable"}]},
 *    "records": [...]}
 *
 * docs/cli.md ("JSON output") documents each command's records; bench/plot.py reads them.
 */
#ifndef HOST_CLI_CLI_JSON_H
#define HOST_CLI_CLI_JSON_H

#include <stdio.h>

#include "cli_util.h"

#define CLI_JSON_SCHEMA "hyprove-bench"
#define CLI_JSON_SCHEMA_VERSION 1

typedef struct {
    cli_output out;
    FILE *fp;
    unsigned records; /* written so far */
} cli_json;

/* Opens path ("-" = stdout) and writes the envelope and meta up to the records' "[". ctx
 * (may be NULL: a default context is made for the listing) names the CPU tier, threads and
 * OpenCL devices. Returns 0, or -1 after printing an error. */
int cli_json_begin(cli_json *j, const char *path, const char *command, hpr_ctx *ctx);
/* Starts the next record: writes the separator; the caller then writes one JSON object. */
FILE *cli_json_record(cli_json *j);
/* Closes the list and the envelope and commits the file: 0, or -1 after printing an error. */
int cli_json_end(cli_json *j);
/* Gives up: nothing is left behind. */
void cli_json_abort(cli_json *j);

/* s as a JSON string literal, quotes included. */
void cli_json_string(FILE *fp, const char *s);

#endif
