// The one place the Node that builds svcadm's single executable is pinned: the executable is this Node with svcadm
// inside, and the release records it (docs/decisions/2026-11-28-single-executable.md).

/** The Node 26 LTS release the executable is built from, fetched as the `node` package on npm. */
export const NODE_VERSION = '26.10.0';
