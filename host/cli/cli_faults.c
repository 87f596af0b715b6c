/*
 * cli_faults.c: device faults told to the user (cli_faults.h). The warnings already printed
 * are one static record: the CLI runs one command per process, and "once per device and
 * run" means once per device in that process, however many calls, contexts or records saw
 * the device fail (a failed device stays unusable on its context, and later calls meet it as
 * unusable: that is the same fault).
 */
#include "cli_faults.h"
#include "cli_json.h"

#include <string.h>

static char warned[HPR_REPORT_MAX_DEVICES * 2][16];
static unsigned nwarned;
static char last_notice[512];

/* failure without a leading "<device>: " (the scheduler's tiles name their device). */
static const char *without_device(const char *failure, const char *device)
{
    size_t len = strlen(device);
    if (strncmp(failure, device, len) == 0 && failure[len] == ':' && failure[len + 1] == ' ')
        return failure + len + 2;
    return failure;
}

/* The warning line for the device of r, unless one was printed for it already. */
static void warn_once(const hpr_device_run *r, const char *error, const char *redone_by)
{
    for (unsigned i = 0; i < nwarned; i++)
        if (strcmp(warned[i], r->device) == 0)
            return;
    if (nwarned < sizeof warned / sizeof warned[0])
        snprintf(warned[nwarned++], sizeof warned[0], "%s", r->device);
    if (!r->dropped)
        fprintf(stderr, "hyprove: warning: %s failed (%s) on %u tile%s; %s redone by %s\n", r->device, error,
                r->failures, r->failures == 1 ? "" : "s", r->failures == 1 ? "it was" : "they were", redone_by);
    else if (r->failures)
        fprintf(stderr, "hyprove: warning: %s failed (%s) and was dropped; its work was redone by %s\n", r->device,
                error, redone_by);
    else
        fprintf(stderr, "hyprove: warning: %s is unusable (%s); its work was done by %s\n", r->device, error,
                redone_by);
}

unsigned cli_faults_add(cli_faults *fs, const hpr_device_run *runs, unsigned n, const char *redone_by)
{
    unsigned found = 0;
    for (unsigned d = 0; d < n; d++) {
        const hpr_device_run *r = &runs[d];
        if (!r->failures && !r->dropped)
            continue;
        const char *error = without_device(r->failure, r->device);
        found++;
        warn_once(r, error, redone_by);
        if (!fs)
            continue;
        unsigned k = 0;
        while (k < fs->n && strcmp(fs->f[k].device, r->device) != 0)
            k++;
        if (k == fs->n) {
            if (k == HPR_REPORT_MAX_DEVICES)
                continue;
            memset(&fs->f[k], 0, sizeof fs->f[k]);
            snprintf(fs->f[k].device, sizeof fs->f[k].device, "%s", r->device);
            snprintf(fs->f[k].error, sizeof fs->f[k].error, "%.199s", error);
            fs->n++;
        }
        fs->f[k].tiles_failed += r->failures;
        fs->f[k].dropped |= r->dropped;
    }
    return found;
}

/* The call's notice as a warning, unless a fault of the call explains it or it was printed. */
static void print_notice(const hpr_ctx *ctx, unsigned faults)
{
    const char *notice = hpr_ctx_notice(ctx);
    if (faults || !notice[0] || strncmp(notice, last_notice, sizeof last_notice - 1) == 0)
        return;
    snprintf(last_notice, sizeof last_notice, "%s", notice);
    fprintf(stderr, "hyprove: warning: %s\n", notice);
}

void cli_faults_after_call(hpr_ctx *ctx, cli_faults *fs)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    unsigned found = 0;
    if (hpr_ctx_last_report(ctx, &rep) == HPR_OK) {
        const char *by = "the CPU";
        for (unsigned d = 0; d < rep.ndevices; d++) /* another OpenCL device took a share */
            if (strncmp(rep.devices[d].device, "cl:", 3) == 0 && rep.devices[d].points > 0 &&
                !rep.devices[d].failures && !rep.devices[d].dropped)
                by = "the other devices";
        found = cli_faults_add(fs, rep.devices, rep.ndevices, by);
    }
    print_notice(ctx, found);
}

void cli_faults_after_proof(hpr_ctx *ctx, const hpr_groth16_report *report, cli_faults *fs)
{
    /* the proof's failed tasks go back to the CPU (task graph) or to the CPU alone (one device) */
    print_notice(ctx, cli_faults_add(fs, report->failed, report->nfailed, "the CPU"));
}

void cli_faults_json(FILE *fp, const cli_faults *fs)
{
    fputs(", \"faults\": [", fp);
    for (unsigned k = 0; k < fs->n; k++) {
        fprintf(fp, "%s{\"device\": ", k ? ", " : "");
        cli_json_string(fp, fs->f[k].device);
        fputs(", \"error\": ", fp);
        cli_json_string(fp, fs->f[k].error);
        fprintf(fp, ", \"tiles_failed\": %u, \"dropped\": %s}", fs->f[k].tiles_failed,
                fs->f[k].dropped ? "true" : "false");
    }
    fputs("]", fp);
}

void cli_faults_print(FILE *to, const cli_faults *fs, const char *prefix)
{
    for (unsigned k = 0; k < fs->n; k++)
        fprintf(to, "%s%s failed %u time%s%s: %s\n", prefix, fs->f[k].device, fs->f[k].tiles_failed,
                fs->f[k].tiles_failed == 1 ? "" : "s", fs->f[k].dropped ? ", dropped" : "", fs->f[k].error);
}
