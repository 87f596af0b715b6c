/*
 * cli_progress.h: the progress display of the CLI's long calls (an MSM, an NTT, a proof, a
 * calibration), drawn by the library's progress callback (hpr_config.progress).
 */
#ifndef HOST_CLI_CLI_PROGRESS_H
#define HOST_CLI_CLI_PROGRESS_H

#include "hyprove.h"

/* 0 (auto, the default): on stderr only when it is a terminal, and only once a call has run
 * over a second: "hyprove: msm H 63% 2.4 s", redrawn in place and erased at the end of the
 * call. 1 (forced; --progress): plain lines for logs, "hyprove: progress groth16 prove msm H
 * 63% 2.4 s", at most one a second, and the final 100% line. -1: none. The option parser
 * sets it before the contexts are made. */
extern int cli_progress_mode;

/* Sets cfg's progress callback, user and interval to the CLI's printer for the mode (nothing
 * when it is -1, or 0 and stderr is not a terminal). what: the label of the display when the
 * library names no call. */
void cli_progress_attach(hpr_config *cfg, const char *what);

/* Erases an auto-mode line still on the terminal: a call that fails ends without its final
 * report. (Until then the cursor is left at the line's start, so that a message printed
 * after a failed call writes over it.) */
void cli_progress_clear(void);

#endif
