import { Query } from '@nestjs/cqrs';

/**
 * Whether the organization's users may sign in with a password. Identity asks; the module that
 * owns the organization's sign-in settings answers (`sso:` `passwordLogin`, libs/sso), since the
 * catalog that holds them depends on identity and cannot be read from here.
 */
export class IsPasswordLoginAllowedQuery extends Query<boolean> {
  constructor(readonly orgId: string) {
    super();
  }
}
