#!/usr/bin/env python3
"""api_symbols.py HEADER OUT.map OUT.sym

The public API is every function vkinfer.h declares with VKI_API; nothing else leaves the
library. From the header this writes

  OUT.map   the linker version script of libvkinfer.so: those names global, all else local;
  OUT.sym   the same names, one a line, for objcopy --keep-global-symbols (libvkinfer.a,
            tools/public_archive.py) and for tests/install_check.sh to compare against.

Fails when the header declares none, or declares one twice.
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
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    header, map_path, sym_path = sys.argv[1:]
    with open(header, encoding='utf-8') as f:
        names = api_names(f.read())
    if not names:
        sys.exit(f'{header}: no VKI_API declarations')
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        sys.exit(f'{header}: declared twice: {" ".join(twice)}')
    names.sort()
    with open(map_path, 'w', encoding='utf-8') as f:
        f.write('/* Generated from vkinfer.h by tools/api_symbols.py: the VKI_API functions. */\n')
        f.write('{\n  global:\n')
        f.writelines(f'    {n};\n' for n in names)
        f.write('  local:\n    *;\n};\n')
    with open(sym_path, 'w', encoding='utf-8') as f:
        f.writelines(f'{n}\n' for n in names)


if __name__ == '__main__':
    main()
