import { createGunzip } from 'node:zlib';
import type { z } from 'zod';
import {
  type ContainerHealth,
  containerHealths,
  containerSchema,
  containerStates,
  type DeclareFrame,
  exceededLimit,
  type FrameKind,
  frameSchemas,
  framesBodySchema,
  type HelloFrame,
  type LogFrame,
  MAX_INFLATED_FRAMES_BYTES,
  REQUEST_LIMITS,
  type RunFrame,
  requestLimitNames,
  type SampleFrame,
  unitSchema,
  unitStates,
} from '../../protocol/agent.ts';
import { fieldIssue } from '../../protocol/messages.ts';
import { formatPath } from '../config/paths.ts';
import { refuseDeepJson } from '../http/json-depth.ts';
import { badRequest, Problem } from '../problem.ts';

/**
 * The containers and units a sample lists that this server cannot read (a state or a health a newer
 * agent knows), by name: present, so neither gone nor judged; what was last known of them stays.
 */
export type UnreadableItems = { containers: string[]; units: string[] };

/** A sample as this server read it: the frame, and what of it the server could not read. */
export type ReadSample = SampleFrame & { unreadable: UnreadableItems };

/**
 * The frames of one request by kind, each in the order sent; `unknown` counts kinds this server does
 * not know, `invalid` names the first field of each frame of a known kind that does not parse.
 */
export type DecodedFrames = {
  /** The batch's id, when the agent names its batches (a batch sent again has the same). */
  batch: string | null;
  hello: HelloFrame[];
  sample: ReadSample[];
  declare: DeclareFrame[];
  run: RunFrame[];
  log: LogFrame[];
  unknown: number;
  invalid: string[];
  /**
   * Containers and units of samples in a state or health this server does not know (a newer agent's),
   * each named (`frames[4].units[0].state: maintenance-2`); the rest of the sample is kept.
   */
  unknownItems: string[];
};

/** How many frames of the known kinds `frames` holds. */
export const frameCount = (frames: Pick<DecodedFrames, 'hello' | 'sample' | 'declare' | 'run' | 'log'>) =>
  frames.hello.length + frames.sample.length + frames.declare.length + frames.run.length + frames.log.length;

/** Retry-After of a body refused for want of memory: others finish within moments. */
const DECODE_RETRY_S = 2;

/** A 503 for a body that would take more memory than the server gives to frames in flight. */
export class BudgetExceeded extends Problem {
  constructor() {
    super(
      503,
      'service unavailable',
      'the server is taking in many frames at once; send the batch again shortly',
      DECODE_RETRY_S,
    );
  }
}

/**
 * Memory for frames in flight across requests: the body as sent, taken before a byte of it is read
 * (its Content-Length, or the most a body may be when it has none), and the JSON as inflated, taken
 * as it is inflated; all held until the request is answered (its frames are parsed objects until they
 * are committed). Each request takes its bytes through a `Reservation`.
 */
export class DecodeBudget {
  readonly max: number;
  used = 0;
  constructor(max: number) {
    this.max = max;
  }

  reserve(): Reservation {
    return new Reservation(this);
  }
}

export class Reservation {
  private readonly budget: DecodeBudget;
  private held = 0;
  constructor(budget: DecodeBudget) {
    this.budget = budget;
  }

  /** Takes `bytes` more; false (and nothing taken) when the budget has not that much left. */
  take(bytes: number): boolean {
    if (this.budget.used + bytes > this.budget.max) return false;
    this.budget.used += bytes;
    this.held += bytes;
    return true;
  }

  /** Gives back everything taken (the request is answered). */
  release(): void {
    this.budget.used -= this.held;
    this.held = 0;
  }
}

/**
 * The body of `POST /agent/v1/frames` as bytes (gzip or identity) → its frames. Inflation is streamed
 * and stops at `MAX_INFLATED_FRAMES_BYTES` (413), so a small body that inflates to gigabytes costs no
 * memory; every inflated byte is taken from `reservation` first (an identity body was taken before it
 * was read), and a body that does not fit in what is left of the server's budget is a 503
 * (`BudgetExceeded`). More than one request may carry (REQUEST_LIMITS) is a 413 naming what, before
 * any frame is parsed. JSON nested deeper than MAX_JSON_DEPTH is a 400 before it is parsed (parsing it
 * would hold the event loop for seconds). A frame of a known kind that does not parse is left out alone
 * and named in `invalid` (`frames[3].cpu: …`): the agent drops a batch refused as bad, and the rest of
 * it is good.
 * A frame of an unknown kind is counted and left out. `beforeParsing` may refuse the inflated bytes
 * before they cost their parse (the host's pace of JSON, frames.ts).
 */
export async function decodeFrames(
  body: Buffer,
  contentEncoding: string | undefined,
  reservation: Reservation,
  beforeParsing: (inflatedBytes: number) => void = () => {},
): Promise<DecodedFrames> {
  const bytes = await inflated(body, contentEncoding, reservation);
  beforeParsing(bytes.length);
  const text = bytes.toString('utf8');
  refuseDeepJson(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('the body is not valid JSON');
  }
  return parseFrames(json);
}

