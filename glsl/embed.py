#!/usr/bin/env python3
"""embed.py [--hash-only] OUT.c OUT_KERNELS.h OUT_VARIANTS.h common.glsl KERNEL.comp ...

Writes
  OUT.c           the GLSL sources as a C table, so the library never needs glsl/ at run time
                  (vki_glsl_source), and each kernel's source hash (vki_glsl_source_hash:
                  FNV-1a 64 of common.glsl, a NUL and the kernel, as vki_cache_hash computes
                  it), which kernel packs key their entries by. With --hash-only (a library
                  built without the shader compiler) only the hashes;
  OUT_KERNELS.h   `#define VKI_KERNEL_<name> "<name>"` per glsl/<name>.comp, and the X-macro
                  VKI_KERNEL_LIST(X): op files name their kernels through these, so a kernel
                  that does not exist fails the build;
  OUT_VARIANTS.h  the kernels' variant tables as a C array (static: include it once), which
                  tests/test_kernels.c compiles in every precision.

Variant tables. Every kernel lists, in comment lines, each combination of #defines the op
files can emit for it, with representative values for shapes:

  // variant: @bindings=3 {OP_ADD|OP_SUB} $ACT A_W=6 A_H=5 A_C=7 A_S=2 ...

  NAME            #define NAME 1
  NAME=VALUE      #define NAME VALUE (no spaces in VALUE)
  @bindings=N     the dispatch's binding count (STORE4_0 .. STORE4_<N-1>); N may also be a
                  NAME defined in the variant, or NAME+K
  {a|b|c}         one variant per alternative, expanded as text (shell-like: an alternative
                  may be empty or hold several tokens; {1..15} is a range); several groups
                  give every combination
  $SET            the text of `// variant-set: SET = ...` (in any file, e.g. common.glsl)
  [TOKENS]*N      TOKENS repeated N times (N a number or a NAME defined in the variant),
                  with # replaced by 0, 1, ... (concat.comp's inputs)

A comment line starting with + continues the line before (no backslash: GLSL would
join the next line into the comment, and glslang warns). The build fails when a
kernel has no variant, a line does not parse, or the kernel tests a macro in #if/#ifdef
that no variant defines.
"""
import os
import re
import sys

IDENT = r'[A-Za-z_][A-Za-z0-9_]*'
# Names in #if lines that no variant defines: the precision macros the engine prepends
# (the test adds them for each precision) and the `defined` operator.
PROVIDED = {'VKI_FP16_STORAGE', 'VKI_FP16_ARITH', 'defined'}


def fail(message):
    sys.stderr.write('embed.py: %s\n' % message)
    sys.exit(1)


def c_string(text):
    out = []
    for line in text.splitlines(keepends=True):
        esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
        out.append('    "%s"' % esc)
    return '\n'.join(out) if out else '    ""'


def write(path, lines):
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


# ---- variant tables -------------------------------------------------------------------

