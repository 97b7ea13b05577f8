import { Query } from '@nestjs/cqrs';

/** The SP metadata (XML) an IdP administrator loads for this organization. */
export class GetSamlMetadataQuery extends Query<string> {
  constructor(readonly orgId: string) {
    super();
  }
}
