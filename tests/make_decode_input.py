#!/usr/bin/env python3
"""make_decode_input.py PHOTO.png SIZE OUT.f32

A model input from a photo, as vki_graph_set_input_image makes it with the letterbox on
and mean 127.5, std 127.5 (MediaPipe's face detectors' [-1, 1]): the photo fitted into
SIZE x SIZE keeping its aspect ratio and centred (the integer content rectangle of
engine/runtime/image.c), resized bilinearly with half-pixel centres and edges repeated, values
(p - 127.5) / 127.5, the margins 0 (a fill of 127.5); written as raw little-endian
float32 NHWC [1, SIZE, SIZE, 3]. Reads 8-bit RGB or RGBA PNGs, not interlaced, with
Python's zlib only. Prints the letterbox.

tests/data/decode/astronaut_128.f32 is `make_decode_input.py astronaut.png 128 ...` with
scikit-image's astronaut.png (512x512, public domain; Debian's python3-skimage has it).
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit(f'{path}: not a PNG')
    pos, idat, hdr = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = hdr
    if depth != 8 or color not in (2, 6) or interlace:
        sys.exit(f'{path}: need 8-bit RGB or RGBA, not interlaced')
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def content(pw, ph, w, h):
    """engine/runtime/image.c's content(): the photo's rectangle in the input."""
    cw, ch = w, h
    if pw * h >= ph * w:
        ch = min(max((2 * ph * w + pw) // (2 * pw), 1), h)
    else:
        cw = min(max((2 * pw * h + ph) // (2 * ph), 1), w)
    return (w - cw) // 2, (h - ch) // 2, cw, ch


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    pw, ph, bpp, rows = read_png(path)
    cx, cy, cw, ch = content(pw, ph, size, size)
    sx, sy = pw / cw, ph / ch
    values = []
    for y in range(size):
        for x in range(size):
            if not (cx <= x < cx + cw and cy <= y < cy + ch):
                values += [0.0, 0.0, 0.0]
                continue
            fx = min(max((x - cx + 0.5) * sx - 0.5, 0.0), pw - 1.0)
            fy = min(max((y - cy + 0.5) * sy - 0.5, 0.0), ph - 1.0)
            x0, y0 = int(fx), int(fy)
            x1, y1 = min(x0 + 1, pw - 1), min(y0 + 1, ph - 1)
            ax, ay = fx - x0, fy - y0
            for c in range(3):
                p00, p01 = rows[y0][x0 * bpp + c], rows[y0][x1 * bpp + c]
                p10, p11 = rows[y1][x0 * bpp + c], rows[y1][x1 * bpp + c]
                top = p00 + (p01 - p00) * ax
                bottom = p10 + (p11 - p10) * ax
                p = top + (bottom - top) * ay
                values.append((p - 127.5) / 127.5)
    with open(out, 'wb') as f:
        f.write(struct.pack(f'<{len(values)}f', *values))
    print(f'{path}: {pw}x{ph} into {size}x{size}: content x {cx} y {cy} {cw}x{ch}')


if __name__ == '__main__':
    main()
