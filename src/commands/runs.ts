// The run code of the commands a one-shot `policies get` never needs, in one lazily loaded chunk: one file to load
// when such a command runs, and none at start-up (design notes, "Start-up, round 3").
export { runApi } from './api-run.js';
export { runAuthStatus, runAuthToken } from './auth-run.js';
export { runConnectionsList, runDeleteUser } from './connections-run.js';
export { runEmulatorCommand } from './emulator-run.js';
export { runEventsTail } from './events-run.js';
export {
  runProfilesAdd,
  runProfilesList,
  runProfilesMigrateSecrets,
  runProfilesRemove,
  runProfilesShow,
  runProfilesUse,
} from './profiles-run.js';
export { runProvisioningsList } from './provisionings-run.js';
