import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Profile, SamlConfig, ValidateInResponseTo } from '@node-saml/passport-saml';
import type { PassportStatic } from 'passport';
import type { SsoSettings } from '#warden/catalog/contracts';
import type { Clock } from '#warden/kernel';
import { CLOCK, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { KEYRING, type Keyring } from '#warden/storage';
import { authnInstantOf, emailOf, type SamlIdentity, valuesOf } from '../domain/saml-identity.js';
import { ssoRefused, refusalReasonOf } from '../domain/sso-refusal.js';
import { isEndpoint } from './acs-endpoint.js';
import { SealedRequestIds } from './saml-request-ids.js';
import { markupProblem, OversizedSamlPost } from './saml-response-limits.js';

/** The organization's live SSO settings, with the IdP certificate opened (SAML enabled, URL and cert set). */
export interface SamlOrganization {
  readonly orgId: string;
  readonly settings: SsoSettings & { sso_url: string; cert: string };
}

/** Clock skew tolerated between the IdP and this service when checking an assertion's validity window. */
const CLOCK_SKEW_MS = 60_000;

/** What a passport strategy decided about one request. */
type StrategyOutcome =
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'success'; readonly profile: Profile }
  | { readonly kind: 'fail' }
  | { readonly kind: 'error'; readonly error: unknown };

/** The request passport hands the strategy: only what MultiSamlStrategy reads, plus our options. */
interface StrategyRequest {
  readonly query: Record<string, string>;
  readonly body: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly url: string;
  readonly samlOptions: SamlConfig;
}

/**
 * This service as a SAML service provider for every organization. Sign-in runs through passport
 * and @node-saml/passport-saml (the maintained successor of `passport-saml`): one
 * MultiSamlStrategy whose options are the organization's, on a passport instance of our own.
 * Passport's middleware expects Express's request and response, so it is handed a plain request
 * object and a response that only captures a redirect (its Fastify reply stays ours); see
 * docs/sso.md. The SP metadata comes from node-saml's SAML class, which the strategy wraps.
 */
@Injectable()
export class SamlServiceProvider {
  private runtime: Promise<SamlRuntime> | undefined;

