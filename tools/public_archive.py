#!/usr/bin/env python3
"""public_archive.py SYMBOLS INPUT.a OUTPUT.a OBJCOPY AR NM [LIB.a ...] -- CC [CC ARGS...]

Makes the installed libvkinfer.a from the engine's internal archive and the shader
compiler's archives (LIB.a: shaderc, glslang, SPIRV-Tools). All the engine's objects, and
the members of the LIB archives they need (linked as a group after them, so only what is
referenced comes in), are linked into one relocatable object (CC -r). Then every global
symbol but the public API (SYMBOLS, one name a line, from tools/api_symbols.py) is made
local: calls between the engine's files and into the compiler stay resolved inside that
object, and an application linking the archive meets only vki_* API names, never an
engine internal, a Vulkan loader symbol, or a glslang, SPIRV-Tools or C++ template symbol
that could clash with its own. The archive holds that one object. What stays undefined
in it is the C and C++ runtime's (libc, libm, libstdc++ or libc++, libdl, libpthread).

The compiler is C++, which needs two more steps than objcopy --keep-global-symbols:
  - GNU unique symbols (STB_GNU_UNIQUE: static locals of inline functions and templates)
    are one per process to the dynamic linker, and objcopy leaves them global; they are
    rebound as plain globals first, so that objcopy makes them local like the rest;
  - COMDAT groups (inline functions, templates, their typeinfo) are deduplicated by the
    linker by their signature's name, even where the signature symbol is now local: an
    application with its own copy of the same template or glslang class would have one
    copy discarded for the other. The group sections are removed, so every member
    section becomes an ordinary section of this object. typeinfo equality in libstdc++
    compares names, so exceptions and dynamic_cast still work on local typeinfo.

Fails when a name of SYMBOLS is not defined, or anything else stays global.
"""
import os
import struct
import subprocess
import sys

SHT_SYMTAB = 2
STB_GLOBAL = 1
STB_GNU_UNIQUE = 10


def rebind_unique(path):
    """Rewrites every STB_GNU_UNIQUE symbol of the ELF object at path as STB_GLOBAL, in
    place; returns how many. Binding sits in the high nibble of st_info, and both are
    non-local, so the symbol table's order (locals first) still holds."""
    with open(path, 'r+b') as f:
        data = bytearray(f.read())
        if data[:4] != b'\x7fELF':
            sys.exit(f'{path}: not an ELF object')
        is64 = data[4] == 2
        end = '<' if data[5] == 1 else '>'
        if is64:
            shoff, = struct.unpack_from(end + 'Q', data, 0x28)
            shentsize, shnum = struct.unpack_from(end + 'HH', data, 0x3a)
        else:
            shoff, = struct.unpack_from(end + 'I', data, 0x20)
            shentsize, shnum = struct.unpack_from(end + 'HH', data, 0x2e)
        if shnum == 0 and shoff:  # more sections than fit: the count is in section 0
            shnum, = struct.unpack_from(end + ('Q' if is64 else 'I'), data, shoff + (0x20 if is64 else 0x14))
        count = 0
        for i in range(shnum):
            sh = shoff + i * shentsize
            if is64:
                sh_type, = struct.unpack_from(end + 'I', data, sh + 4)
                offset, size = struct.unpack_from(end + 'QQ', data, sh + 0x18)
                entsize, = struct.unpack_from(end + 'Q', data, sh + 0x38)
                info_at = 4  # st_name(4), st_info(1), ...
            else:
                sh_type, = struct.unpack_from(end + 'I', data, sh + 4)
                offset, size = struct.unpack_from(end + 'II', data, sh + 0x10)
                entsize, = struct.unpack_from(end + 'I', data, sh + 0x24)
                info_at = 12  # st_name(4), st_value(4), st_size(4), st_info(1), ...
            if sh_type != SHT_SYMTAB or not entsize:
                continue
            for at in range(offset, offset + size, entsize):
                info = data[at + info_at]
                if info >> 4 == STB_GNU_UNIQUE:
                    data[at + info_at] = (STB_GLOBAL << 4) | (info & 0xf)
                    count += 1
        if count:
            f.seek(0)
            f.write(data)
    return count


def defined_globals(nm, obj):
    out = subprocess.run([nm, '-g', '--defined-only', '-P', obj], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def main():
    args = sys.argv[1:]
    if '--' not in args or args.index('--') < 6 or len(args) < args.index('--') + 2:
        sys.exit(__doc__)
    split = args.index('--')
    symbols, src, dst, objcopy, ar, nm = args[:6]
    libs, cc = args[6:split], args[split + 1:]
    with open(symbols, encoding='utf-8') as f:
        api = {line.strip() for line in f if line.strip()}
    work = dst + '.p'
    os.makedirs(work, exist_ok=True)
    obj = os.path.join(work, 'vkinfer.o')
    link = cc + ['-r', '-nostdlib', '-o', obj, '-Wl,--whole-archive', src, '-Wl,--no-whole-archive']
    if libs:
        link += ['-Wl,--start-group'] + libs + ['-Wl,--end-group']
    subprocess.run(link, check=True)
    rebind_unique(obj)
    subprocess.run([objcopy, '--keep-global-symbols=' + symbols, '--remove-section=.group', obj],
                   check=True)
    found = defined_globals(nm, obj)
    missing, extra = sorted(api - found), sorted(found - api)
    if missing:
        sys.exit(f'{src}: VKI_API functions declared in the public headers but not defined: '
                 f'{" ".join(missing)}')
    if extra:
        sys.exit(f'{obj}: global symbols left besides the API: {" ".join(extra[:20])}'
                 f'{" ..." if len(extra) > 20 else ""} ({len(extra)})')
    if os.path.exists(dst):
        os.remove(dst)
    subprocess.run([ar, 'rcs', dst, obj], check=True)
    os.remove(obj)


if __name__ == '__main__':
    main()
