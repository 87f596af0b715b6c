/*
 * main.c: the hyprove command line: dispatch to the subcommands.
 */
#include "cli.h"
#include "cli_mpi.h"

#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static const char *main_help =
    "usage: hyprove [--threads T] [--max-memory SIZE] [COMMAND] [OPTIONS]\n"
    "\n"
    "hyprove: a hybrid proving runtime (MSM, NTT and Poseidon2 Merkle commitments across CPU and\n"
    "OpenCL devices).\n"
    "With no command, compares the devices found on an MSM workload and prints a table, then\n"
    "proves and verifies a bundled Groth16 example; 'hyprove --json FILE' also writes the table\n"
    "as JSON (bench msm's records), which bench/plot.py draws.\n"
    "\n"
    "commands:\n"
    "  devices      the CPU (model, cores, instruction sets from CPUID and XCR0) and devices\n"
    "  msm          one multi-scalar multiplication from files or random inputs\n"
    "  bench msm    time MSMs over sizes, curves and devices (table, and JSON with --json)\n"
    "  ntt          one NTT (forward, inverse, coset, any order, batched) from a file\n"
    "  bench ntt    time NTTs and LDEs over fields and sizes\n"
    "  commit       the Poseidon2 Merkle commitment of a matrix from a file, or of its LDE\n"
    "               (KoalaBear, BabyBear; Plonky3's layout): root.json, and openings of rows\n"
    "  commit verify  check the openings of a root.json (commit --open) against a root\n"
    "  bench commit time commitments (LDE and tree) per device: rows/s, permutations/s\n"
    "  bench poseidon2  Poseidon2 permutations/s per instance and CPU tier\n"
    "  groth16 prove  a Groth16 proof from snarkjs/circom files (zkey, wtns -> proof, public)\n"
    "  groth16 prove-batch  a proof per witness of a list, into a folder (proofs/s)\n"
    "  groth16 verify check a proof as snarkjs does (verification key, public, proof)\n"
    "  groth16 setup --insecure-dev  a development zkey and vk from a circom .r1cs (INSECURE:\n"
    "               tests and benchmarks only, one process knows the toxic waste)\n"
    "  bench groth16  time whole proofs, per phase\n"
    "  calibrate    measure each device's MSM throughput for the hybrid scheduler\n"
    "  serve        a Groth16 proving server over HTTP (zkeys kept loaded; POST /prove)\n"
    "  --version    print the version\n"
    "\n"
    "--threads T (1.." CLI_STR(HPR_MAX_THREADS) ") and --max-memory SIZE may come before the command as\n"
    "well as after it, with the same meaning; the main job takes --max-memory and --json FILE.\n"
    "Exit status: 0 done; 1 the command could not do its work (an input missing, unreadable or\n"
    "malformed, an output, memory, a device); 2 a usage error; 3 a check that ran and does not\n"
    "verify (groth16 verify, commit verify).\n"
    "\n"
    "Run as hyprove-prover (the link that `cmake --install` makes): rapidsnark's `prover`,\n"
    "  hyprove-prover CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json (exit status 0 or 1).\n"
    "\n"
    "Across processes and machines (Open MPI): mpirun -np N hyprove msm|ntt|groth16 prove|\n"
    "  groth16 prove-batch|bench msm|bench ntt|bench groth16 ...: every rank runs the same command,\n"
    "  rank 0 prints and writes the outputs (docs/cluster.md).\n"
    "\n"
    "'hyprove COMMAND --help' describes each command.\n";

/* One command per process: large buffers (MSM digits and buckets, NTT columns) come from
 * the heap and are reused by the next phase, instead of being mapped, faulted in page by
 * page and unmapped by each call (glibc maps blocks over 128 KiB until its threshold adapts):
 * a cold 2^14 Groth16 proof spent about a third of its time in those faults. glibc refuses
 * a threshold above 32 MiB, so blocks from 32 MiB up are still mapped (measured: taking
 * every block from the heap, M_MMAP_MAX 0, changed neither the 2^16 proof nor the 2^20 NTT
 * and grew the NTT benchmark's memory from 512 to 700 MiB). */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

/* The program's name without its folder. */
static const char *program_name(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    return slash ? slash + 1 : argv0 ? argv0 : "";
}

/* A command that runs as one process only (refused under a cluster: rank 0 says so). */
static int alone(const char *what, int (*command)(int, char **), int argc, char **argv)
{
    int rc = cli_cluster_refuse(what);
    return rc >= 0 ? rc : command(argc, argv);
}

/* The command argv[0] with its arguments. */
static int dispatch(int argc, char **argv)
{
    const char *cmd = argv[0];
    if (strcmp(cmd, "help") == 0) {
        fputs(main_help, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "msm") == 0)
        return cmd_msm(argc, argv);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc, argv);
    if (strcmp(cmd, "devices") == 0)
        return alone("devices", cmd_devices, argc, argv);
    if (strcmp(cmd, "ntt") == 0)
        return cmd_ntt(argc, argv);
    if (strcmp(cmd, "commit") == 0)
        return alone("commit", cmd_commit, argc, argv);
    if (strcmp(cmd, "groth16") == 0)
        return cmd_groth16(argc, argv);
    if (strcmp(cmd, "calibrate") == 0)
        return alone("calibrate", cmd_calibrate, argc, argv);
    if (strcmp(cmd, "serve") == 0)
        return alone("serve", cmd_serve, argc, argv);
    return cli_usage_error("", "unknown command '%s'", cmd);
}

static int run_command(int argc, char **argv)
{
    const char *json;
    int first, rc;
    if (strcmp(program_name(argv[0]), "hyprove-prover") == 0)
        return alone("hyprove-prover", cmd_rapidsnark_prover, argc, argv);
    if ((rc = cli_leading_options(argc, argv, main_help, &first, &json)) >= 0)
        return rc;
    if (first < argc)
        return dispatch(argc - first, argv + first);
    if ((rc = cli_cluster_refuse("hyprove (the main job)")) >= 0)
        return rc;
    return cmd_default_job(json);
}

/* Under mpirun every rank runs the same command line (cli_mpi.h); MPI ends with main. */
int main(int argc, char **argv)
{
    keep_freed_memory();
    cli_table = stdout;
    int rc = cli_cluster_begin(&argc, &argv);
    if (rc < 0)
        rc = run_command(argc, argv);
    cli_cluster_end();
    return rc;
}
