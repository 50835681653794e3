/**
 * `profiles add`'s options as commander hands them over; its name and the global credential options are read by the
 * run.
 */
export interface AddOptions {
  clientSecretStdin?: boolean;
  verify: boolean;
  use?: boolean;
  insecureStorage?: boolean;
}

/** `profiles add <name>` with its options. */
export interface AddCommand extends AddOptions {
  name: string;
}
