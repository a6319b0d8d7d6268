/* kgate: one engine, four doors. Dispatches to the subcommand (table generated from the cmd_<name>.c present). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

#define KG_CMD(name)                                                                                                   \
    int kg_cmd_##name(int argc, char **argv);                                                                          \
    extern const char kg_cmd_##name##_help[];
#include "cmd/commands.def"
#undef KG_CMD

static const kg_command commands[] = {
#define KG_CMD(name) {#name, kg_cmd_##name, kg_cmd_##name##_help},
#include "cmd/commands.def"
#undef KG_CMD
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "kgate: Kubernetes admission control\n\nUsage:\n  kgate <command> [flags]\n\nCommands:\n");
    for (const kg_command *c = commands; c->name; c++)
        fprintf(f, "  %-12s %s\n", c->name, c->help);
    fprintf(f, "  %-12s %s\n", "version", "Print the version");
    fprintf(f, "\nRun 'kgate <command> --help' for a command's flags.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("kgate %s (Kubernetes v1.33 admission semantics)\n", KGATE_VERSION);
        return 0;
    }
    for (const kg_command *c = commands; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "kgate: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
