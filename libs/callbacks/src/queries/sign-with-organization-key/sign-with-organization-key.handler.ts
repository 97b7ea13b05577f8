import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { SigningKeys } from '../../signing/signing-keys.js';
import { type OrganizationSignature, SignWithOrganizationKeyQuery } from './sign-with-organization-key.query.js';

@QueryHandler(SignWithOrganizationKeyQuery)
export class SignWithOrganizationKeyHandler implements IQueryHandler<SignWithOrganizationKeyQuery> {
  constructor(private readonly keys: SigningKeys) {}

  async execute(query: SignWithOrganizationKeyQuery): Promise<OrganizationSignature> {
    const signer = await this.keys.signer(query.orgId);
    return { kid: signer.kid, signature: signer.sign(query.payload).toString('base64url') };
  }
}
