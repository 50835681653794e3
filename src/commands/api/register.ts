import { HTTP_METHODS } from '../../api/http.js';
import { INTERFACE_PATHS } from '../../api/interface-paths.js';
import { examples, option, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { type ApiRaw, type FieldArg, parseApiOptions } from './options.js';
import type * as Run from './run.js';

const METHOD_LIST = HTTP_METHODS.join(', ');

export function registerApiCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  let position = 0;
  const inOrder = (text: string): FieldArg => ({ at: position++, text });
  program
    .command('api')
    .description('call any path of the interface (relative to /api/v2) with the active credentials')
    // A write (-X POST|PUT|PATCH|DELETE) asks on a terminal and needs --yes off one.
    .destructive()
    .usage('[options] [METHOD] <path>')
    .argument('<method-or-path>', `the path, or ${METHOD_LIST} followed by the path`)
    .argument('[path]', 'the path, when a method comes first')
    .completesArgument({ kind: 'choices', values: [...HTTP_METHODS, ...INTERFACE_PATHS] }, 0)
    .completesArgument({ kind: 'choices', values: INTERFACE_PATHS }, 1)
    .addOption(
      option(
        '-X, --method <method>',
        `${METHOD_LIST} (default: GET, whatever fields are given; a write needs --yes off a terminal)`,
      ).completes({
        kind: 'choices',
        values: HTTP_METHODS,
      }),
    )
    .addOption(
      option(
        '-f, --raw-field <key=value>',
        'a string field: a query parameter for GET (the default) and DELETE, else in the JSON body',
      ).repeated(inOrder),
    )
    .addOption(
      option(
        '-F, --field <key=value>',
        'a typed field: true, false, null and numbers as JSON, @file (@- stdin) read',
      ).repeated(inOrder),
    )
    .addOption(
      option(
        '--input <file>',
        'send this file (- for stdin) as the body, as it is; fields then go to the query',
      ).completes({ kind: 'file' }),
    )
    .addOption(option('-H, --header <header>', "add a header 'Name: value' (not Authorization)").repeated())
    .option('--paginate', 'follow every page of a GET list (checkpoint or offset) and print every item')
    .option('--correlation-id <id>', 'X-Correlation-ID of a write (default: a new UUID, printed on stderr)')
    .option('-y, --yes', 'send a write without asking (required off a terminal)')
    .addHelpText(
      'after',
      `
Reads unless told to write: unlike gh api, fields never turn a call into a POST. Without -X (or a METHOD first)
it is a GET and -f/-F are query parameters, as curl -G. POST, PUT, PATCH and DELETE ask on a terminal and need
--yes off one (exit 2, nothing sent), as connections delete-user does; so does a GET that a method-override header
(X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override) or a _method field makes a write.
${examples(
  "svcadm api /users/'auth0|64b0c1'/permissions -f per_page=5",
  'svcadm api /connections-directory-provisionings --paginate -o ndjson | jq -r .connection_name',
  'svcadm api DELETE /connections/con_0aB1/users -f email=bob+ci@example.com --yes',
  "svcadm api PATCH /rate-limit-policies/rlp_01HZX3 -F 'configuration[limit]=200' -f 'configuration[action]=block'",
  'svcadm api POST /roles --input role.json --yes --correlation-id "$CI_JOB_ID"',
)}`,
    )
    .action(
      actions.run(
        'runApi',
        ([first, second]: [string, string | undefined], raw: ApiRaw) => parseApiOptions(first, second, raw),
        { refuse: (o) => (o.method === 'GET' ? undefined : `runs only GET across tenants, not ${o.method}`) },
      ),
    );
}
