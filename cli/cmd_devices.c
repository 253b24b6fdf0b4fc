/* cli/cmd_devices.c: `goscribe devices`: the V4L2 cameras and their modes. */
#include "cli/cli.h"

#include "capture/capture.h"

#include <stdio.h>

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: goscribe devices\n"
            "\n"
            "Lists the V4L2 video-capture devices (/dev/video*) with their native\n"
            "formats, sizes and frame rates.  Record from one with\n"
            "goscribe record /dev/videoN --width W --height H --fps F -o game.sgf\n"
            "(libv4l2 converts MJPEG/YUYV to BGR).\n"
            "\n"
            "Options:\n"
            CLI_HELP_OPTION
            CLI_EXIT_CODES CLI_EXIT_0 CLI_EXIT_1 CLI_EXIT_2);
}

int cmd_devices(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return GS_EXIT_OK;
        }
        cli_error("devices: unexpected argument %s (see goscribe devices --help)", argv[i]);
        return GS_EXIT_ERROR;
    }
    capture_device *devs = NULL;
    gs_error err = {0};
    int n = capture_list_devices(&devs, &err);
    if (n < 0) {
        cli_error("devices: %s", err.msg);
        return GS_EXIT_ERROR;
    }
    if (n == 0) {
        cli_error("devices: no cameras found");
        return GS_EXIT_NOBOARD;
    }
    for (int i = 0; i < n; i++) {
        const capture_device *d = &devs[i];
        printf("%s  %s (%s)\n", d->path, d->card, d->driver);
        for (int m = 0; m < d->n_modes; m++) {
            const capture_mode *md = &d->modes[m];
            printf("    %-4s %5dx%-5d", md->fourcc, md->width, md->height);
            for (int k = 0; k < md->n_fps; k++) printf(" %g", md->fps[k]);
            printf("%s\n", md->n_fps ? " fps" : "");
        }
    }
    capture_devices_free(devs, n);
    return GS_EXIT_OK;
}
