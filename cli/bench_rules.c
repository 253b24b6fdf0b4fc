/* cli/bench_rules.c: `goscribe bench rules` (not built yet). */
#include "cli/cli.h"

int bench_rules(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_built("bench rules");
}
