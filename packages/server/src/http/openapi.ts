import { readFileSync } from 'node:fs';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import type { AnyRouter } from '@trpc/server';
import { ERROR_CODES } from '../errors.ts';
import type { Route } from './routes.ts';
import { HEADER_COMPONENTS, headersFor, IDEMPOTENCY_KEY_PARAMETER } from './openapi-headers.ts';
import { inputSchemaOf, openApiProcedures } from './trpc-internals.ts';

type Responses = Record<string, Record<string, unknown>>;
type MediaType = { schema?: { required?: string[]; $ref?: string; oneOf?: unknown }; examples?: unknown };
type Operation = {
  operationId?: string;
  security?: unknown;
  responses: Responses;
  parameters?: unknown[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
};

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** `info.version`: the server package's version, which the SDK's package carries too (a test holds them equal). */
const API_VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/** The 404 of a route whose path names a resource, for its meta's `docs.errors`. */
export const NOT_FOUND_ERRORS = { 404: 'NOT_FOUND: no such resource (or not yours)' };

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ERROR_REF } },
});

/**
 * Statuses an operation can answer besides success, with what they mean there: the ones every route of its kind
 * (gated, public, probe) and method answers, then its own from its meta (`docs.errors`).
 */
function errorsOf(route: Route): Record<number, string> {
  const errors: Record<number, string> = {
    400: 'VALIDATION_FAILED: the request does not match this contract (details.errors lists each problem)',
    405: 'METHOD_NOT_ALLOWED: this path does not take that method; Allow lists the ones it does',
    500: 'INTERNAL_ERROR: our fault; the X-Request-Id helps support find it',
  };
  if (!route.probe) errors[429] = 'RATE_LIMITED: too many requests in the sliding minute (see Retry-After)';
  if (route.protect) errors[401] = 'MISSING_API_KEY, INVALID_API_KEY or API_KEY_REVOKED';
  else if (!route.probe)
    errors[401] = 'INVALID_API_KEY or API_KEY_REVOKED: a key was sent and is not valid (public reads need none)';
  if (route.method === 'POST') {
    errors[400] += '; INVALID_JSON: the body is not JSON';
    errors[413] = 'PAYLOAD_TOO_LARGE: the body is over 1 MiB';
    errors[415] = 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json';
  }
  // every mutation honours Idempotency-Key (trpc.ts), DELETE included
  if (route.method !== 'GET') {
    errors[409] =
      'IDEMPOTENCY_CONFLICT: this Idempotency-Key was used with another body, or its first request is still running (see Retry-After)';
  }
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
export function buildOpenApiDocument(router: AnyRouter, routes: Route[], opts: { baseUrl: string }): OpenAPIObject {
  const doc = generateOpenApiDocument(router, {
    title: 'Attestation Service API',
    version: API_VERSION,
    description:
      'Records, reads, searches and revokes attestations that content is human-made or AI-generated, on-chain (Ethereum Attestation Service) or off-chain (EAS-compatible signed attestations).',
    baseUrl: opts.baseUrl,
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: svc_<tier>_<prefix12>_<secret32>' },
    },
  });
  // what the service sends (the routes that make it describe it): the document's `webhooks` section
  doc.webhooks = Object.assign({}, ...routes.map((route) => route.docs?.webhooks ?? {})) as OpenAPIObject['webhooks'];
  doc.info.license = { name: 'Apache-2.0', identifier: 'Apache-2.0' };
  // no contact url: the service has no home page of its own (its root is a 404), and this page is /docs itself
  doc.info.contact = { name: 'Attestation Service' };
  doc.tags = [
    { name: 'attestations', description: 'Create, read, search and revoke attestations' },
    { name: 'attesters', description: 'Addresses your account signs its own attestations with' },
    { name: 'webhooks', description: 'Signed event deliveries' },
    { name: 'audit', description: "Compliance export of your account's audit log" },
    { name: 'system', description: 'Health and readiness' },
  ];
  doc.components ??= {};
  doc.components.headers = HEADER_COMPONENTS;
  // trpc-to-openapi's tRPC-shaped error schemas are replaced below by our one Error schema
  const schemas = Object.fromEntries(
    Object.entries(doc.components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  doc.components.schemas = {
    ...schemas,
    // schemas only a route's docs describe (the audit export's AuditEntry): the route brings them
    ...Object.assign({}, ...routes.map((route) => route.docs?.components ?? {})),
    Error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', enum: ERROR_CODES },
        message: { type: 'string', example: 'The API key is not valid.' },
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
    if (route.docs?.success) responses[String(route.successStatus)] = { ...route.docs.success };
    for (const [status, description] of Object.entries(errorsOf(route))) responses[status] = errorResponse(description);
    for (const [status, response] of Object.entries(responses)) {
      response.headers = { ...headersFor(route, Number(status)), ...(response.headers as object | undefined) };
    }
    op.responses = responses;
    // public reads take an optional key (its tier's limit instead of the anonymous per-IP one); probes take none
    if (!route.protect) op.security = route.probe ? [] : [{}, { bearerAuth: [] }];
    if (route.method !== 'GET') op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER];
    describeBody(op, route, router);
  }
  return doc;
}

/**
 * The request body: its component when the whole input is one (trpc-to-openapi inlines a body's own shape, without
 * the component's overrides), its examples, and `required: false` when it requires nothing (an empty POST is {}).
 */
function describeBody(op: Operation, route: Route, router: AnyRouter): void {
  const json = op.requestBody?.content?.['application/json'];
  if (!op.requestBody || !json) return;
  const procedure = openApiProcedures(router).find(({ name }) => name === route.procedure)?.procedure;
  const id = procedure ? z.globalRegistry.get(inputSchemaOf(procedure) as z.ZodType)?.id : undefined;
  if (id && !route.path.includes('{')) json.schema = { $ref: `#/components/schemas/${id}` };
  if (route.docs?.requestExamples) json.examples = route.docs.requestExamples;
  const schema = json.schema ?? {};
  if (!schema.$ref && !schema.oneOf && (schema.required ?? []).length === 0) op.requestBody.required = false;
}
