/*
 * cli_args.c: the option parser every hyprove subcommand uses, over glibc's getopt_long.
 *
 * Rationale: one parser, so that every command treats its arguments the same way: options
 * and positional files in any order (getopt_long permutes), "--" ends the options,
 * "--name VALUE" and "--name=VALUE", unambiguous prefixes of long names (getopt_long's
 * rule), "-h"/"--help". An option given twice is an error unless it is a list: a list option's
 * values accumulate (joined with commas, as if given once as "a,b"), and a repeatable option
 * (serve's --zkey) collects each value. getopt_long's own messages are off (opterr = 0): each
 * error is one "hyprove: error:" line naming the option.
 *
 * Every command also takes --max-memory SIZE (like --help, not in its table): the memory
 * limit of the library's calls, checked here ("512M", "2G", bytes; a malformed value is a
 * usage error naming the option) and passed on as HPR_MAX_MEMORY, which every context the
 * command makes reads (hpr_config.memory_limit, host/core/memory_budget.c). A malformed
 * HPR_MAX_MEMORY in the environment is named here too, before any context refuses it.
 *
 * Options before the command (`hyprove --threads 2 --max-memory 1G msm ...`): main.c reads them
 * with cli_leading_options (getopt_long stopping at the first word that is not an option) and
 * cli_parse_args parses them ahead of the command's own arguments, so that they behave exactly
 * as they would after the command: the same checks, the same "given twice" rule, and a command
 * without --threads refuses it wherever it stands. With no command, they belong to the main job.
 *
 * HPR_LIST_OPTIONS (environment, any value) makes a command print the options it accepts, one
 * per line ("--curve VALUE", "--report"), and exit 0 without running: tests check README's
 * synopsis and the help texts against it, and shell completions can read it.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTS 40
#define LIST_ARENA 8192

FILE *cli_table;

void cli_table_for_output(const char *path)
{
    if (!cli_table)
        cli_table = stdout;
    if (path && (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0))
        cli_table = stderr;
}

/* Joined list values live for the whole process (a command parses once). */
static char list_arena[LIST_ARENA];
static size_t list_used;

static int takes_value(const cli_opt *o)
{
    return o->kind != CLI_FLAG;
}

static int print_options(const cli_opt *opts, size_t nopts)
{
    for (size_t k = 0; k < nopts; k++)
        printf("%s%s\n", opts[k].name, takes_value(&opts[k]) ? " VALUE" : "");
    return CLI_EXIT_OK;
}

/* "a" then "b" into "a,b" in the arena; -1 when the arena is full. */
static int append_list(const char **slot, const char *value)
{
    size_t old = *slot ? strlen(*slot) + 1 : 0, add = strlen(value) + 1;
    if (list_used + old + add > LIST_ARENA)
        return -1;
    char *dst = list_arena + list_used;
    if (*slot) {
        memcpy(dst, *slot, old - 1);
        dst[old - 1] = ',';
    }
    memcpy(dst + old, value, add);
    list_used += old + add;
    *slot = dst;
    return 0;
}

static int store(const char *cmd, const cli_opt *o, const char *value)
{
    switch (o->kind) {
    case CLI_FLAG:
        if (*o->flag)
            return cli_usage_error(cmd, "option %s given twice", o->name);
        *o->flag = 1;
        return 0;
    case CLI_LIST:
        if (append_list(o->value, value) != 0)
            return cli_usage_error(cmd, "option %s: the list is too long", o->name);
        return 0;
    case CLI_EACH:
        if (*o->count == o->cap)
            return cli_usage_error(cmd, "option %s given more than %zu times", o->name, o->cap);
        o->each[(*o->count)++] = value;
        return 0;
    case CLI_ONCE:
        break;
    }
    if (*o->value)
        return cli_usage_error(cmd, "option %s given twice (it takes one value)", o->name);
    *o->value = value;
    return 0;
}

/* Why getopt_long refused arg: a flag given a value, an ambiguous prefix or an unknown name. */
static int refused(const char *cmd, const char *arg, const cli_opt *opts, size_t nopts)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg), matches = 0;
    if (strncmp(arg, "--", 2) != 0)
        return cli_usage_error(cmd, "unknown option '%s'", arg);
    for (size_t k = 0; k < nopts; k++) {
        if (strlen(opts[k].name) == len && strncmp(opts[k].name, arg, len) == 0)
            return cli_usage_error(cmd, "option %s takes no value", opts[k].name);
        matches += strncmp(opts[k].name, arg, len) == 0;
    }
    matches += strncmp("--max-memory", arg, len) == 0;
    if (matches > 1)
        return cli_usage_error(cmd, "ambiguous option '%.*s'", (int)len, arg);
    return cli_usage_error(cmd, "unknown option '%.*s'", (int)len, arg);
}

