import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WARDEN_CONFIG, type WardenConfig } from '../config/warden-config.js';
import { methodNotAllowed, notFound } from '#warden/kernel';
import { RouteTable } from './route-table.js';
import { sendError } from './send-error.js';

/** Maps every exception that reaches Nest to the error body (docs/api.md, "Errors"). */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  constructor(
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    private readonly routes: RouteTable,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (exception instanceof NotFoundException) {
      const path = request.url.split('?')[0];
      const allowed = this.routes.allowedMethods(request.url);
      // A route that takes this method and still found nothing (a wildcard such as the static
      // files under /docs/*, which pass what they do not have on to the not-found handler): the
      // method is fine, the resource is missing, so 404, not a 405 whose Allow names the method used.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      if (allowed.includes(method)) exception = notFound(`Nothing at ${path}`);
      else if (allowed.length > 0) exception = methodNotAllowed(`${request.method} is not allowed on this path`, allowed);
      else exception = notFound(`No route ${request.method} ${path}`);
    }
    sendError(exception, request, http.getResponse<FastifyReply>(), this.config.bodyLimitBytes, this.logger);
  }
}
