// The floors of src/ (docs/architecture.md, "Layout and floors"), as rules for dependency-cruiser: test/floors.test.ts
// holds src/ to them in `npm test`, and `npm run floors` prints what breaks them
// (docs/decisions/2026-11-28-floors-checked-by-dependency-cruiser.md).

/**
 * The floors, from the ground up, and the rooms on each: a folder (`api/`) or a file (`errors.ts`) of src/. A module
 * imports its own floor and the floors below, never one above. Every module of src/ is in one room, here or in
 * `APART`: a folder that is in none fails the test until it is placed here and on the map.
 */
export const FLOORS = [
  { floor: "the ground: Node's built-ins only", rooms: ['domain/', 'text/', 'generated/'] },
  {
    floor: 'errors and the clock',
    rooms: ['errors.ts', 'error-codes.ts', 'clock.ts', 'context.ts', 'version.ts', 'util/', 'traces/'],
  },
  { floor: 'local state', rooms: ['config/', 'agent-mode.ts'] },
  { floor: 'the service and plain text (neither imports the other)', rooms: ['api/', 'events/stream/', 'render/'] },
  { floor: 'the argument rules the commands and MCP share', rooms: ['arguments/'] },
  { floor: 'output', rooms: ['global-options.ts', 'services.ts', 'io/'] },
  { floor: 'the events pipeline', rooms: ['events/pipeline/'] },
  { floor: 'forwarding', rooms: ['events/forward/'] },
  { floor: 'the command line', rooms: ['cli/'] },
  { floor: 'read off the commander tree', rooms: ['help/', 'completion/'] },
  { floor: 'the events run', rooms: ['events/run/'] },
  { floor: 'the MCP server', rooms: ['mcp/'] },
  { floor: 'the commands', rooms: ['commands/'] },
  { floor: 'on top', rooms: ['program.ts', 'child-roles.ts', 'main.ts'] },
];

/** Rooms on no floor: the emulator, the local tenant, loaded as an entry of its own. */
export const APART = { floor: 'apart from the floors', rooms: ['emulator/'] };

/** What the emulator may import besides itself and Node's built-ins. */
const EMULATOR_LOOKS_AT = ['domain/', 'text/', 'util/'];

/** A room's modules as a path pattern. */
const room = (name) => (name.endsWith('/') ? `^src/${name}` : `^src/${name.replaceAll('.', '[.]')}$`);
const rooms = (names) => names.map(room);
const floorsFrom = (index) => FLOORS.slice(index).flatMap((f) => f.rooms);
const placed = rooms([...FLOORS.flatMap((f) => f.rooms), ...APART.rooms]);

const upAFloor = FLOORS.slice(0, -1).map((f, i) => ({
  name: 'up-a-floor',
  comment: `${f.floor} imports no floor above it`,
  severity: 'error',
  from: { path: rooms(f.rooms) },
  to: { path: rooms(floorsFrom(i + 1)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circle',
      comment: 'no import circle, type-only and lazy imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-room-loop',
      comment: 'no two folders that import each other (cli/ and help/ did), even without a circle of modules',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upAFloor,
    {
      name: 'service-and-text-apart',
      comment: 'the service (api/, events/stream/) and plain text (render/) never import each other',
      severity: 'error',
      from: { path: rooms(['api/', 'events/stream/']) },
      to: { path: room('render/') },
    },
    {
      name: 'service-and-text-apart',
      comment: 'the service (api/, events/stream/) and plain text (render/) never import each other',
      severity: 'error',
      from: { path: room('render/') },
      to: { path: rooms(['api/', 'events/stream/']) },
    },
    {
      name: 'stream-above-api',
      comment: 'the event stream imports api/; api/ never imports it',
      severity: 'error',
      from: { path: room('api/') },
      to: { path: room('events/stream/') },
    },
    {
      name: 'mcp-not-commands',
      comment: 'the MCP server never imports command code: what both need is on a floor below (arguments/)',
      severity: 'error',
      from: { path: room('mcp/') },
      to: { path: room('commands/') },
    },
    {
      name: 'groups-apart',
      comment: "a command group imports no other group's modules: what several share is in commands/shared/",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/' },
      to: { path: '^src/commands/', pathNot: ['^src/commands/$1/', '^src/commands/shared/'] },
    },
    {
      name: 'emulator-apart',
      comment: `the emulator imports ${EMULATOR_LOOKS_AT.join(', ')}, itself and Node's built-ins only`,
      severity: 'error',
      from: { path: room('emulator/') },
      to: { pathNot: rooms(['emulator/', ...EMULATOR_LOOKS_AT]), dependencyTypesNot: ['core'] },
    },
    {
      name: 'emulator-apart',
      comment: 'nothing of the CLI is loaded with the emulator, whatever it imports on the way',
      severity: 'error',
      from: { path: room('emulator/') },
      to: { path: rooms(floorsFrom(2)), reachable: true },
    },
    {
      name: 'emulator-apart',
      comment: 'only the emulator command loads the emulator (and the background emulator, a child role)',
      severity: 'error',
      from: { path: '^src/', pathNot: rooms(['emulator/', 'commands/emulator/', 'child-roles.ts']) },
      to: { path: room('emulator/') },
    },
    {
      name: 'not-on-a-floor',
      comment: 'every module of src/ is in a room of FLOORS or APART (and on the map)',
      severity: 'error',
      from: { path: '^src/', pathNot: placed },
      to: {},
    },
    {
      name: 'not-on-a-floor',
      comment: 'every module of src/ is in a room of FLOORS or APART (and on the map)',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: placed },
    },
    {
      name: 'not-on-a-floor',
      comment: 'every module of src/ is in a room of FLOORS or APART (and on the map)',
      severity: 'error',
      from: { path: '^src/', pathNot: placed, orphan: true },
      to: {},
    },
  ],
  options: {
    // Packages are leaves: what the emulator imports from them is checked, what they import is theirs.
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a circle through a type is still a circle, and a type that two floors share lives on
    // the lower one.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '[.]d[.]ts$' },
  },
};
