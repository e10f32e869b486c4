#!/usr/bin/env python3
"""Helpers for Fuzz/run: choosing seed files, listing a target's object files, summarising logs.

  fuzz_support.py seeds FIXTURES REGRESSIONS OUT_DIR MAX_BYTES
  fuzz_support.py objects BIN_PATH TARGET
  fuzz_support.py summary LOG
"""
import hashlib
import json
import os
import re
import shutil
import sys

# Fuzz target name -> (module, which seed formats it gets, dictionary files)
TARGETS = {
    'binary': ('FuzzBinary', {'binary'}, ['binary']),
    'xml': ('FuzzXML', {'xml'}, ['xml']),
    'openstep': ('FuzzOpenStep', {'openstep', 'json'}, ['openstep']),
    'json': ('FuzzJSON', {'json', 'openstep'}, ['json']),
    'detect': ('FuzzDetect', {'binary', 'xml', 'openstep', 'json'}, ['binary', 'xml', 'openstep', 'json']),
    'roundtrip': ('FuzzRoundTrip', {'binary', 'xml', 'openstep', 'json'}, ['binary', 'xml', 'openstep', 'json']),
    'archive': ('FuzzArchive', {'binary', 'xml'}, ['archive', 'binary']),
}


def sniff(path, data):
    """The format a seed most likely exercises: by content, with the corpus folder as a hint."""
    if data.startswith(b'bplist'):
        return 'binary'
    # UTF-16/32 text shows its ASCII with zero bytes in between; look at it without them.
    head = data[:1024].replace(b'\x00', b'')
    if b'<?xml' in head or b'<plist' in head or b'<!DOCTYPE' in head:
        return 'xml'
    folder = path.split('/')[0]
    if folder == 'json' or path.endswith('.json') or head.lstrip(b'\xef\xbb\xbf\xff\xfe \t\r\n').startswith(b'['):
        return 'json'
    return 'openstep'


def copy_seed(data, out_dir):
    # Content-named, as libFuzzer names corpus files, so the same bytes are copied once.
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out_dir, name), 'wb') as f:
        f.write(data)


def seeds(fixtures, regressions, out_root, max_bytes):
    """Copies every fixture of MANIFEST.tsv (and every committed regression input) up to
    max_bytes into out_root/<target>/ for the targets that read its format."""
    counts = {name: 0 for name in TARGETS}
    for name in TARGETS:
        directory = os.path.join(out_root, name)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
    files = []
    manifest = os.path.join(fixtures, 'MANIFEST.tsv') if fixtures else None
    if manifest and os.path.isfile(manifest):
        with open(manifest, encoding='utf-8') as f:
            next(f)
            for line in f:
                path = line.split('\t', 1)[0]
                files.append((path, os.path.join(fixtures, path), None))
    if os.path.isdir(regressions):
        for target in sorted(os.listdir(regressions)):
            folder = os.path.join(regressions, target)
            if os.path.isdir(folder):
                for entry in sorted(os.listdir(folder)):
                    files.append((entry, os.path.join(folder, entry), target))
    for path, full, only_target in files:
        try:
            with open(full, 'rb') as f:
                data = f.read()
        except OSError:
            continue
        if len(data) > max_bytes or not data:
            continue
        kind = sniff(path, data)
        for name, (_, formats, _) in TARGETS.items():
            # A regression input seeds its own target and the two that read every format.
            wanted = (only_target == name or name in ('detect', 'roundtrip') or kind in formats) if only_target else kind in formats
            if wanted:
                copy_seed(data, os.path.join(out_root, name))
                counts[name] += 1
    print(' '.join('%s=%d' % (name, counts[name]) for name in TARGETS))


def objects(bin_path, target):
    """The object files of a fuzz module and every module it depends on, from SwiftPM's build
    description, so the link line follows Package.swift instead of repeating it."""
    module = TARGETS[target][0]
    with open(os.path.join(bin_path, 'description.json'), encoding='utf-8') as f:
        dependency_map = json.load(f)['targetDependencyMap']
    wanted, pending = [], [module]
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.append(name)
        pending.extend(dependency_map.get(name, []))
    paths = []
    for name in wanted:
        build_dir = os.path.join(bin_path, name + '.build')
        if not os.path.isdir(build_dir):
            continue  # system-library modules (CLibXML2) have no objects
        for root, _, names in os.walk(build_dir):
            paths += [os.path.join(root, n) for n in sorted(names) if n.endswith('.o')]
    print('\n'.join(paths))


STATUS = re.compile(r'^#(\d+)\s+\S+\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+).*?exec/s: (\d+)')


def summary(log):
    """One line of numbers from a libFuzzer log: executions, coverage, corpus size, speed, memory."""
    execs = cov = ft = corpus = speed = rss = None
    with open(log, errors='replace') as f:
        for line in f:
            m = STATUS.match(line)
            if m:
                execs, cov, ft, corpus, speed = m.group(1), m.group(2), m.group(3), m.group(4), m.group(6)
            elif line.startswith('stat::number_of_executed_units:'):
                execs = line.split(':')[-1].strip()
            elif line.startswith('stat::average_exec_per_sec:'):
                speed = line.split(':')[-1].strip()
            elif line.startswith('stat::peak_rss_mb:'):
                rss = line.split(':')[-1].strip()
    print('execs=%s exec/s=%s cov=%s ft=%s corpus=%s peak_rss_mb=%s' % (execs, speed, cov, ft, corpus, rss))


if __name__ == '__main__':
    command = sys.argv[1] if len(sys.argv) > 1 else ''
    if command == 'seeds' and len(sys.argv) == 6:
        seeds(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif command == 'objects' and len(sys.argv) == 4:
        objects(sys.argv[2], sys.argv[3])
    elif command == 'summary' and len(sys.argv) == 3:
        summary(sys.argv[2])
    elif command == 'targets':
        print(' '.join(TARGETS))
    elif command == 'dicts' and len(sys.argv) == 3:
        print(' '.join(TARGETS[sys.argv[2]][2]))
    else:
        sys.exit(__doc__)