/* One positional argument into pos: -1 (go on) or the exit code of a usage error. */
static int positional(const char *cmd, const char *arg, const char **pos, int max_pos, int *npos)
{
    if (!pos || *npos == max_pos)
        return max_pos ? cli_usage_error(cmd, "unexpected argument '%s' (%d expected)", arg, max_pos)
                       : cli_usage_error(cmd, "unexpected argument '%s'", arg);
    pos[(*npos)++] = arg;
    return -1;
}

#define MAX_MEMORY_VAL 'M' /* getopt_long's value of --max-memory */
static int max_memory_given;

/* --max-memory VALUE into HPR_MAX_MEMORY (bytes): -1 (go on) or the exit code of an error. */
static int max_memory(const char *cmd, const char *value)
{
    unsigned long long bytes;
    char text[32];
    if (max_memory_given++)
        return cli_usage_error(cmd, "option --max-memory given twice (it takes one value)");
    if (cli_parse_size(value, &bytes) != 0)
        return cli_usage_error(cmd, "option --max-memory: '%s' is not a memory size (bytes, or a number with K, M, G "
                               "or T: 512M, 1.5G)", value);
    snprintf(text, sizeof text, "%llu", bytes);
    if (setenv("HPR_MAX_MEMORY", text, 1) != 0)
        return cli_error("option --max-memory: cannot set HPR_MAX_MEMORY");
    return -1;
}

/* What getopt_long returned for an option: -1 (go on), CLI_EXIT_OK after --help, or the exit
 * code of a usage error. */
static int option(const char *cmd, int c, char **argv, const cli_opt *opts, size_t nopts, const char *help)
{
    if (c == 'h') {
        fputs(help, stdout);
        return CLI_EXIT_OK;
    }
    if (c == MAX_MEMORY_VAL)
        return max_memory(cmd, optarg);
    if (c == ':')
        return cli_usage_error(cmd, "option %s needs a value", argv[optind - 1]);
    if (c == '?' && optopt >= 256)
        return cli_usage_error(cmd, "option %s takes no value", opts[optopt - 256].name);
    if (c == '?' && optopt == 'h')
        return cli_usage_error(cmd, "option --help takes no value");
    if (c == '?' && optopt)
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    if (c == '?')
        return refused(cmd, argv[optind - 1], opts, nopts);
    int rc = store(cmd, &opts[c - 256], optarg);
    return rc ? rc : -1;
}

static void build_table(const cli_opt *opts, size_t nopts, struct option *table)
{
    for (size_t k = 0; k < nopts; k++) {
        table[k].name = opts[k].name + 2; /* without "--" */
        table[k].has_arg = takes_value(&opts[k]) ? required_argument : no_argument;
        table[k].flag = NULL;
        table[k].val = 256 + (int)k;
    }
    table[nopts].name = "help";
    table[nopts].has_arg = no_argument;
    table[nopts].flag = NULL;
    table[nopts].val = 'h';
    table[nopts + 1].name = "max-memory";
    table[nopts + 1].has_arg = required_argument;
    table[nopts + 1].flag = NULL;
    table[nopts + 1].val = MAX_MEMORY_VAL;
    memset(&table[nopts + 2], 0, sizeof table[nopts + 2]);
}

/* cli_parse_args over argv as given (the leading options already in it). */
static int parse_argv(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts,
                      const char **pos, int max_pos, int *npos)
{
    struct option table[MAX_OPTS + 3];
    const char *env;
    int c;
    build_table(opts, nopts, table);
    opterr = 0;
    optind = 0; /* glibc: 0 restarts the scan from argv[1] */
    max_memory_given = 0;
    if (npos)
        *npos = 0;
    /* "-" first in the option string: positionals come back in order as c == 1, whatever
     * POSIXLY_CORRECT says; those after "--" are left at argv[optind..]. */
    while ((c = getopt_long(argc, argv, "-:h", table, NULL)) != -1) {
        int rc = c == 1 ? positional(cmd, optarg, pos, max_pos, npos) : option(cmd, c, argv, opts, nopts, help);
        if (rc >= 0)
            return rc;
    }
    for (int i = optind; i < argc; i++) {
        int rc = positional(cmd, argv[i], pos, max_pos, npos);
        if (rc >= 0)
            return rc;
    }
    unsigned long long bytes;
    if (!max_memory_given && (env = getenv("HPR_MAX_MEMORY")) && env[0] && cli_parse_size(env, &bytes) != 0)
        return cli_error("HPR_MAX_MEMORY='%s' is not a memory size (bytes, or a number with K, M, G or T: 512M, 1.5G)",
                         env);
    return -1;
}

