import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';

/**
 * The profiles named by `--profiles <pattern,…>` (or `SVCADM_PROFILES`): names or globs where `*` is any run of
 * characters and `?` one character. Profile names are `[A-Za-z0-9_-]`, so no other character is special.
 * Returns the matched names in name order, each once. Throws a usage error (exit 2) on an empty pattern or when
 * nothing matches, listing the profiles there are.
 */
export function selectProfiles(patternList: string, names: readonly string[]): string[] {
  const patterns = parseProfilePatterns(patternList);
  const matchers = patterns.map(globToRegExp);
  const selected = [...new Set(names)].filter((name) => matchers.some((re) => re.test(name))).sort(byName);
  if (selected.length === 0) {
    const there =
      names.length === 0
        ? 'there are no profiles (add one with: svcadm profiles add <name>)'
        : `the profiles are: ${[...names].sort(byName).join(', ')}`;
    throw new UsageError(`--profiles '${neutralize(patternList)}' matches no profile; ${there}`);
  }
  return selected;
}

/**
 * The comma-separated patterns, trimmed; an empty list or an empty pattern is a usage error, which names where the
 * list came from (`--profiles` or `SVCADM_PROFILES`).
 */
export function parseProfilePatterns(patternList: string, named = '--profiles'): string[] {
  const patterns = patternList.split(',').map((p) => p.trim());
  if (patterns.some((p) => p === '')) {
    throw new UsageError(
      `${named} needs profile names or patterns separated by commas, got '${neutralize(patternList)}'`,
    );
  }
  for (const p of patterns) {
    if (!/^[A-Za-z0-9_*?-]{1,63}$/.test(p)) {
      throw new UsageError(`invalid profile pattern '${neutralize(p)}': use letters, digits, '-', '_', '*' and '?'`);
    }
  }
  return patterns;
}

/** True when `name` is one of the profiles `patternList` names. */
export function profileMatches(patternList: string, name: string): boolean {
  return parseProfilePatterns(patternList).some((p) => globToRegExp(p).test(name));
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[*?]/g, (c) => (c === '*' ? '.*' : '.')).replace(/-/g, '\\-');
  return new RegExp(`^${body}$`);
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
