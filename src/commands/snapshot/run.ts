import { type KindRequest, readTenantKind } from '../../api/tenant-configuration.js';
import type { Invocation } from '../../cli/host.js';
import { UsageError } from '../../errors.js';
import { writeTenantFolder } from '../../io/snapshot-folder.js';
import type { SnapshotOptions } from './options.js';

/**
 * One tenant's snapshot: every kind read first, then its folder written whole (a tenant that fails leaves its old
 * folder as it was). The folder is named after the profile.
 */
export async function runSnapshot(inv: Invocation, opts: SnapshotOptions): Promise<void> {
  const api = inv.services.api();
  const requests: KindRequest[] = [
    { kind: 'policies' },
    { kind: 'provisionings' },
    { kind: 'connections' },
    ...opts.users.map((userId): KindRequest => ({ kind: 'permissions', userId })),
  ];
  const contents = await Promise.all(requests.map((request) => readTenantKind(api, request)));
  const profile = inv.services.tenant ?? inv.services.profileUsed();
  if (profile === undefined) {
    throw new UsageError(
      "snapshot names each tenant's folder after its profile, and these credentials come from no profile",
      'name one with -p <profile>, or save them with svcadm profiles add',
    );
  }
  for (const [i, content] of contents.entries()) {
    if ('unavailable' in content) {
      const request = requests[i] as KindRequest;
      inv.io.notice(`${request.kind}: unavailable (${content.unavailable}); written as unavailable`);
    }
  }
  const folder = await writeTenantFolder(
    opts.dir,
    profile,
    requests.map((request, i) => ({ request, content: contents[i] ?? { items: [] } })),
  );
  await inv.out.result({ folder }, { text: `${folder}\n` });
}
