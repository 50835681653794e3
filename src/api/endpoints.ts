import type { ApiClient, JsonResult } from './client.js';
import type { RateLimitPolicy } from './types.js';

/** GET /rate-limit-policies/{id} (Early Access). */
export function getRateLimitPolicy(api: ApiClient, id: string): Promise<JsonResult<RateLimitPolicy>> {
  return api.getJson<RateLimitPolicy>(api.url(['rate-limit-policies', id]), 'rate limit policy');
}
