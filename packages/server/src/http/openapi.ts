import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AnyRouter } from '@trpc/server';
import { ERROR_CODES } from '../errors.ts';
import type { Route } from './routes.ts';
import { auditEntryComponent } from '../audit/openapi.ts';

type Responses = Record<string, unknown>;
type Operation = { operationId?: string; security?: unknown; responses: Responses; parameters?: unknown[] };

const ERROR_REF = { $ref: '#/components/schemas/Error' };

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_REF } } });

/** Statuses an operation can answer besides success, with what they mean there. */
function errorsOf(route: Route): Record<number, string> {
  const errors: Record<number, string> = {
    400: 'VALIDATION_FAILED: the request does not match this contract (details.errors lists each problem)',
    429: 'RATE_LIMITED: too many requests in the sliding minute (see Retry-After)',
    500: 'INTERNAL_ERROR: our fault; the X-Request-Id helps support find it',
  };
  if (route.protect) errors[401] = 'MISSING_API_KEY, INVALID_API_KEY or API_KEY_REVOKED';
  else if (!route.probe) errors[401] = 'INVALID_API_KEY or API_KEY_REVOKED: a key was sent and is not valid (public reads need none)';
  if (route.path.includes('{')) errors[404] = 'NOT_FOUND: no such resource (or not yours)';
  if (route.method === 'POST') {
    errors[400] += '; INVALID_JSON: the body is not JSON';
    errors[413] = 'PAYLOAD_TOO_LARGE: the body is over 1 MiB';
    errors[415] = 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json';
    errors[409] = 'IDEMPOTENCY_CONFLICT: this Idempotency-Key was used with another body';
  }
  if (route.procedure === 'attestations.create' || route.procedure === 'attestations.batch') {
    errors[429] += '; QUOTA_EXCEEDED: the monthly on-chain quota of the key\'s tier is used up';
    errors[503] = 'CHAIN_UNAVAILABLE: the chain cannot take on-chain writes right now; nothing was charged';
  }
  if (route.procedure === 'attestations.revoke') {
    errors[403] = 'FORBIDDEN: the attestation belongs to another account';
    errors[409] += '; ALREADY_REVOKED';
    errors[503] = 'CHAIN_UNAVAILABLE';
  }
  if (route.procedure === 'system.ready') errors[503] = 'NOT_READY: details.components names what is failing';
  for (const [status, description] of Object.entries(route.docs?.errors ?? {})) {
    const code = Number(status);
    errors[code] = errors[code] ? `${errors[code]}; ${description}` : description;
  }
  return errors;
}

/**
 * The OpenAPI 3.1 document: trpc-to-openapi's, with our statuses (201/204 where the route says so) and our
 * error body in place of tRPC's.
 */
export function buildOpenApiDocument(router: AnyRouter, routes: Route[], opts: { baseUrl: string; version: string }): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: 'Attestation Service API',
    version: opts.version,
    description: 'Records, reads, searches and revokes attestations that content is human-made or AI-generated, on-chain (Ethereum Attestation Service) or off-chain (EAS-compatible signed attestations).',
    baseUrl: opts.baseUrl,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: svc_<tier>_<prefix12>_<secret32>' } },
  });
  doc.info.license = { name: 'Apache-2.0', identifier: 'Apache-2.0' };
  doc.info.contact = { name: 'Attestation Service', url: opts.baseUrl };
  doc.tags = [
    { name: 'attestations', description: 'Create, read, search and revoke attestations' },
    { name: 'webhooks', description: 'Signed event deliveries' },
    { name: 'audit', description: 'Compliance export of your account\'s audit log' },
    { name: 'system', description: 'Health and readiness' },
  ];
  doc.components ??= {};
  // trpc-to-openapi's tRPC-shaped error schemas are replaced below by our one Error schema
  const schemas = Object.fromEntries(Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')));
  doc.components.schemas = {
    ...schemas,
    AuditEntry: auditEntryComponent(),
    Error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', enum: ERROR_CODES },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
      },
    },
  };
  for (const route of routes) {
    const op = (doc.paths?.[route.path] as Record<string, Operation> | undefined)?.[route.method.toLowerCase()];
    if (!op) continue;
    const success = op.responses['200'] as { content?: unknown; description?: string } | undefined;
    const responses: Responses = {};
    if (route.successStatus === 204) responses['204'] = { description: 'Done; no body' };
    else responses[String(route.successStatus)] = { ...success, description: success?.description ?? 'Success' };
    if (route.docs?.success) responses[String(route.successStatus)] = route.docs.success;
    for (const [status, description] of Object.entries(errorsOf(route))) responses[status] = errorResponse(description);
    op.responses = responses;
    // public reads take an optional key (its tier's limit instead of the anonymous per-IP one); probes take none
    if (!route.protect) op.security = route.probe ? [] : [{}, { bearerAuth: [] }];
    if (route.method === 'POST') {
      op.parameters = [
        ...(op.parameters ?? []),
        { name: 'Idempotency-Key', in: 'header', required: false, description: 'Up to 255 characters; a retry with the same key and body replays the first response for 24 h.', schema: { type: 'string', maxLength: 255 } },
      ];
    }
  }
  return doc;
}
