import { Query } from '@nestjs/cqrs';
import type { DefinitionSource } from '../../domain/catalog.model.js';

export interface ConfigManagement {
  /** Per live queue: who manages it now (`console` also when the file hands queues to the console) and its last file. */
  readonly queues: Readonly<Record<string, DefinitionSource>>;
  readonly sso: DefinitionSource;
}

/** Who manages an organization's console-editable configuration: its file or the console. */
export class GetConfigManagementQuery extends Query<ConfigManagement> {
  constructor(readonly orgId: string) {
    super();
  }
}