/* The options given before the command (cli_leading_options), as "--name" "VALUE" pairs. */
#define MAX_LEADING 4
static char *leading[MAX_LEADING];
static int nleading;

int cli_parse_args(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts,
                   const char **pos, int max_pos, int *npos)
{
    char **all = NULL;
    int rc;
    if (nopts > MAX_OPTS)
        return cli_error("internal: %s has more than %d options", cmd, MAX_OPTS);
    if (getenv("HPR_LIST_OPTIONS"))
        return print_options(opts, nopts);
    if (nleading == 0 || argc < 1)
        return parse_argv(argc, argv, cmd, help, opts, nopts, pos, max_pos, npos);
    /* the command's name, then the leading options, then its own arguments: a leading option
     * stands before any "--" and is parsed first, as if given first after the command */
    all = malloc(((size_t)argc + (size_t)nleading + 1) * sizeof *all);
    if (!all) {
        rc = cli_error("%sout of memory for the arguments", cmd);
        goto out;
    }
    all[0] = argv[0];
    memcpy(all + 1, leading, (size_t)nleading * sizeof *all);
    memcpy(all + 1 + nleading, argv + 1, (size_t)(argc - 1) * sizeof *all);
    all[argc + nleading] = NULL;
    rc = parse_argv(argc + nleading, all, cmd, help, opts, nopts, pos, max_pos, npos);
out:
    free(all);
    return rc;
}

/* One option before the command: -1 (go on), or the exit code of --help, --version or an error. */
static int leading_option(int c, char **argv, const char *main_help, const char **json)
{
    static const char *const names[] = {"--threads", "--max-memory"};
    const char *name = c == 'T' ? names[0] : names[1];
    switch (c) {
    case 'h':
        fputs(main_help, stdout);
        return CLI_EXIT_OK;
    case 'V':
        printf("hyprove %s\n", HPR_VERSION_STRING);
        return CLI_EXIT_OK;
    case ':':
        return cli_usage_error("", "option %s needs a value", argv[optind - 1]);
    case '?':
        if (optopt == 'h' || optopt == 'V')
            return cli_usage_error("", "option --%s takes no value", optopt == 'h' ? "help" : "version");
        return optopt ? cli_usage_error("", "unknown option '-%c' before the command", optopt)
                      : cli_usage_error("", "unknown option '%.*s' before the command (before it: --threads T and "
                                        "--max-memory SIZE; --json FILE for the main job)",
                                        (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
    case 'J':
        if (*json)
            return cli_usage_error("", "option --json given twice (it takes one value)");
        *json = optarg;
        return -1;
    default:
        break;
    }
    for (int k = 0; k < nleading; k += 2)
        if (strcmp(leading[k], name) == 0)
            return cli_usage_error("", "option %s given twice (it takes one value)", name);
    leading[nleading++] = (char *)name;
    leading[nleading++] = optarg;
    return -1;
}

/* With no command (the main job): --max-memory applies now, --threads has nothing to apply to. */
static int main_job_options(void)
{
    for (int k = 0; k < nleading; k += 2) {
        if (strcmp(leading[k], "--threads") == 0)
            return cli_usage_error("", "option --threads needs a command: the main job measures one thread and "
                                   "every core");
        int rc = max_memory("", leading[k + 1]);
        if (rc >= 0)
            return rc;
    }
    nleading = 0;
    return -1;
}

int cli_leading_options(int argc, char **argv, const char *main_help, int *command, const char **json)
{
    static const struct option table[] = {{"threads", required_argument, NULL, 'T'},
                                          {"max-memory", required_argument, NULL, 'M'},
                                          {"json", required_argument, NULL, 'J'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};
    int c;
    *json = NULL;
    nleading = 0;
    opterr = 0;
    optind = 0;
    /* "+": stop at the first word that is not an option, the command */
    while ((c = getopt_long(argc, argv, "+:h", table, NULL)) != -1) {
        int rc = leading_option(c, argv, main_help, json);
        if (rc >= 0)
            return rc;
    }
    *command = optind;
    if (optind == argc)
        return main_job_options();
    if (*json)
        return cli_usage_error("", "'hyprove --json FILE' is the main job and takes no command; give a command's "
                               "--json after the command ('%s ... --json FILE')", argv[optind]);
    return -1;
}

int cli_parse_options(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts)
{
    return cli_parse_args(argc, argv, cmd, help, opts, nopts, NULL, 0, NULL);
}
