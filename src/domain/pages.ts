/**
 * What a checkpoint list serves when `take` is omitted: the OpenAPI's default, and what the vendor's Node SDK sends.
 * svcadm sends it where it must send a `take` to get the checkpoint form; the emulator serves it.
 */
export const DEFAULT_TAKE = 50;
