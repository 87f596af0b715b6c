/*
 * cli_json.c: the envelope of every JSON file the CLI writes (see cli_json.h).
 *
 * Rationale: a benchmark figure means little without where it was measured, so every file
 * carries the version, the date, the processor, the CPU tier, the thread count and the OpenCL
 * devices, and a schema name and version that readers (bench/plot.py) check before trusting
 * the records. Records are written by the commands themselves; this file owns the envelope,
 * string escaping and the atomic output.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_json.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cli_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(fp, "\\u%04x", *p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

/* The tier a context made now would use: HPR_CPU if set, else the fastest that can run. */
static const char *default_tier(void)
{
    const char *forced = getenv("HPR_CPU");
    if (forced && forced[0])
        return forced;
    for (unsigned t = hpr_cpu_tier_count(); t-- > 0;)
        if (hpr_cpu_tier_check(hpr_cpu_tier_name(t), NULL) == HPR_OK)
            return hpr_cpu_tier_name(t);
    return "portable";
}

/* The OpenCL devices of the run: none under --devices cpu, where listing them would load the
 * OpenCL platforms (POCL: some 60 MiB and 50 ms) into a run that never uses them. */
static void write_devices(FILE *fp, hpr_ctx *ctx)
{
    unsigned count = ctx && strcmp(hpr_ctx_devices(ctx), "cpu") != 0 ? hpr_device_count(ctx) : 0;
    fputs("[", fp);
    for (unsigned i = 0; i < count; i++) {
        hpr_device_info d = {.struct_size = sizeof d};
        if (hpr_device_get_info(ctx, i, &d) != HPR_OK)
            continue;
        fprintf(fp, "%s{\"id\": ", i ? ", " : "");
        cli_json_string(fp, d.id);
        fputs(", \"name\": ", fp);
        cli_json_string(fp, d.name);
        fprintf(fp, ", \"type\": \"%s\", \"usable\": %s}", d.kind, d.usable ? "true" : "false");
    }
    fputs("]", fp);
}

static void write_meta(FILE *fp, hpr_ctx *ctx)
{
    hpr_cpu_info cpu = cli_cpu_info();
    char host[256] = "", date[32] = "";
    time_t now = time(NULL);
    struct tm utc;
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    if (gmtime_r(&now, &utc))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    fprintf(fp, "  \"meta\": {\"hyprove_version\": \"%s\", \"date\": \"%s\", \"hostname\": ", hpr_version(NULL, NULL, NULL),
            date);
    cli_json_string(fp, host);
    fputs(", \"cpu_model\": ", fp);
    cli_json_string(fp, cpu.brand[0] ? cpu.brand : "unknown");
    fputs(", \"cpu_tier\": ", fp);
    cli_json_string(fp, ctx ? hpr_ctx_cpu_tier(ctx) : default_tier());
    fprintf(fp, ", \"cores\": %u, \"threads\": %u,\n           \"opencl_devices\": ", cpu.online_cpus,
            ctx ? hpr_ctx_threads(ctx) : cpu.online_cpus);
    write_devices(fp, ctx);
    if (ctx) { /* the device set the run used: auto's choice and why, else the one asked for */
        fputs(",\n           \"devices\": ", fp);
        cli_json_string(fp, hpr_ctx_devices(ctx));
        fputs(", \"device_choice\": ", fp);
        cli_json_string(fp, hpr_ctx_device_choice(ctx));
    }
    fputs("},\n", fp);
}

int cli_json_begin(cli_json *j, const char *path, const char *command, hpr_ctx *ctx)
{
    hpr_ctx *own = NULL;
    memset(j, 0, sizeof *j);
    if (!ctx && hpr_ctx_create(NULL, &own) == HPR_OK)
        ctx = own;
    if (cli_output_open(&j->out, path) != 0) {
        hpr_ctx_destroy(own);
        return -1;
    }
    j->fp = (FILE *)j->out.fp;
    fprintf(j->fp, "{\"schema\": \"%s\", \"schema_version\": %d, \"command\": ", CLI_JSON_SCHEMA,
            CLI_JSON_SCHEMA_VERSION);
    cli_json_string(j->fp, command);
    fputs(",\n", j->fp);
    write_meta(j->fp, ctx);
    fputs("  \"records\": [", j->fp);
    hpr_ctx_destroy(own);
    return 0;
}

FILE *cli_json_record(cli_json *j)
{
    fputs(j->records++ ? ",\n    " : "\n    ", j->fp);
    return j->fp;
}

int cli_json_end(cli_json *j)
{
    fputs(j->records ? "\n  ]\n}\n" : "]\n}\n", j->fp);
    j->fp = NULL;
    return cli_output_commit(&j->out);
}

void cli_json_abort(cli_json *j)
{
    j->fp = NULL;
    cli_output_abort(&j->out);
}
