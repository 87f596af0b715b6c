/*
 * cli_progress.c: the CLI's progress display (cli_progress.h), a printer behind the library's
 * progress callback.
 *
 * The library calls the printer from one of its threads, never two at once, at most every
 * progress_interval_s (0.25 s here for the redrawn line, 1 s for log lines) and once at the
 * end of a call that succeeds (fraction 1). A CLI process prints for one context at a time,
 * so the printer's state is one static record. Percentages are rounded down, so that 100%
 * means the end. The auto line is "\r<text>\033[K\r": the cursor stays at the line's start,
 * so the line needs no erasing before whatever the CLI prints next after a failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_progress.h"

#include <stdio.h>
#include <unistd.h>

#define AUTO_AFTER_S 1.0
#define AUTO_INTERVAL_S 0.25
#define FORCED_INTERVAL_S 1.0

int cli_progress_mode;

static struct {
    const char *what;
    int forced;
    int shown; /* an auto line is on the terminal */
} printer;

void cli_progress_clear(void)
{
    if (printer.shown)
        fputs("\033[K", stderr);
    printer.shown = 0;
}

/* "msm H" or "groth16 prove msm H" (with_call): the call's name, then its phase. */
static void label(char *out, size_t len, const hpr_progress *p, int with_call)
{
    const char *call = p->call && p->call[0] ? p->call : printer.what;
    int phase = p->phase && p->phase[0];
    snprintf(out, len, "%s%s%s", with_call || !phase ? call : "", with_call && phase ? " " : "", phase ? p->phase : "");
}

static void print_progress(const hpr_progress *p, void *user)
{
    char text[128];
    int percent = (int)(p->fraction * 100);
    (void)user;
    if (printer.forced) { /* the library's interval keeps these a second apart */
        label(text, sizeof text, p, 1);
        fprintf(stderr, "hyprove: progress %s %d%% %.1f s\n", text, percent, p->elapsed_s);
    } else if (p->fraction >= 1) {
        cli_progress_clear();
    } else if (p->elapsed_s >= AUTO_AFTER_S) {
        label(text, sizeof text, p, 0);
        fprintf(stderr, "\rhyprove: %s %d%% %.1f s\033[K\r", text, percent, p->elapsed_s);
        printer.shown = 1;
    }
    fflush(stderr);
}

void cli_progress_attach(hpr_config *cfg, const char *what)
{
    int mode = cli_progress_mode;
    if (mode < 0 || (mode == 0 && !isatty(STDERR_FILENO)))
        return;
    printer.what = what;
    printer.forced = mode == 1;
    cfg->progress = print_progress;
    cfg->progress_user = NULL;
    cfg->progress_interval_s = printer.forced ? FORCED_INTERVAL_S : AUTO_INTERVAL_S;
}
