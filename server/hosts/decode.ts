import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { z } from 'zod';
import {
  type DeclareFrame,
  type FrameKind,
  frameSchemas,
  framesBodySchema,
  type HelloFrame,
  type LogFrame,
  MAX_INFLATED_FRAMES_BYTES,
  type RunFrame,
  type SampleFrame,
} from '../../protocol/agent.ts';
import { fieldIssue } from '../../protocol/messages.ts';
import { formatPath } from '../config/paths.ts';
import { badRequest, Problem } from '../problem.ts';

const inflate = promisify(gunzip);

/** The frames of one request by kind, each in the order sent; `unknown` counts kinds this server does not know. */
export type DecodedFrames = {
  hello: HelloFrame[];
  sample: SampleFrame[];
  declare: DeclareFrame[];
  run: RunFrame[];
  log: LogFrame[];
  unknown: number;
};

/**
 * The body of `POST /agent/v1/frames` as bytes (gzip or identity) → its frames. Inflation stops at
 * `MAX_INFLATED_FRAMES_BYTES` (413), so a small body that inflates to gigabytes costs no memory. A
 * frame of a known kind that does not parse refuses the whole request (400 naming the field, e.g.
 * `frames[3].cpu: …`); a frame of an unknown kind is counted and left out.
 */
export async function decodeFrames(
  body: Buffer,
  contentEncoding: string | undefined,
): Promise<DecodedFrames> {
  const text = (await inflated(body, contentEncoding)).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON');
  }
  return parseFrames(json);
}

async function inflated(body: Buffer, contentEncoding: string | undefined): Promise<Buffer> {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip') {
    throw new Problem(415, 'unsupported media type', `Content-Encoding ${encoding}: send gzip or identity`);
  }
  try {
    return await inflate(body, { maxOutputLength: MAX_INFLATED_FRAMES_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new Problem(
        413,
        'body too large',
        `the frames inflate to more than ${MAX_INFLATED_FRAMES_BYTES / 1024 / 1024} MiB; send smaller batches`,
      );
    }
    throw badRequest('the body is not valid gzip');
  }
}

/** Parses an already decoded body (JSON value) into its frames; see `decodeFrames`. */
export function parseFrames(json: unknown): DecodedFrames {
  const body = framesBodySchema.safeParse(json);
  if (!body.success) throw fieldProblem(body.error, []);
  const out: DecodedFrames = { hello: [], sample: [], declare: [], run: [], log: [], unknown: 0 };
  body.data.frames.forEach((frame, i) => {
    if (!Object.hasOwn(frameSchemas, frame.kind)) {
      out.unknown++;
      return;
    }
    const kind = frame.kind as FrameKind;
    const parsed = frameSchemas[kind].safeParse(frame);
    if (!parsed.success) throw fieldProblem(parsed.error, ['frames', i]);
    (out[kind] as unknown[]).push(parsed.data);
  });
  return out;
}

/** 400 naming the field of the first issue, under `prefix` (`frames[3].cpu: …`). */
export function fieldProblem(error: z.ZodError, prefix: (string | number)[]): Problem {
  const issue = error.issues[0];
  if (!issue) return badRequest('the frames do not parse');
  const { path, message } = fieldIssue(issue);
  const where = formatPath([...prefix, ...path]);
  return badRequest(where ? `${where}: ${message}` : message);
}
