#!/usr/bin/env python3
"""Damages chosen video frames of an MJPEG AVI in place, for the tests of
broken frames (tests/cli_record_kill.sh, tests/cli_fakecam.sh).

usage: avi_damage.py FILE.avi zero|garble FRAMES
  FRAMES: comma list of frame numbers or ranges, 0-based: 100  or 0-2,60-109
  zero    overwrites the frame's JPEG data with zero bytes
  garble  scrambles every 7th byte after the JPEG start marker
Prints how many frames the file has and how many were damaged."""
import struct
import sys


def frame_chunks(data):
    """(offset of the data, size) of each video chunk ('##dc' / '##db')."""
    out = []

    def walk(start, end):
        p = start
        while p + 8 <= end:
            cid = data[p:p + 4]
            size = struct.unpack('<I', data[p + 4:p + 8])[0]
            if cid in (b'RIFF', b'LIST'):
                walk(p + 12, min(end, p + 8 + size))
            elif cid[2:4] in (b'dc', b'db'):
                out.append((p + 8, size))
            p += 8 + size + (size & 1)

    walk(0, len(data))
    return out


def frame_set(spec):
    idx = set()
    for part in spec.split(','):
        a, _, b = part.partition('-')
        idx.update(range(int(a), int(b or a) + 1))
    return idx


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ('zero', 'garble'):
        sys.exit(__doc__)
    path, mode, spec = sys.argv[1:]
    with open(path, 'rb') as f:
        data = bytearray(f.read())
    chunks = frame_chunks(data)
    idx = sorted(i for i in frame_set(spec) if i < len(chunks))
    for i in idx:
        off, size = chunks[i]
        if mode == 'zero':
            data[off:off + size] = bytes(size)
        else:
            for k in range(off + 2, off + size, 7):
                data[k] = (data[k] * 31 + 17) & 0xff
    with open(path, 'wb') as f:
        f.write(data)
    print(len(chunks), 'frames;', len(idx), 'damaged')


main()
