import * as z from 'zod';
import { count, defineTool, READS, type ToolSpec } from '../tool.js';

/** Offered with `svcadm mcp --profiles` only: the tenants a call may name with `profile`. */
export const LIST_PROFILES: ToolSpec = defineTool({
  name: 'list_profiles',
  title: 'List the profiles served',
  description:
    'The profiles (tenants) this server serves and their domains: the values the other tools take as profile. Set by whoever started the server (svcadm mcp --profiles); no other tenant can be reached.',
  writes: false,
  annotations: READS,
  input: z.strictObject({}),
  output: z.object({
    profiles: z.array(z.object({ profile: z.string(), domain: z.string() })),
  }),
  async run(_input, env) {
    const profiles = env.profiles();
    return { data: { profiles }, text: `${count(profiles.length, { one: 'profile', many: 'profiles' })}.` };
  },
});
