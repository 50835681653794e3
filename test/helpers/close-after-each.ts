import { afterEach } from 'vitest';

/** What a test opens and must close: a server, an emulator, a proxy, a session. */
export interface Closable {
  close(): Promise<void> | void;
}

/**
 * The `let server; afterEach(() => server?.close())` prologue, once: registers (in the calling file or `describe`)
 * one `afterEach` that closes what the tests opened, the last opened first, and returns `closeAfterTest`, which
 * takes what a test opened and hands it back.
 *
 *   const closeAfterTest = closeAfterEach();
 *   const proxy = closeAfterTest(await startProxy());
 */
export function closeAfterEach(): <T extends Closable>(opened: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    for (const opened of open.splice(0).reverse()) await opened.close();
  });
  return (opened) => {
    open.push(opened);
    return opened;
  };
}
