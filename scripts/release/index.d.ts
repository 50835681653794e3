// The types of ./index.js, for the tests that build a release with a stand-in executable.

/** What `buildExecutable` answers. */
export interface BuiltExecutable {
  nodeVersion: string;
  sizeBytes?: number;
}

export interface ReleaseOptions {
  /** The checkout: package.json, README.md, LICENSE, completions/, man/. */
  root: string;
  /** Emptied, then filled. */
  outDir: string;
  /** One of `TARGETS`: the target this machine builds. */
  target: string;
  /** Seconds since 1970, stamped on every file. */
  sourceDateEpoch: number;
  commit?: string;
  /** Where the downloads will be published, without a trailing slash; without it no formula or manifest. */
  baseUrl?: string;
  /** The other targets' downloads' SHA-256, by target. */
  checksums?: Record<string, string>;
  buildExecutable: (options: { root: string; version: string; outFile: string }) => Promise<BuiltExecutable>;
  /** A note for stderr. */
  log?: (line: string) => void;
}

/** Builds `outDir`; answers the names of the files written, in order. */
export function release(options: ReleaseOptions): Promise<string[]>;

export class ReleaseEnvironmentError extends Error {}
