import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorBodyDto, ErrorItemDto } from '../http/error-body.js';

export const API_KEY_SCHEME = 'ApiKey';

export function buildOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Warden')
    .setDescription(
      'Content-moderation backend. Every `/api/v1/` route needs the `X-API-KEY` header and answers with or ' +
        'without a trailing slash. Every error uses one body: `{"errors":[{status,type,title,detail?,pointer?,requestId?}]}`; ' +
        'every response carries `X-Request-Id`.',
    )
    .setVersion(version)
    .addApiKey({ type: 'apiKey', name: 'X-API-KEY', in: 'header' }, API_KEY_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBodyDto, ErrorItemDto] });
  return sortKeys(document) as OpenAPIObject;
}

export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
}

/** Stable key order, so the committed document only changes when the API does. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
