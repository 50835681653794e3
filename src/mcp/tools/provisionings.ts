import { listDirectoryProvisionings } from '../../api/endpoints.js';
import { PROVISIONINGS_PAGE_MAX } from '../../api/pagers.js';
import { checkpointListTool, serviceObject, type ToolSpec } from '../tool.js';

/** `list_directory_provisionings`: a page of the provisioning configurations. */
export const LIST_DIRECTORY_PROVISIONINGS: ToolSpec = checkpointListTool({
  name: 'list_directory_provisionings',
  title: 'List directory provisionings',
  description:
    'One page of the directory provisioning configurations (connection, strategy, attribute mapping, last synchronisation and its status). Pass next_cursor back as cursor for the next page. Needs the scope read:directory_provisionings.',
  key: 'directory_provisionings',
  noun: { one: 'directory provisioning', many: 'directory provisionings' },
  item: serviceObject,
  maxTake: PROVISIONINGS_PAGE_MAX,
  async fetch(api, { from, take }) {
    const { data } = await listDirectoryProvisionings(api, { from, take });
    return { items: data.directory_provisionings, next: data.next };
  },
});
