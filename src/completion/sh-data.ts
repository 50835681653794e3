import { allCommands, type CommandSpec, globalOptions, type OptionSpec, type ValueSpec } from './model.js';

/** A single-quoted word for bash and zsh. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const HELP_ENTRY = 'help:show help for a command';

function entries(items: readonly string[]): string {
  return `(${items.map(shQuote).join(' ')})`;
}

function optionEntries(options: readonly OptionSpec[]): string[] {
  return options.flatMap((o) => o.names.map((n) => `${n}:${o.description}`));
}

function valueLines(spec: ValueSpec | undefined): string {
  if (spec === undefined) return '_svcadm_k=flag';
  if (spec.kind === 'choices' || spec.kind === 'list')
    return `_svcadm_k=${spec.kind}; _svcadm_r=${entries(spec.values)}`;
  return `_svcadm_k=${spec.kind}`;
}

const key = (path: readonly string[]): string => shQuote(path.join(' '));

/**
 * Data functions shared by the bash and zsh scripts (the syntax used is common to both). Each sets `_svcadm_r`
 * (an array of `name:description` or values) and `_svcadm_k` (the kind of value: flag, any, choices, list,
 * profiles, file) for a command path such as `events tail`.
 */
export function shDataFunctions(root: CommandSpec): string {
  const commands = allCommands(root);
  const globals = globalOptions(root);
  const globalNames = new Set(globals.flatMap((o) => o.names));
  const out: string[] = [];

  out.push('# Sets _svcadm_r to the subcommands of the command path $1, as name:description.');
  out.push('_svcadm_commands() {', '  case "$1" in');
  for (const c of commands) {
    if (c.commands.length === 0) continue;
    const items = [...c.commands.map((s) => `${s.name}:${s.description}`), ...(c.helpCommand ? [HELP_ENTRY] : [])];
    out.push(`    ${key(c.path)}) _svcadm_r=${entries(items)} ;;`);
  }
  out.push('    *) _svcadm_r=() ;;', '  esac', '}', '');

  out.push('# Sets _svcadm_r to the options valid at the command path $1 (its own, then the global ones).');
  out.push('_svcadm_options() {', '  case "$1" in');
  for (const c of commands) {
    const own = c.options.filter((o) => !o.names.some((n) => globalNames.has(n)));
    if (own.length > 0) out.push(`    ${key(c.path)}) _svcadm_r=${entries(optionEntries(own))} ;;`);
  }
  out.push('    *) _svcadm_r=() ;;', '  esac');
  out.push(`  _svcadm_r+=${entries(optionEntries(globals))}`, '}', '');

  out.push('# Sets _svcadm_k (and _svcadm_r) to what option $2 takes at the command path $1.');
  out.push('_svcadm_value() {', '  _svcadm_r=()', '  case "$1|$2" in');
  for (const c of commands) {
    for (const o of c.options) {
      if (o.value === undefined || o.names.some((n) => globalNames.has(n))) continue;
      const pattern = o.names.map((n) => shQuote(`${c.path.join(' ')}|${n}`)).join('|');
      out.push(`    ${pattern}) ${valueLines(o.value)} ;;`);
    }
  }
  for (const o of globals) {
    if (o.value === undefined) continue;
    const pattern = o.names.map((n) => `*${shQuote(`|${n}`)}`).join('|');
    out.push(`    ${pattern}) ${valueLines(o.value)} ;;`);
  }
  out.push('    *) _svcadm_k=flag ;;', '  esac', '}', '');

  out.push('# Sets _svcadm_k (and _svcadm_r) to what argument number $2 (from 0) of the command path $1 takes.');
  out.push('_svcadm_argument() {', '  _svcadm_r=()', '  case "$1|$2" in');
  for (const c of commands) {
    if (c.commands.length > 0) continue;
    c.arguments.forEach((spec, position) => {
      if (spec.kind !== 'any') out.push(`    ${shQuote(`${c.path.join(' ')}|${position}`)}) ${valueLines(spec)} ;;`);
    });
  }
  out.push('    *) _svcadm_k=any ;;', '  esac', '}', '');

  out.push(
    '# Takes the word $1 before the cursor: a subcommand descends into $cmdpath, a first `help` sets $help, anything',
    "# else counts in $npos (the caller's locals).",
  );
  out.push('_svcadm_step() {');
  out.push('  if [[ $1 == help && $help == 0 && $npos == 0 ]] && _svcadm_is_command "$cmdpath" help; then');
  out.push('    help=1');
  out.push('  elif [[ $npos == 0 ]] && _svcadm_is_command "$cmdpath" "$1"; then');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  out.push('    cmdpath=${cmdpath:+$cmdpath }$1');
  out.push('  else');
  out.push('    ((npos += 1))');
  out.push('  fi', '}', '');

  out.push('# Succeeds when $2 is a subcommand at the command path $1.');
  out.push('_svcadm_is_command() {');
  out.push('  local _svcadm_e', '  _svcadm_commands "$1"');
  out.push(`  for _svcadm_e in "\${_svcadm_r[@]}"; do`);
  out.push(`    [[ \${_svcadm_e%%:*} == "$2" ]] && return 0`);
  out.push('  done', '  return 1', '}');
  return out.join('\n');
}
