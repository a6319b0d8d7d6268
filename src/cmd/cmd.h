#ifndef KG_CMD_H
#define KG_CMD_H

typedef struct kg_command {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command name */
    const char *help;                 /* one line */
} kg_command;

#endif
