import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { runBin, tempConfigDir } from '../helpers/run-cli.js';

// What a start loads of the traces: nothing when they are off (issue 41 point 1), their chunk when they are on.
// A module loader hook, registered before the built CLI starts, writes down every module file it loads.
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.LOADED_OUT, url + '\\n');
  return next(url, context);
}
`;

describe('the traces at start-up', () => {
  let emu: TestEmulator;
  let env: Record<string, string>;
  let register: string;
  beforeAll(async () => {
    emu = await startTestEmulator();
    const dir = tempConfigDir();
    env = { ...emu.env, SVCADM_CONFIG_DIR: dir };
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(hooks, HOOKS);
    register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    expect((await runBin(['auth', 'token'], env)).code).toBe(0);
  });
  afterAll(() => emu.close());

  async function loaded(extra: Record<string, string>): Promise<string[]> {
    const out = join(env.SVCADM_CONFIG_DIR ?? '', `loaded-${Object.keys(extra).length}.txt`);
    writeFileSync(out, '');
    const id = emu.fixtures.policyIds[0] ?? '';
    const r = await runBin(['policies', 'get', id, '-o', 'json'], {
      ...env,
      ...extra,
      NODE_OPTIONS: `--import ${pathToFileURL(register).href}`,
      LOADED_OUT: out,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return readFileSync(out, 'utf8').trim().split('\n');
  }

  it('off: no file of the traces is loaded; on: their chunk is', async () => {
    const off = await loaded({});
    expect(off.some((url) => url.endsWith('/dist/main.js'))).toBe(true);
    expect(off.filter((url) => /\/chunks\/otel-|opentelemetry|protobufjs/.test(url))).toEqual([]);
    const collector = await startOtlpReceiver();
    try {
      const on = await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
      expect(on.filter((url) => /\/chunks\/otel-[A-Z0-9]+\.js$/.test(url))).toHaveLength(1);
      expect(collector.spans.map((s) => s.name)).toContain('svcadm policies get');
    } finally {
      await collector.close();
    }
  });
});
