/* cli/bench_scan.c: `goscribe bench scan` (not built yet). */
#include "cli/cli.h"

int bench_scan(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_built("bench scan");
}
