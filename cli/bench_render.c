/* cli/bench_render.c: `goscribe bench render` (not built yet). */
#include "cli/cli.h"

int bench_render(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_built("bench render");
}