def table_lines(path, text):
    """(line number, kind, text) of each `// variant:` / `// variant-set:` entry, with
    continuation lines joined."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r'\s*//\s*variant(-set)?:(.*)$', lines[i])
        if not m:
            i += 1
            continue
        start, body = i + 1, m.group(2).strip()
        i += 1
        while i < len(lines):
            more = re.match(r'\s*//\s*\+(.*)$', lines[i])
            if not more:
                break
            body += ' ' + more.group(1).strip()
            i += 1
        out.append((start, 'set' if m.group(1) else 'variant', body))
    return out


def expand_sets(where, body, sets):
    def one(m):
        if m.group(1) not in sets:
            fail('%s: unknown variant set $%s' % (where, m.group(1)))
        return sets[m.group(1)]
    return re.sub(r'\$(' + IDENT + ')', one, body)


def expand_braces(where, text):
    start = text.find('{')
    if start < 0:
        if '}' in text:
            fail('%s: unmatched }' % where)
        return [text]
    end = text.find('}', start)
    if end < 0 or '{' in text[start + 1:end]:
        fail('%s: unmatched or nested {' % where)
    inner = text[start + 1:end]
    rng = re.fullmatch(r'\s*(-?\d+)\.\.(-?\d+)\s*', inner)
    alts = ([str(v) for v in range(int(rng.group(1)), int(rng.group(2)) + 1)] if rng
            else inner.split('|'))
    out = []
    for alt in alts:
        out += expand_braces(where, text[:start] + alt + text[end + 1:])
    return out


def parse_tokens(where, text):
    """[(name, value)] and the @bindings expression of one token list."""
    defines, bindings = [], None
    for tok in text.split():
        m = re.fullmatch(r'@bindings=(\S+)', tok)
        if m:
            if bindings is not None:
                fail('%s: @bindings given twice' % where)
            bindings = m.group(1)
            continue
        m = re.fullmatch('(' + IDENT + ')(?:=(\\S+))?', tok)
        if not m:
            fail('%s: cannot read token "%s"' % (where, tok))
        defines.append((m.group(1), m.group(2)))   # None: written bare, defined as 1
    return defines, bindings


def int_value(where, expr, values):
    m = re.fullmatch(r'(-?\d+)|(' + IDENT + r')(?:\+(\d+))?', expr)
    if not m:
        fail('%s: cannot read "%s" as a number' % (where, expr))
    if m.group(1):
        return int(m.group(1))
    name = m.group(2)
    if name not in values or not re.fullmatch(r'-?\d+', values[name]):
        fail('%s: "%s" needs %s defined as a number in the variant' % (where, expr, name))
    return int(values[name]) + int(m.group(3) or 0)


def expand_variant(where, text):
    """One variant (no braces left): its defines, the labelled part, and its bindings."""
    groups = []

    def hold(m):
        groups.append((m.group(1), m.group(2)))
        return ' '
    outer = re.sub(r'\[([^\[\]]*)\]\*(\S+)', hold, text)
    if '[' in outer or ']' in outer:
        fail('%s: unmatched [ or a group without *COUNT' % where)
    defines, bindings = parse_tokens(where, outer)
    values = {name: value or '1' for name, value in defines}
    labelled = list(defines)
    for body, count in groups:
        for k in range(int_value(where, count, values)):
            more, extra = parse_tokens(where, body.replace('#', str(k)))
            if extra is not None:
                fail('%s: @bindings inside a [group]' % where)
            defines += more
    seen = set()
    for name, _ in defines:
        if name in seen:
            fail('%s: %s is defined twice' % (where, name))
        seen.add(name)
    if bindings is None:
        fail('%s: no @bindings=N' % where)
    defines = [(name, value or '1') for name, value in defines]
    n = int_value(where, bindings, dict(defines))
    if not 1 <= n <= 16:
        fail('%s: @bindings=%d, need 1 to 16' % (where, n))
    return defines, labelled, n


def tested_macros(text):
    """Identifiers a kernel tests in #if / #elif / #ifdef / #ifndef."""
    names = set()
    for line in text.splitlines():
        m = re.match(r'\s*#\s*(if|elif|ifdef|ifndef)\b(.*)$', line)
        if m:
            names.update(re.findall(IDENT, m.group(2).split('//')[0]))
    return names - PROVIDED


def defined_macros(text):
    return set(re.findall(r'^\s*#\s*define\s+(' + IDENT + ')', text, re.M))


def variants_of(path, name, text, sets, common_text):
    entries = [e for e in table_lines(path, text) if e[1] == 'variant']
    if not entries:
        fail('%s: no `// variant:` lines; list every combination of #defines the op files '
             'emit for this kernel (see glsl/embed.py)' % path)
    variants = []
    for line, _, body in entries:
        where = '%s:%d' % (path, line)
        for text_variant in expand_braces(where, expand_sets(where, body, sets)):
            defines, labelled, n = expand_variant(where, text_variant)
            variants.append({'line': line, 'defines': defines, 'labelled': labelled,
                             'bindings': n})
    covered = set(d for v in variants for d, _ in v['defines'])
    missing = tested_macros(text) - covered - defined_macros(text) - defined_macros(common_text)
    if missing:
        fail('%s: #if tests %s, which no variant defines' % (path, ', '.join(sorted(missing))))
    # Labels name what sets a variant apart from the kernel's others.
    common = set(map(tuple, variants[0]['labelled']))
    for v in variants[1:]:
        common &= set(map(tuple, v['labelled']))
    base = os.path.basename(path)
    for v in variants:
        parts = [t[0] if t[1] is None else '%s=%s' % t for t in v['labelled']
                 if tuple(t) not in common]
        v['label'] = ' '.join(['%s:%d' % (base, v['line'])] + parts)
        v['kernel'] = name
    return variants


# ---- outputs --------------------------------------------------------------------------

FNV_SEED = 1469598103934665603
FNV_PRIME = 1099511628211


def fnv1a64(data, h=FNV_SEED):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xffffffffffffffff
    return h


