/* cli/cmd_check.c: `goscribe check` (not built yet). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_check(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        printf("usage: goscribe check ... (not built yet in this version)\n");
        return GS_EXIT_OK;
    }
    return cli_not_built("check");
}
