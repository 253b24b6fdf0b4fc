#!/usr/bin/python3
"""tests/drivers/rtsp_server.py PORT PATH VIDEO.avi: an RTSP server, as an IP
camera is one, serving VIDEO (an MJPEG AVI, as `goscribe render` writes) at
rtsp://127.0.0.1:PORT/PATH in real time, through GStreamer's RTSP server
(Debian: gir1.2-gst-rtsp-server-1.0, python3-gi, gstreamer1.0-plugins-good).
The frames are decoded and encoded again as baseline JPEG for RTP (RFC 2435
carries only that), with the video's own timestamps.  Prints "ready" once it
listens.  The video is played once: when it has ended and its media is shut
down the server exits (a client that reconnects then is refused, as a
camera switched off, rather than shown the game again from its start).
Exit 3 with "missing: ..." when a piece of GStreamer is not installed (the
caller skips)."""
import os
import sys

try:
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstRtspServer', '1.0')
    from gi.repository import GLib, Gst, GstRtspServer
except (ImportError, ValueError) as e:
    print('missing: GStreamer RTSP server for Python (%s)' % e, flush=True)
    sys.exit(3)


def main():
    port, path, video = sys.argv[1], sys.argv[2], sys.argv[3]
    Gst.init(None)
    for element in ('filesrc', 'avidemux', 'jpegdec', 'videoconvert', 'jpegenc', 'rtpjpegpay'):
        if Gst.ElementFactory.find(element) is None:
            print('missing: the GStreamer element %s' % element, flush=True)
            sys.exit(3)
    server = GstRtspServer.RTSPServer()
    server.set_address('127.0.0.1')
    server.set_service(port)
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch('( filesrc location="%s" ! avidemux ! jpegdec ! videoconvert ! video/x-raw,format=I420 '
                       '! jpegenc quality=90 ! rtpjpegpay name=pay0 pt=26 )' % video.replace('"', ''))
    factory.set_shared(True)
    loop = GLib.MainLoop()

    played = []

    def on_state(media, state):  # the pipeline's GstState
        if state == Gst.State.PLAYING:
            played.append(True)
        elif state == Gst.State.NULL and played:
            print('played', flush=True)
            loop.quit()

    factory.connect('media-configure', lambda f, media: media.connect('new-state', on_state))
    server.get_mount_points().add_factory(path, factory)
    if server.attach(None) == 0:
        print('cannot listen on 127.0.0.1:%s' % port, flush=True)
        sys.exit(1)
    print('ready', flush=True)
    loop.run()
    os._exit(0)  # at once: GStreamer's threads may hold a plain exit


if __name__ == '__main__':
    main()
