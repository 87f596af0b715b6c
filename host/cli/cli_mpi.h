/*
 * cli_mpi.h: the CLI's processes as one hpr_cluster, over Open MPI (cli_mpi.c).
 *
 * `mpirun -np N hyprove COMMAND ...` starts N processes (ranks) running the same command line.
 * cli_cluster_begin, first thing in main, finds out whether this process is one rank of such
 * a job (Open MPI's and PMIx's environment variables), initialises MPI when it is, and gives
 * the library the transport of hpr_cluster (host/include/hyprove.h, "Several processes").
 * Rank 0 alone prints and writes outputs: the other ranks' stdout and stderr go to /dev/null
 * (HPR_RANK_STDERR=1 in the environment keeps their stderr, for debugging), and their errors
 * reach rank 0 through hpr_cluster_agree and the cluster calls' details ("rank R: ...").
 * A build without Open MPI (HPR_HAVE_MPI unset) still knows when it was started by mpirun, and
 * then refuses to run rather than run the whole command once per rank.
 */
#ifndef HOST_CLI_CLI_MPI_H
#define HOST_CLI_CLI_MPI_H

#include <stddef.h>
#include <stdio.h>

#include "hyprove.h"

/* Called first in main: -1 when the command should run (as one process, or as one rank of a
 * job), else the exit code (the error printed on rank 0). */
int cli_cluster_begin(int *argc, char ***argv);
/* MPI_Finalize when MPI was initialised; later calls do nothing (also run at exit). */
void cli_cluster_end(void);

/* The job's cluster, NULL when this process runs alone (no mpirun, or one rank). */
const hpr_cluster *cli_cluster(void);
/* This process's rank (0 alone) and the job's size (1 alone). */
int cli_cluster_rank(void);
int cli_cluster_size(void);
/* 1 on the rank that prints and writes outputs: rank 0, or the process alone. */
int cli_cluster_leader(void);

/* A command that does not run across ranks, under a cluster: rank 0 prints the error
 * "'what' does not run across ranks ..." and every rank returns CLI_EXIT_USAGE; -1 alone. */
int cli_cluster_refuse(const char *what);

/* Every rank's outcome of a local step joined (hpr_cluster_agree): rc is 0 or the exit code
 * this rank returns after printing its error (cli_error keeps the last message: it is the
 * detail sent). 0 when every rank succeeded; else every rank returns an exit code (its own,
 * or CLI_EXIT_FAILURE) and rank 0 has printed the lowest failing rank's error once. ctx may
 * be NULL (a context that could not be made): a CPU context of one thread carries the call.
 * Alone: rc. */
int cli_cluster_agree(hpr_ctx *ctx, int rc);

/* Rank 0's len bytes at data copied to every rank (MPI_Bcast; its collective messages never
 * meet the library's). 0, or -1 after the transport failed (error printed on rank 0). Alone:
 * nothing, 0. */
int cli_cluster_share(void *data, size_t len);

/* A call's report as one line to `to`: "ranks 2: rank 0 12 tiles (55%, busy 0.81 s), rank 1
 * ...; bytes sent 1.2 MiB in 40 messages". */
void cli_cluster_print_report(FILE *to, const hpr_cluster_report *r);

#endif
