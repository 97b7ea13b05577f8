import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, type Observable, of, throwError } from 'rxjs';
import { type IdGenerator, idempotencyKeyInProgress, idempotencyKeyReused, unavailable } from '#warden/kernel';
import type { Principal } from '../auth/principal.js';
import { WARDEN_CONFIG, type WardenConfig } from '../config/warden-config.js';
import { ID_GENERATOR } from '../tokens.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf, requestFingerprint, storedKey } from './idempotency-key.js';
import { IDEMPOTENCY_STORE, type IdempotencyKeyRef, type IdempotencyStore } from './idempotency-store.port.js';

/** A request still running is usually done within a second; the lease covers a crash, not this. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * Idempotency-Key on a customer POST (docs/api.md, "Retries and idempotency"). Without the header
 * the request passes straight through: no store is touched. With it, the first request reserves
 * the key for its organization, runs, and has its 2xx response stored before it is sent; a repeat
 * with the same body gets that response again (`Idempotent-Replayed: true`) and runs nothing; any
 * other body is a 422; a repeat while the first still runs is a 409 with Retry-After. A request
 * that fails (4xx, 5xx, a thrown error) releases the key: it recorded nothing worth replaying.
 * Should the process die mid-request, the reservation's lease runs out and a retry takes over.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('idempotency');

  constructor(
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // The common case costs one header look-up: no promise, no store.
    if (request.headers[IDEMPOTENCY_KEY_HEADER] === undefined) return next.handle();
    return this.withKey(context, next);
  }

  private async withKey(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { principal?: Principal }>();
    const key = idempotencyKeyOf(request);
    // The organization comes from the credential (the guard ran first), never from the request.
    const principal = request.principal;
    if (!principal) throw new Error('@Idempotent() is for routes that need an API key');
    const ref: IdempotencyKeyRef = { scope: principal.orgId, key: storedKey(key) };
    const holder = this.ids.uuid();
    const fingerprint = requestFingerprint(request.method, request.routeOptions.url ?? request.url, request.body);
    const { leaseMs, retentionMs } = this.config.idempotency;
    let begun;
    try {
      begun = await this.store.begin({ ...ref, fingerprint, holder, leaseMs, retentionMs });
    } catch (error) {
      // Running the request without the record could run it twice: refuse it instead.
      this.logger.error({ msg: 'idempotency store failed', requestId: request.id, error: String(error) });
      throw unavailable('Requests with an Idempotency-Key cannot be handled right now; retry later');
    }
    const reply = http.getResponse<FastifyReply>();
    switch (begun.outcome) {
      case 'mismatch':
        throw idempotencyKeyReused();
      case 'in-progress':
        throw idempotencyKeyInProgress(IN_PROGRESS_RETRY_AFTER_SECONDS);
      case 'replay':
        reply.status(begun.response.status).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
        return of(begun.response.body === null ? undefined : (JSON.parse(begun.response.body) as unknown));
    }
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        const status = reply.statusCode;
        if (status >= 200 && status < 300) await this.complete(ref, holder, status, body, request.id);
        else await this.release(ref, holder);
        return body;
      }),
      catchError((error: unknown) => from(this.release(ref, holder)).pipe(mergeMap(() => throwError(() => error)))),
    );
  }

  /**
   * Stored before the response goes out, so a client that saw it can always have it again. When
   * storing fails the response still goes out; the key stays reserved until its lease runs out.
   */
  private async complete(ref: IdempotencyKeyRef, holder: string, status: number, body: unknown, requestId: string): Promise<void> {
    try {
      const stored = await this.store.complete(ref, holder, { status, body: body === undefined ? null : JSON.stringify(body) });
      if (!stored) this.logger.warn({ msg: 'idempotency reservation was taken over before the response was stored', requestId });
    } catch (error) {
      this.logger.warn({ msg: 'storing the response of an idempotent request failed', requestId, error: String(error) });
    }
  }

  private async release(ref: IdempotencyKeyRef, holder: string): Promise<void> {
    // A release that fails leaves the reservation to its lease.
    await this.store.release(ref, holder).catch((error: unknown) => {
      this.logger.warn({ msg: 'releasing an idempotency reservation failed', error: String(error) });
    });
  }
}
