#!/usr/bin/env python3
"""api_symbols.py OUT.map OUT.sym HEADER...

The public API is every function the public headers (vkinfer.h, vkinfer_decode.h) declare
with VKI_API; nothing else leaves the library. From the headers this writes

  OUT.map   the linker version script of libvkinfer.so: those names global, all else local;
  OUT.sym   the same names, one a line, for objcopy --keep-global-symbols (libvkinfer.a,
            tools/public_archive.py) and for tests/install_check.sh to compare against.

Fails when a header declares none, or a name is declared twice (in one header or two).
"""
import re
import sys


def api_names(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    # Preprocessor lines (the VKI_API definitions themselves), with their continuations.
    text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
    return re.findall(r'\bVKI_API\b[^;(]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(', text)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    map_path, sym_path, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    names = []
    for header in headers:
        with open(header, encoding='utf-8') as f:
            found = api_names(f.read())
        if not found:
            sys.exit(f'{header}: no VKI_API declarations')
        names += found
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        sys.exit(f'{" ".join(headers)}: declared twice: {" ".join(twice)}')
    names.sort()
    with open(map_path, 'w', encoding='utf-8') as f:
        f.write('/* Generated from the public headers by tools/api_symbols.py: the VKI_API '
                'functions. */\n')
        f.write('{\n  global:\n')
        f.writelines(f'    {n};\n' for n in names)
        f.write('  local:\n    *;\n};\n')
    with open(sym_path, 'w', encoding='utf-8') as f:
        f.writelines(f'{n}\n' for n in names)


if __name__ == '__main__':
    main()
