/* cli/cmd_render.c: `goscribe render` (not built yet). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_render(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        printf("usage: goscribe render ... (not built yet in this version)\n");
        return GS_EXIT_OK;
    }
    return cli_not_built("render");
}
