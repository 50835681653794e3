import { UsageError } from '../errors.js';
import type { ToolSpec } from './tool.js';

/** A `--tools` glob: `*` any run of characters, `?` one; nothing else is special (names are `[a-z0-9_]`). */
function globPattern(glob: string): RegExp {
  const body = glob.replace(/[*?]/g, (ch) => (ch === '*' ? '.*' : '.'));
  return new RegExp(`^${body}$`);
}

/**
 * The tools this server offers: the read-only ones, the writing ones too with `--allow-writes`, narrowed by
 * `--tools`. A glob that matches no tool is a usage error (a typo would otherwise serve nothing, silently); one that
 * matches only a writing tool without `--allow-writes` says so.
 */
export function selectTools(
  all: readonly ToolSpec[],
  opts: { allowWrites: boolean; tools: readonly string[] | undefined },
): ToolSpec[] {
  const allowed = all.filter((tool) => opts.allowWrites || !tool.writes);
  if (opts.tools === undefined) return allowed;
  const patterns = opts.tools.map((glob) => ({ glob, re: globPattern(glob) }));
  for (const { glob, re } of patterns) {
    if (allowed.some((tool) => re.test(tool.name))) continue;
    if (all.some((tool) => re.test(tool.name))) {
      throw new UsageError(
        `--tools '${glob}' names only tools that change the tenant`,
        'add --allow-writes to offer them',
      );
    }
    throw new UsageError(
      `--tools '${glob}' matches no tool`,
      `the tools are: ${all.map((tool) => tool.name).join(', ')}`,
    );
  }
  return allowed.filter((tool) => patterns.some(({ re }) => re.test(tool.name)));
}
