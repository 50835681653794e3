/** The root options of cli.md as commander hands them to every action (`optsWithGlobals`). */
export interface GlobalOptions {
  profile?: string;
  domain?: string;
  clientId?: string;
  clientSecret?: string;
  token?: string;
  authUrl?: string;
  audience?: string;
  output?: string;
  json?: boolean;
  color?: boolean;
  quiet?: boolean;
  debug?: boolean;
  maxRetries?: string;
  timeout?: string;
}
