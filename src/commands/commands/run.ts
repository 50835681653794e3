import type { SvcadmCommand } from '../../cli/command.js';
import type { Invocation } from '../../cli/host.js';
import { catalogOf, catalogText } from '../../help/catalog.js';

/** `svcadm commands`: the tree under `program`, as text or as the catalog's JSON. */
export async function runCommands(inv: Invocation, program: SvcadmCommand): Promise<void> {
  const catalog = catalogOf(program);
  await inv.out.reference(catalog, catalogText(catalog));
}
