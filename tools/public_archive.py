#!/usr/bin/env python3
"""public_archive.py SYMBOLS INPUT.a OUTPUT.a OBJCOPY AR NM -- CC [CC ARGS...]

Makes the installed libvkinfer.a from the engine's internal archive. All its objects are
linked into one relocatable object (CC -r), and every global symbol but the public API
(SYMBOLS, one name a line, from tools/api_symbols.py) is made local: internal calls between
the engine's files stay resolved inside that object, and an application linking the
archive meets only vki_* API names, never an engine internal or a Vulkan loader symbol
that could clash with its own. The archive holds that one object.

Fails when a name of SYMBOLS is not defined, or anything else stays global.
"""
import os
import subprocess
import sys


def defined_globals(nm, obj):
    out = subprocess.run([nm, '-g', '--defined-only', '-P', obj], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def main():
    args = sys.argv[1:]
    if '--' not in args or args.index('--') != 6 or len(args) < 8:
        sys.exit(__doc__)
    symbols, src, dst, objcopy, ar, nm = args[:6]
    cc = args[7:]
    with open(symbols, encoding='utf-8') as f:
        api = {line.strip() for line in f if line.strip()}
    work = dst + '.p'
    os.makedirs(work, exist_ok=True)
    obj = os.path.join(work, 'vkinfer.o')
    subprocess.run(cc + ['-r', '-nostdlib', '-o', obj, '-Wl,--whole-archive', src,
                         '-Wl,--no-whole-archive'], check=True)
    subprocess.run([objcopy, '--keep-global-symbols=' + symbols, obj], check=True)
    found = defined_globals(nm, obj)
    missing, extra = sorted(api - found), sorted(found - api)
    if missing:
        sys.exit(f'{src}: VKI_API functions declared in the public headers but not defined: '
                 f'{" ".join(missing)}')
    if extra:
        sys.exit(f'{obj}: global symbols left besides the API: {" ".join(extra)}')
    if os.path.exists(dst):
        os.remove(dst)
    subprocess.run([ar, 'rcs', dst, obj], check=True)
    os.remove(obj)


if __name__ == '__main__':
    main()
