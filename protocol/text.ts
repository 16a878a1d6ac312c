import { z } from 'zod';
import { nameProblem } from './text-rules.ts';

export { hasVisibleCharacter, hiddenTextProblem, nameProblem } from './text-rules.ts';

/** Names of checks, heartbeats, services and hosts: shown in the panel and used in URLs (text-rules.ts). */
export const nameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a name (text)') })
  .trim()
  .superRefine((name, ctx) => {
    const problem = nameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
