import type { Invocation } from '../cli/host.js';
import { announceIgnoredVariables } from '../cli/tenants.js';
import { selectProfiles } from '../config/profile-patterns.js';
import { profileNamed, readProfiles } from '../config/profile-store.js';
import { UsageError } from '../errors.js';
import { Services } from '../services.js';
import { neutralize } from '../text/sanitize.js';

/** One tenant a call may act on: its services (token, cache entry, retries of its own) and its host. */
export interface Tenant {
  profile: string | undefined;
  services: Services;
  host: string;
}

/**
 * The tenants this server serves. Without `--profiles` (the global option, or `SVCADM_PROFILES`): the invocation's
 * own (-p, the environment, the current profile), as every command. With it: each matched profile taken as a unit, as `-p` takes one (environment
 * credentials ignored), its services built on first use; a call names one with `profile`, and a profile outside
 * the set matched at start (one added since included) is refused.
 */
export class Tenants {
  private readonly byProfile = new Map<string, Tenant>();
  private readonly own: Tenant | undefined;
  /** The profiles matched at start, in name order (undefined without --profiles). */
  readonly profiles: readonly string[] | undefined;

  constructor(
    private readonly inv: Invocation,
    patterns: string | undefined,
  ) {
    if (patterns === undefined) {
      // A missing or broken configuration ends here, with the CLI's message and exit code, before a client waits.
      this.own = { profile: undefined, services: inv.services, host: hostOf(inv.services) };
      this.profiles = undefined;
    } else {
      // -p and credential flags beside the patterns were refused when the global options were read.
      this.profiles = selectProfiles(patterns, this.names());
      announceIgnoredVariables(inv);
      this.own = undefined;
    }
  }

  /** What the server names in its instructions and its start line. */
  describe(): string {
    if (this.own !== undefined) return this.own.host;
    const n = this.profiles?.length ?? 0;
    return `${n} ${n === 1 ? 'profile' : 'profiles'} (${(this.profiles ?? []).join(', ')})`;
  }

  /** The tenant of a call: `profile` as the call gave it. */
  tenant(profile: string | undefined): Tenant {
    if (this.own !== undefined) return this.own;
    const served = this.profiles ?? [];
    if (profile === undefined) {
      if (served.length === 1 && served[0] !== undefined) return this.tenant(served[0]);
      throw new UsageError(
        'profile is required: this server serves several tenants',
        `give profile, one of: ${served.join(', ')} (list_profiles names their domains)`,
      );
    }
    // The set resolved at start, and only it: a matching profile added since is not served (cli.md, round 5).
    if (!served.includes(profile) || !this.names().includes(profile)) {
      throw new UsageError(
        `profile '${neutralize(profile)}' is not one this server serves`,
        `the profiles are: ${served.join(', ')}`,
      );
    }
    let tenant = this.byProfile.get(profile);
    if (tenant === undefined) {
      const services = new Services(this.inv.ctx, this.inv.globals, this.inv.io, this.inv.services.secrets, profile);
      tenant = { profile, services, host: hostOf(services) };
      this.byProfile.set(profile, tenant);
    }
    return tenant;
  }

  /** A profile this server serves, named by a tool that names its tenants itself: refused without `--profiles`. */
  served(profile: string): Tenant {
    if (this.own !== undefined) {
      throw new UsageError(
        'this tool compares profiles this server serves, and it serves none by name',
        "start it with svcadm mcp --profiles '<patterns>'",
      );
    }
    return this.tenant(profile);
  }

  /** The served profiles and their domains, read now (a profile removed since start is left out). */
  list(): { profile: string; domain: string }[] {
    const store = readProfiles(this.inv.services.configDir);
    return (this.profiles ?? []).flatMap((profile) => {
      const found = profileNamed(store, profile);
      return found === undefined ? [] : [{ profile, domain: found.domain }];
    });
  }

  close(): void {
    for (const tenant of this.byProfile.values()) tenant.services.close();
  }

  private names(): string[] {
    return Object.keys(readProfiles(this.inv.services.configDir).profiles);
  }
}

function hostOf(services: Services): string {
  return neutralize(new URL(services.credentials().origin).host);
}
