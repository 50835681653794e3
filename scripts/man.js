// Writes man/svcadm.1 from the built CLI's own description of its command tree (`svcadm commands --json`, the walk
// help and completion share): every command, option, environment variable and exit status. `npm run man` builds
// first; `--stdout` prints the page instead (the test that it is current compares the two).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const catalog = JSON.parse(
  execFileSync(process.execPath, [join(root, 'bin', 'svcadm.js'), 'commands', '--json'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
  }),
);

/** Text safe in roff: backslashes, dashes that are minus signs, a leading dot or quote, non-ASCII characters. */
function roff(text) {
  return (
    String(text)
      .replace(/\\/g, '\\e')
      .replace(/-/g, '\\-')
      .replace(/^([.'])/gm, '\\&$1')
      // groff reads ASCII unless told otherwise: other characters by their Unicode names.
      .replace(/[^\x00-\x7e]/gu, (c) => `\\[u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`)
  );
}

/** Variables svcadm (or Node, for it) reads that no command declares on the tree. */
const MORE_ENVIRONMENT = [
  {
    names: ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'],
    description:
      'the proxy for https (http) targets: the token service, the interface and the event stream; user:password@ in the URL is sent to the proxy only. Loopback hosts and events tail --forward-to never use a proxy.',
  },
  {
    names: ['NO_PROXY', 'no_proxy'],
    description:
      'hosts reached directly: host names, domains (example.com or .example.com), host:port, IP addresses, or *',
  },
  {
    names: ['NODE_EXTRA_CA_CERTS'],
    description: 'a PEM file of extra certificate authorities to trust (a private CA)',
  },
  {
    names: ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE'],
    description: "where Node keeps svcadm's compile cache (Node 22.8 and later), or 1 to keep none",
  },
  {
    names: ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME'],
    description: 'on Linux, the base of the config folder and the cache folder (see FILES)',
  },
];

function leaves(commands) {
  // A command with subcommands and options of its own (`emulator`) also runs by itself: it is documented too.
  return commands.flatMap((c) =>
    c.commands?.length ? [...(c.options.length ? [c] : []), ...leaves(c.commands)] : [c],
  );
}

function optionItems(options) {
  return options.flatMap((o) => {
    const extra = [];
    if (o.choices) extra.push(`one of: ${o.choices.join(', ')}`);
    // Said once: not again when the description already says it ("(default 5)").
    const said = /\bdefault\b/.test(o.description);
    if (o.default !== null && o.default !== undefined && o.default !== false && !said) {
      extra.push(`default: ${o.default}`);
    }
    if (o.env) extra.push(`environment: ${o.env}`);
    if (o.repeatable) extra.push('repeatable');
    return ['.TP', `.B ${roff(o.flags)}`, roff(`${o.description}${extra.length ? ` (${extra.join('; ')})` : ''}`)];
  });
}

const lines = [
  `.TH SVCADM 1 "" "svcadm ${catalog.version}" "User Commands"`,
  '.SH NAME',
  `svcadm \\- ${roff(catalog.description.toLowerCase())}`,
  '.SH SYNOPSIS',
  `.B svcadm`,
  roff('[global options] <command> [arguments] [options]'),
  '.SH DESCRIPTION',
  roff(
    'svcadm administers a tenant of the identity service from a terminal, from CI scripts and for AI agents: profiles and tokens, rate limit policies, the event stream, directory provisionings, user permissions, connection users, and any path of the interface. svcadm emulator runs a local tenant that speaks the same interface.',
  ),
  '.PP',
  roff("svcadm commands --json describes all of this as JSON; svcadm <command> --help shows a command's help."),
  '.SH GLOBAL OPTIONS',
  ...optionItems(catalog.global_options),
  '.SH COMMANDS',
];
for (const command of leaves(catalog.commands)) {
  lines.push(`.SS ${roff(`svcadm ${command.command}`)}`, roff(command.description), '.PP', `.B ${roff(command.usage)}`);
  if (command.arguments.length) {
    for (const a of command.arguments) {
      const choices = a.choices ? ` (one of: ${a.choices.join(', ')})` : '';
      lines.push('.TP', `.I ${roff(a.name)}`, roff(`${a.description ?? ''}${choices}`));
    }
  }
  lines.push(...optionItems(command.options));
  if (command.examples.length) {
    lines.push('.PP', 'Examples:', '.PP', '.RS 4', '.nf', ...command.examples.map((e) => roff(e)), '.fi', '.RE');
  }
}
const environment = new Map();
for (const variable of [...leaves(catalog.commands).flatMap((c) => c.environment), ...MORE_ENVIRONMENT]) {
  for (const name of variable.names) if (!environment.has(name)) environment.set(name, variable.description);
}
lines.push('.SH ENVIRONMENT');
for (const [name, description] of [...environment].sort(([a], [b]) => a.localeCompare(b))) {
  lines.push('.TP', `.B ${roff(name)}`, roff(description));
}
lines.push('.SH EXIT STATUS');
for (const { code, meaning } of catalog.exit_codes) lines.push('.TP', `.B ${code}`, roff(meaning));
lines.push(
  '.SH FILES',
  '.TP',
  '.I ~/.config/svcadm\\-nodejs/',
  roff(
    'the config folder on Linux ($XDG_CONFIG_HOME/svcadm-nodejs when set); ~/Library/Preferences/svcadm-nodejs on macOS; %APPDATA%\\svcadm-nodejs\\Config on Windows. SVCADM_CONFIG_DIR replaces it. svcadm profiles list and svcadm auth status name the one in use.',
  ),
  '.TP',
  '.I profiles.json',
  roff('in the config folder: the saved profiles (mode 0600)'),
  '.TP',
  '.I token\\-cache.json',
  roff('in the config folder: cached access tokens (mode 0600)'),
  '.TP',
  '.I ~/.cache/svcadm\\-nodejs/compile\\-cache/',
  roff(
    "Node's compile cache for svcadm (Node 22.8 and later; $XDG_CACHE_HOME on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA%\\svcadm-nodejs\\Cache on Windows); safe to delete",
  ),
  '.SH SEE ALSO',
  roff('The README and docs/ of the svcadm repository; svcadm commands --json.'),
);
const page = `${lines.join('\n')}\n`;
if (process.argv.includes('--stdout')) {
  process.stdout.write(page);
} else {
  mkdirSync(join(root, 'man'), { recursive: true });
  writeFileSync(join(root, 'man', 'svcadm.1'), page);
  process.stdout.write('man/svcadm.1\n');
}