const tooLarge = () =>
  new Problem(
    413,
    'body too large',
    `the frames inflate to more than ${MAX_INFLATED_FRAMES_BYTES / 1024 / 1024} MiB; send smaller batches`,
  );

async function inflated(
  body: Buffer,
  contentEncoding: string | undefined,
  reservation: Reservation,
): Promise<Buffer> {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip') {
    throw new Problem(415, 'unsupported media type', `Content-Encoding ${encoding}: send gzip or identity`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const gunzip = createGunzip();
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Problem) => {
      gunzip.destroy();
      reject(error);
    };
    gunzip.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INFLATED_FRAMES_BYTES) fail(tooLarge());
      else if (!reservation.take(chunk.length)) fail(new BudgetExceeded());
      else chunks.push(chunk);
    });
    gunzip.on('end', () => resolve(Buffer.concat(chunks, size)));
    gunzip.on('error', () => reject(badRequest('the body is not valid gzip')));
    gunzip.end(body);
  });
}

/** Parses an already decoded body (JSON value) into its frames; see `decodeFrames`. */
export function parseFrames(json: unknown): DecodedFrames {
  const body = framesBodySchema.safeParse(json);
  if (!body.success) throw fieldProblem(body.error, []);
  const over = exceededLimit(body.data.frames);
  if (over) {
    const most = REQUEST_LIMITS[over].toLocaleString('en');
    throw new Problem(
      413,
      'too many frames',
      `a request carries at most ${most} ${requestLimitNames[over]}; send them in several requests`,
    );
  }
  const out: DecodedFrames = {
    batch: body.data.batch ?? null,
    hello: [],
    sample: [],
    declare: [],
    run: [],
    log: [],
    unknown: 0,
    invalid: [],
    unknownItems: [],
  };
  body.data.frames.forEach((frame, i) => {
    if (!Object.hasOwn(frameSchemas, frame.kind)) {
      out.unknown++;
      return;
    }
    const kind = frame.kind as FrameKind;
    if (kind === 'sample') {
      const { frame: known, unreadable } = readableItems(frame, i, out.unknownItems);
      const parsed = frameSchemas.sample.safeParse(known);
      if (parsed.success) out.sample.push({ ...parsed.data, unreadable });
      else out.invalid.push(fieldText(parsed.error, ['frames', i]));
      return;
    }
    const parsed = frameSchemas[kind].safeParse(frame);
    if (parsed.success) (out[kind] as unknown[]).push(parsed.data);
    else out.invalid.push(fieldText(parsed.error, ['frames', i]));
  });
  return out;
}

/**
 * A sample as this server can read it: what a newer agent may add to a word list of the protocol is
 * not refused with the whole sample (host CPU and memory included). A container or unit in a state
 * this server does not know, or a container with a health it does not know, is taken out of its list
 * and named in `unreadable` (and in `unknown`, for the log and the count): it is there, but what it is
 * now cannot be read, so what was last known of it holds (items.ts, alerting.ts). Its name must be one:
 * an item without a readable name is wrong, not new, and stays in to refuse the sample as invalid.
 */
function readableItems(
  frame: Record<string, unknown>,
  index: number,
  unknown: string[],
): { frame: unknown; unreadable: UnreadableItems } {
  const out = { ...frame };
  const unreadable: UnreadableItems = { containers: [], units: [] };
  const names = { containers: containerSchema.shape.name, units: unitSchema.shape.name };
  const keep = (list: 'containers' | 'units', newWord: (item: Record<string, unknown>) => string | null) => {
    const items = frame[list];
    if (!Array.isArray(items)) return;
    out[list] = items.filter((item: unknown, j) => {
      if (typeof item !== 'object' || item === null) return true;
      if (!names[list].safeParse((item as { name?: unknown }).name).success) return true;
      const word = newWord(item as Record<string, unknown>);
      if (word === null) return true;
      unknown.push(`frames[${index}].${list}[${j}].${word.slice(0, 80)}`);
      unreadable[list].push((item as { name: string }).name);
      return false;
    });
  };
  const unknownWord = (field: string, value: unknown, words: readonly string[]) =>
    typeof value === 'string' && !words.includes(value) ? `${field}: ${value.slice(0, 64)}` : null;
  keep(
    'containers',
    (c) =>
      unknownWord('state', c.state, containerStates) ??
      unknownWord('health', c.health, containerHealths as readonly ContainerHealth[]),
  );
  keep('units', (u) => unknownWord('state', u.state, unitStates));
  return { frame: out, unreadable };
}

/** 400 naming the field of the first issue, under `prefix` (`frames[3].cpu: …`). */
export function fieldProblem(error: z.ZodError, prefix: (string | number)[]): Problem {
  return badRequest(fieldText(error, prefix));
}

/** The field of the first issue and what is wrong with it, under `prefix` (`frames[3].cpu: …`). */
function fieldText(error: z.ZodError, prefix: (string | number)[]): string {
  const issue = error.issues[0];
  if (!issue) return 'the frames do not parse';
  const { path, message } = fieldIssue(issue);
  const where = formatPath([...prefix, ...path]);
  return where ? `${where}: ${message}` : message;
}