  constructor(
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Loaded on the first SAML request: the CLI composes this module too and never signs anyone in. */
  private load(): Promise<SamlRuntime> {
    this.runtime ??= (async (): Promise<SamlRuntime> => {
      const [{ default: passport }, { MultiSamlStrategy, SAML }, precheck] = await Promise.all([
        import('passport'),
        import('@node-saml/passport-saml'),
        import('./saml-response-precheck.js'),
      ]);
      const authenticator = new passport.Passport();
      const strategy = new MultiSamlStrategy(
        {
          passReqToCallback: true,
          getSamlOptions: (req, done) => done(null, (req as unknown as StrategyRequest).samlOptions),
        },
        // The strategy's "user" is the verified profile: who it is in Warden is decided afterwards.
        (_req, profile, done) => done(null, profile as unknown as Record<string, unknown>),
        (_req, _profile, done) => done(new Error('Single logout is not supported')),
      );
      authenticator.use('saml', strategy);
      return { passport: authenticator as unknown as SamlRuntime['passport'], SAML, precheck };
    })();
    return this.runtime;
  }

  /** The SP's entity id for an organization: its metadata URL, so it is unique per organization. */
  entityId(orgId: string): string {
    return `${this.config.publicUrl}/saml/metadata/${encodeURIComponent(orgId)}`;
  }

  acsUrl(orgId: string): string {
    return `${this.config.publicUrl}/saml/acs/${encodeURIComponent(orgId)}`;
  }

  /** Where a user's SAML sign-in starts (what users bookmark). */
  loginUrl(orgId: string): string {
    return `${this.config.publicUrl}/saml/login/${encodeURIComponent(orgId)}`;
  }

  /**
   * The IdP URL (HTTP-Redirect binding) with a fresh AuthnRequest whose id the ACS will accept,
   * and that id (the browser is bound to it, see requestBindingOf).
   */
  /** `forceAuthn`: the IdP is asked to authenticate the user again, not to reuse its own session (a recent sign-in, docs/sso.md). */
  async loginRedirect(org: SamlOrganization, forceAuthn = false): Promise<{ location: string; requestId: string }> {
    const ids = this.requestIds(org);
    const outcome = await this.run(org, { query: {}, body: {} }, ids, forceAuthn);
    if (outcome.kind === 'redirect' && ids.lastIssued !== null) return { location: outcome.location, requestId: ids.lastIssued };
    throw outcome.kind === 'error' ? outcome.error : new Error('The SAML strategy did not redirect');
  }

  /**
   * Verifies a response posted to the ACS: signature against the organization's certificate,
   * audience, validity window, that it answers a request of ours for this organization. Refuses
   * with an SsoRefusal naming the reason.
   *
   * What a stranger's post can cost is bounded first (docs/sso.md, "Limits"): its size (a post over
   * the body limit was not even read), then its elements and shape, measured in one pass over the
   * text before any XML is parsed, then the SignedInfo signature, before node-saml digests what it
   * signs. What node-saml leaves unchecked is checked too: the status, the Destination and the
   * Recipient (against this organization's ACS URL), SHA-1.
   */
  async verify(org: SamlOrganization, samlResponse: string | OversizedSamlPost): Promise<SamlIdentity> {
    if (samlResponse instanceof OversizedSamlPost) throw ssoRefused('response-too-large');
    const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
    const shape = markupProblem(xml, this.config.saml.maxElements);
    if (shape !== null) throw ssoRefused(shape);
    const { precheck } = await this.load();
    const response = precheck.parseResponse(xml);
    if (response === null) throw ssoRefused(hasSignature(xml) ? 'malformed-response' : 'unsigned');
    const problem =
      precheck.statusProblem(response) ??
      precheck.destinationProblem(response, this.acsUrl(org.orgId)) ??
      (hasSignature(xml) ? null : 'unsigned') ??
      precheck.signatureProblem(response, org.settings.cert, { allowSha1: this.config.saml.allowSha1 });
    if (problem !== null) throw ssoRefused(problem);
    const outcome = await this.run(org, { query: {}, body: { SAMLResponse: samlResponse } });
    if (outcome.kind === 'error') throw ssoRefused(refusalReasonOf(outcome.error instanceof Error ? outcome.error.message : ''));
    if (outcome.kind !== 'success') throw ssoRefused('malformed-response');
    return this.identityOf(org, outcome.profile);
  }

  async metadata(orgId: string): Promise<string> {
    const { SAML } = await this.load();
    const saml = new SAML({
      issuer: this.entityId(orgId),
      callbackUrl: this.acsUrl(orgId),
      // Metadata names only our endpoints; the IdP's certificate is not part of it.
      idpCert: 'unused',
      wantAssertionsSigned: true,
      generateUniqueId: () => `_${createHash('sha256').update(orgId).digest('hex').slice(0, 32)}`,
    });
    return saml.generateServiceProviderMetadata(null, null);
  }

  private identityOf(org: SamlOrganization, profile: Profile): SamlIdentity {
    const assertion = (profile.getAssertion?.() ?? {}) as { Assertion?: AssertionXml };
    const acsUrl = this.acsUrl(org.orgId);
    // node-saml does not compare Recipient with the ACS URL. Every one the (signed) assertion
    // names must be ours; an assertion that names none is accepted, its audience names this
    // organization (docs/sso.md).
    const recipients = (assertion.Assertion?.Subject ?? [])
      .flatMap((subject) => subject.SubjectConfirmation ?? [])
      .flatMap((confirmation) => confirmation.SubjectConfirmationData ?? [])
      .flatMap((data) => (data.$?.Recipient === undefined ? [] : [data.$.Recipient]));
    if (!recipients.every((recipient) => isEndpoint(recipient, acsUrl))) throw ssoRefused('wrong-recipient');
    const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
    const email = emailOf(profile.nameID, attributes);
    if (email === null) throw ssoRefused('no-email');
    const { roleAttribute } = org.settings;
    const id = assertion.Assertion?.$?.ID;
    if (typeof id !== 'string' || id === '') throw ssoRefused('malformed-response');
    // node-saml accepts a response only with an InResponseTo it checked (validateInResponseTo: 'always').
    if (typeof profile.inResponseTo !== 'string' || profile.inResponseTo === '') throw ssoRefused('unknown-request');
    return {
      email,
      groups: roleAttribute === null ? null : valuesOf(attributes[roleAttribute]),
      assertionId: id,
      notOnOrAfter: assertion.Assertion?.Conditions?.[0]?.$?.NotOnOrAfter ?? null,
      inResponseTo: profile.inResponseTo,
      authenticatedAt: authnInstantOf(assertion.Assertion?.AuthnStatement?.[0]?.$?.AuthnInstant),
    };
  }

  private requestIds(org: SamlOrganization): SealedRequestIds {
    return new SealedRequestIds(org.orgId, this.keyring, this.clock);
  }

  private options(org: SamlOrganization, ids: SealedRequestIds): SamlConfig {
    return {
      issuer: this.entityId(org.orgId),
      audience: this.entityId(org.orgId),
      callbackUrl: this.acsUrl(org.orgId),
      entryPoint: org.settings.sso_url,
      idpCert: org.settings.cert,
      // The assertion is what must be signed (or, when an IdP signs only the Response, the Response).
      wantAssertionsSigned: org.settings.wantAssertionsSigned,
      wantAuthnResponseSigned: !org.settings.wantAssertionsSigned,
      validateInResponseTo: 'always' as ValidateInResponseTo,
      cacheProvider: ids,
      generateUniqueId: () => ids.newId(),
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      // Asking for a password context would refuse users who signed in at the IdP with MFA or a passkey.
      disableRequestedAuthnContext: true,
    };
  }

  /** One passport authentication of the strategy, its outcome captured instead of written to a response. */
  private async run(
    org: SamlOrganization,
    parts: { query: Record<string, string>; body: Record<string, string> },
    ids = this.requestIds(org),
    forceAuthn = false,
  ): Promise<StrategyOutcome> {
    const { passport } = await this.load();
    const samlOptions = { ...this.options(org, ids), ...(forceAuthn ? { forceAuthn: true } : {}) };
    const request: StrategyRequest = { ...parts, headers: {}, url: `/saml/acs/${org.orgId}`, samlOptions };
    return new Promise<StrategyOutcome>((resolve) => {
      const response = {
        statusCode: 200,
        headers: new Map<string, string>(),
        setHeader(name: string, value: string) {
          this.headers.set(name.toLowerCase(), value);
        },
        end() {
          const location = this.headers.get('location');
          resolve(location ? { kind: 'redirect', location } : { kind: 'fail' });
        },
      };
      const authenticate = passport.authenticate('saml', { session: false }, (error: unknown, user: unknown) => {
        if (error) resolve({ kind: 'error', error });
        else if (user) resolve({ kind: 'success', profile: user as Profile });
        else resolve({ kind: 'fail' });
      }) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      authenticate(request, response, (error?: unknown) => resolve({ kind: 'error', error }));
    });
  }
}

interface SamlRuntime {
  readonly passport: Pick<PassportStatic, 'authenticate'>;
  readonly SAML: typeof import('@node-saml/passport-saml').SAML;
  readonly precheck: typeof import('./saml-response-precheck.js');
}

interface AssertionXml {
  $?: { ID?: string };
  Conditions?: Array<{ $?: { NotOnOrAfter?: string } }>;
  Subject?: Array<{ SubjectConfirmation?: Array<{ SubjectConfirmationData?: Array<{ $?: { Recipient?: string } }> }> }>;
  AuthnStatement?: Array<{ $?: { AuthnInstant?: string } }>;
}

/** Whether the posted document carries an XML signature anywhere (else it is refused as unsigned). */
function hasSignature(xml: string): boolean {
  return /<(?:[A-Za-z_][\w.-]*:)?Signature[\s>]/.test(xml);
}