def sources_c(sources, hash_only):
    parts = ['/* Generated by glsl/embed.py from glsl/: do not edit. */',
             '#include <stddef.h>', '#include <stdint.h>', '#include <string.h>', '']
    common = ''.join(text for name, _, text in sources if name == 'common')
    kernels = [(name, text) for name, path, text in sources if path.endswith('.comp')]
    parts.append('/* FNV-1a 64 of common.glsl, a NUL byte and the kernel\'s text. */')
    parts.append('static const struct { const char *name; uint64_t hash; } hashes[] = {')
    for name, text in kernels:
        h = fnv1a64((common + '\0' + text).encode('utf-8'))
        parts.append('    {"%s", 0x%016xull},' % (name, h))
    parts.append('};\n')
    parts.append('uint64_t vki_glsl_source_hash(const char *name) {')
    parts.append('    for (size_t i = 0; i < sizeof hashes / sizeof hashes[0]; i++)')
    parts.append('        if (!strcmp(hashes[i].name, name)) return hashes[i].hash;')
    parts.append('    return 0;')
    parts.append('}')
    if hash_only:
        return parts
    parts.append('')
    for i, (_, _, text) in enumerate(sources):
        parts.append('static const char src_%d[] =\n%s;\n' % (i, c_string(text)))
    parts.append('static const struct { const char *name; const char *text; } table[] = {')
    for i, (name, _, _) in enumerate(sources):
        parts.append('    {"%s", src_%d},' % (name, i))
    parts.append('};\n')
    parts.append('const char *vki_glsl_source(const char *name) {')
    parts.append('    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)')
    parts.append('        if (!strcmp(table[i].name, name)) return table[i].text;')
    parts.append('    return NULL;')
    parts.append('}')
    return parts


def kernels_h(kernels):
    parts = ['/* Generated by glsl/embed.py from the glsl/ kernels: do not edit.',
             ' * The kernels there are, by name: a dispatch names its kernel through these, so',
             ' * a misspelt or missing kernel fails the build. */',
             '#ifndef VKI_GLSL_KERNELS_H', '#define VKI_GLSL_KERNELS_H', '']
    for name in kernels:
        parts.append('#define VKI_KERNEL_%s "%s"' % (name, name))
    parts += ['', '/* X(name) for every kernel. */', '#define VKI_KERNEL_LIST(X) \\']
    parts += ['    X(%s) \\' % name for name in kernels[:-1]]
    parts += ['    X(%s)' % kernels[-1], '', '#endif']
    return parts


def variants_h(variants):
    parts = ['/* Generated by glsl/embed.py from the `// variant:` tables of the glsl/ kernels: do',
             ' * not edit. Every combination of #defines the op files emit for each kernel, with',
             ' * representative values for shapes. Static data: include it from one file. */',
             '#ifndef VKI_GLSL_VARIANTS_H', '#define VKI_GLSL_VARIANTS_H', '',
             '#include "glsl_kernels.h"', '',
             'typedef struct vki_kernel_case {',
             '    const char *kernel;     /* VKI_KERNEL_<name> */',
             '    const char *label;      /* "<kernel>.comp:<line> <what sets it apart>" */',
             '    const char *defines;    /* "#define NAME VALUE\\n" lines, as op files emit */',
             '    int n_bindings;',
             '} vki_kernel_case;', '',
             'static const vki_kernel_case vki_kernel_cases[] = {']
    for v in variants:
        text = ''.join('#define %s %s\\n' % d for d in v['defines'])
        parts.append('    {VKI_KERNEL_%s, "%s",\n     "%s", %d},' %
                     (v['kernel'], v['label'].replace('"', '\\"'), text.replace('"', '\\"'),
                      v['bindings']))
    parts += ['};', '',
              '#define VKI_KERNEL_CASE_COUNT '
              '(sizeof vki_kernel_cases / sizeof vki_kernel_cases[0])', '', '#endif']
    return parts


def main():
    args = sys.argv[1:]
    hash_only = bool(args) and args[0] == '--hash-only'
    if hash_only:
        args = args[1:]
    if len(args) < 4:
        fail('usage: embed.py [--hash-only] OUT.c OUT_KERNELS.h OUT_VARIANTS.h FILE...')
    out_c, out_kernels, out_variants, paths = args[0], args[1], args[2], args[3:]
    sources = []
    for path in paths:
        name, ext = os.path.splitext(os.path.basename(path))
        if not re.fullmatch(IDENT, name):
            fail('%s: a kernel name must be a C identifier' % path)
        if any(name == seen for seen, _, _ in sources):
            fail('%s: a second file named %s' % (path, name))
        with open(path, encoding='utf-8') as f:
            sources.append((name, path, f.read()))
    sets = {}
    for name, path, text in sources:
        for line, kind, body in table_lines(path, text):
            m = re.fullmatch('(' + IDENT + r')\s*=\s*(.*)', body)
            if kind != 'set':
                continue
            if not m or m.group(1) in sets:
                fail('%s:%d: need `variant-set: NAME = TEXT`, NAME new' % (path, line))
            sets[m.group(1)] = m.group(2)
    common_text = ''.join(text for name, _, text in sources if name == 'common')
    kernels = sorted((name, path, text) for name, path, text in sources if path.endswith('.comp'))
    if not kernels:
        fail('no kernels')
    variants = []
    for name, path, text in kernels:
        variants += variants_of(path, name, text, sets, common_text)
    write(out_c, sources_c(sources, hash_only))
    write(out_kernels, kernels_h([name for name, _, _ in kernels]))
    write(out_variants, variants_h(variants))


if __name__ == '__main__':
    main()
