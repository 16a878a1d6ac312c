import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { refuseDeepJson } from '../http/json-depth.ts';
import { badRequest, Problem } from '../problem.ts';
import { mediaType, rawBody, utf8 } from './body.ts';
import { readDelivery } from './codehost-events.ts';
import { codehostSecret } from './config.ts';
import type { Recorder } from './record.ts';

const signatureHeader = 'x-hub-signature-256';

/**
 * `POST /hooks/codehost`: GitHub-style webhook deliveries, signed with HMAC-SHA256 of the raw body in
 * `X-Hub-Signature-256: sha256=<hex>` under `[codehost] secret`. The signature is compared in
 * constant time on the bytes as received, before anything is parsed. While no secret is set the route
 * answers 404 like an unknown path. docs/deploys.md describes the answers.
 */
export function registerCodehost(
  scope: FastifyInstance,
  deps: Deps,
  recorder: Recorder,
  arrivedAt: (request: FastifyRequest) => number,
): void {
  const secret = () => codehostSecret(deps.config.current().codehost, deps.env);
  const unknownRoute = () => new Problem(404, 'not found', 'no route POST /hooks/codehost');

  scope.post(
    '/hooks/codehost',
    {
      // Refused before the body is read: no secret set, or no signature sent.
      onRequest: async (request) => {
        if (secret() === null) throw unknownRoute();
        if (request.headers[signatureHeader] === undefined) {
          throw new Problem(401, 'signature required', 'X-Hub-Signature-256 is missing');
        }
      },
    },
    async (request, reply) => {
      const ts = arrivedAt(request);
      const key = secret();
      if (key === null) throw unknownRoute();
      const body = rawBody(request);
      if (!signatureMatches(body, request.headers[signatureHeader], key)) {
        throw new Problem(403, 'forbidden', 'X-Hub-Signature-256 does not match the body and the secret');
      }
      const event = request.headers['x-github-event'];
      if (typeof event !== 'string' || event === '') throw badRequest('X-GitHub-Event is missing');
      const delivery = readDelivery(
        event,
        payloadOf(body, request.headers['content-type']),
        deps.config.current().services,
        ts,
      );
      switch (delivery.type) {
        case 'ping':
          return reply.code(200).send({ ok: true });
        case 'ignored':
          return reply.code(202).send({ ignored: delivery.reason });
        case 'deploy': {
          const answer = await recorder.deploy(delivery.report);
          return reply.code(answer.merged ? 200 : 201).send(answer);
        }
        case 'change':
          return reply.code(201).send(await recorder.change(delivery.report));
      }
    },
  );
}

/** Whether `header` is `sha256=<hex>` of the HMAC-SHA256 of `body` under `secret`. */
function signatureMatches(body: Buffer, header: string | string[] | undefined, secret: string): boolean {
  const hex = typeof header === 'string' ? /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim())?.[1] : undefined;
  if (!hex) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

/** The delivery's JSON: the body, or its `payload` field when GitHub sends the form content type. */
function payloadOf(body: Buffer, contentType: string | undefined): unknown {
  let text = utf8(body);
  if (mediaType(contentType) === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) throw badRequest('payload: required');
    text = payload;
  }
  refuseDeepJson(text);
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('the payload is not valid JSON');
  }
}
