import { CONFIGURATION_KINDS, type ConfigurationKind } from '../../domain/tenant-configuration.js';
import { UsageError } from '../../errors.js';

export interface DiffRaw {
  kind?: string[];
  ignore?: string[];
  user?: string[];
  against?: string;
}

/** A pair of user ids: the same person in the left tenant and in the right one. */
export interface UserPair {
  left: string;
  right: string;
}

export interface DiffOptions {
  left: string | undefined;
  right: string | undefined;
  /** Many against one: the baseline, a profile or a snapshot folder. */
  against: string | undefined;
  kinds: ConfigurationKind[];
  ignore: string[];
  users: UserPair[];
}

function userPair(value: string): UserPair {
  const at = value.indexOf('=');
  const left = at < 0 ? '' : value.slice(0, at);
  const right = at < 0 ? '' : value.slice(at + 1);
  if (left === '' || right === '' || left.length > 512 || right.length > 512) {
    throw new UsageError(
      `--user needs <left-id>=<right-id> (user ids differ between tenants), got '${value.slice(0, 60)}'`,
    );
  }
  return { left, right };
}

export function parseDiffOptions(args: [string | undefined, string | undefined], raw: DiffRaw): DiffOptions {
  const [left, right] = args;
  const against = raw.against;
  if (against !== undefined) {
    if (against === '') throw new UsageError('--against needs a profile or a snapshot folder');
    if (left !== undefined) throw new UsageError('--against compares each tenant of --profiles with it: name no sides');
  } else if (left === undefined || right === undefined) {
    throw new UsageError('diff needs two sides: svcadm diff <left> <right> (a profile or a snapshot folder each)');
  }
  const named = raw.kind ?? [];
  for (const kind of named) {
    if (!(CONFIGURATION_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`unknown --kind '${kind.slice(0, 40)}'`, `use ${CONFIGURATION_KINDS.join(', ')}`);
    }
  }
  const users = (raw.user ?? []).map(userPair);
  if (named.includes('permissions') && users.length === 0) {
    throw new UsageError('--kind permissions needs --user <left-id>=<right-id>', 'user ids differ between tenants');
  }
  const kinds = CONFIGURATION_KINDS.filter((kind) =>
    named.length > 0 ? named.includes(kind) : kind !== 'permissions' || users.length > 0,
  );
  const ignore = (raw.ignore ?? []).map((field) => {
    if (field === '' || field.startsWith('.') || field.endsWith('.')) {
      throw new UsageError(`--ignore needs a field as a dotted path (configuration.limit), got '${field}'`);
    }
    return field;
  });
  return { left, right, against, kinds, ignore, users };
}
