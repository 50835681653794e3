/** The shells `svcadm completion` writes scripts for. Its own module: the command registers them at every start. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
