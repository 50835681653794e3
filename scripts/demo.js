// `npm run demo`: start a local tenant emulator and run svcadm against it as a user would.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// SVCADM_TEST_NOW (an RFC 3339 time) stops the clocks of the emulator and of svcadm there, so that the output is the
// same on every run: the README's sample is this output, checked by test/readme/demo.test.ts.
const fixedNow = process.env.SVCADM_TEST_NOW ? Date.parse(process.env.SVCADM_TEST_NOW) : undefined;
const BIN = join(root, fixedNow === undefined ? 'bin/svcadm.js' : 'test/helpers/fixed-time-cli.js');
const { startEmulator } = await import(join(root, 'dist', 'emulator', 'server.js'));

const emu = await startEmulator({ port: 0, eventRate: 20, ...(fixedNow === undefined ? {} : { now: () => fixedNow }) });
const configDir = mkdtempSync(join(tmpdir(), 'svcadm-demo-'));
// The demo runs on its own profile: credential variables a shell exported (an emulator's `eval`, say) would win over
// it, and --profiles would run it across the user's own tenants.
const TENANT_VARIABLES =
  /^SVCADM_(DOMAIN|CLIENT_ID|CLIENT_SECRET|CLIENT_ASSERTION_KEY|CLIENT_ASSERTION_ALG|TOKEN|AUTH_URL|AUDIENCE|PROFILES?)$/;
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !TENANT_VARIABLES.test(name)));
env.SVCADM_CONFIG_DIR = configDir;
const bold = (s) => (process.stdout.isTTY ? `\u001b[1m${s}\u001b[22m` : s);

function svcadm(args, input, keys = false) {
  const shown = args.map((a) => (/[\s|$]/.test(a) ? `'${a}'` : a)).join(' ');
  console.log(`\n${bold(`$ svcadm ${shown}`)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      // With the keyboard (keys), `events tail` is the interactive live view.
      stdio: [input ? 'pipe' : keys ? 'inherit' : 'ignore', 'inherit', 'inherit'],
    });
    if (input) child.stdin.end(input);
    child.on('error', reject);
    // Ctrl-C ends the live view (exit 130) as q does: the demo goes on to its end.
    const ends = keys ? [0, 130] : [0];
    child.on('exit', (code) => (ends.includes(code) ? resolve() : reject(new Error(`svcadm ${shown} exited ${code}`))));
  });
}

// The ending is printed once the emulator has stopped and the profile store is gone: it says so, and it is true then.
let liveView = false;
let failure;
try {
  console.log(`Local tenant emulator at ${emu.url} (profile store in ${configDir})`);
  await svcadm(
    ['profiles', 'add', 'demo', '--domain', emu.url, '--client-id', emu.admin.clientId, '--client-secret-stdin'],
    emu.admin.clientSecret,
  );
  await svcadm(['auth', 'status']);
  await svcadm(['policies', 'get', emu.fixtures.policyIdByAction.redirect]);
  await svcadm(['policies', 'get', emu.fixtures.policyIdByAction.block, '-o', 'json']);
  await svcadm(['provisionings', 'list', '--take', '5']);
  await svcadm(['policies', 'list']);
  await svcadm(['connections', 'list', '--strategy', 'auth0']);
  await svcadm(['users', 'find', '--email', emu.fixtures.sharedEmail]);
  await svcadm(['users', 'permissions', emu.fixtures.userId, '--all']);
  await svcadm(['events', 'tail', '--type', 'user.created', '--since', '7d', '--max-events', '5']);
  if (process.stdin.isTTY && process.stdout.isTTY) {
    console.log('\nThe live view takes keys: p pause, / filter, t type, i inspect (Esc back), q quit; 60 s at most.');
    liveView = true;
    await svcadm(['events', 'tail', '--since', '1h', '--duration', '60s'], undefined, true);
  }
} catch (err) {
  failure = err;
} finally {
  await emu.close();
  rmSync(configDir, { recursive: true, force: true });
}
if (failure) {
  console.error(`demo failed: ${failure.message}`);
  process.exitCode = 1;
} else {
  // The live view's last line is how to resume it, with the demo's profile on the demo's emulator: both are gone.
  console.log("\nDone: the demo's emulator has stopped and its profile is removed.");
  if (liveView) console.log('The resume line above named them: it no longer works.');
  console.log('Try it yourself: npx svcadm emulator (or npm link, then svcadm emulator)');
}
