/* cli/bench_count.c: `goscribe bench count` (not built yet). */
#include "cli/cli.h"

int bench_count(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_built("bench count");
}
