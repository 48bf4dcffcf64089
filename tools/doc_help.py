#!/usr/bin/env python3
"""doc_help.py VKINFER [DOC]: rewrites the help blocks of docs/cli.md (each fenced block
after a `<!-- help: VERB -->` line) with what `VKINFER VERB --help` prints, so that the
page quotes the tool exactly (tests/test_cli.py checks that it does)."""
import os
import subprocess
import sys


def main():
    cli = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'docs', 'cli.md')
    with open(doc, encoding='utf-8') as f:
        parts = f.read().split('<!-- help:')
    out = [parts[0]]
    for block in parts[1:]:
        verb = block[:block.index('-->')].strip()
        head, rest = block.split('```\n', 1)
        tail = rest.split('\n```', 1)[1]
        printed = subprocess.run([cli] + ([verb, '--help'] if verb else ['--help']),
                                 capture_output=True, text=True, check=True).stdout
        out.append(head + '```\n' + printed.rstrip('\n') + '\n```' + tail)
    with open(doc, 'w', encoding='utf-8') as f:
        f.write('<!-- help:'.join(out))


if __name__ == '__main__':
    main()
